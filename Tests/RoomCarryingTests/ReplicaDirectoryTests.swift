import PlaybackCoordination
import RoomCrypto
import Rooms
import Testing
import WireProtocol

@testable import RoomCarrying

/// The directory of a participant's own relay: which hellos count as votes, and when.
@Suite("Carrying rooms: the replica directory")
struct ReplicaDirectoryTests {
  /// ann ran the relay; bob and carl were in the room with her.
  static func directory(participantConnected: Bool = false) -> ReplicaDirectory {
    let directory = ReplicaDirectory(claimWait: 0.05)
    var state = GroupState()
    state.participants = ["p1", "p2", "p3"].map {
      Participant(id: ParticipantID($0), name: $0, isConnected: true)
    }
    let members = ["p1", "p2", "p3"].map {
      StoredMember(participant: ParticipantID($0), name: $0, resumeKey: Self.keys[$0]!.publicKey)
    }
    directory.apply(
      RoomChange(
        name: "lobby", state: state, nextNumber: 4, members: members, departed: [],
        restart: true, host: "p1"))
    let known = state
    directory.attach(
      {
        ReplicaBook.Known(
          state: known, clock: nil, now: LocalInstant(nanoseconds: 0),
          connected: participantConnected)
      }, told: {})
    return directory
  }

  /// Each member's resume key.
  static let keys = Dictionary(
    uniqueKeysWithValues: ["p1", "p2", "p3"].map { ($0, ResumeKey.generate()) })
  /// How the standby relay checks proofs (in memory: proofs name no relay).
  static let check = ResumeCheck(relays: [], verify: RoomKeys.verify(signature:of:verifier:))

  /// `id`'s resume, proven by its key; `forged`: a proof that is not its key's.
  static func token(_ id: String, forged: Bool = false) -> ResumeToken {
    let key = forged ? ResumeKey.generate() : keys[id]!
    return ResumeToken(
      participant: ParticipantID(id),
      proof: key.prove(room: "lobby", participant: ParticipantID(id), relay: nil))
  }

  static func claims(_ directory: ReplicaDirectory) async -> Bool {
    do {
      _ = try await directory.claim("lobby")
      return true
    } catch {
      return false
    }
  }

  @Test("a majority of right proofs carries the room; a forged proof is no vote")
  func majority() async {
    let d = Self.directory()
    d.helloWaiting(for: "lobby", resume: Self.token("p2"), check: Self.check, on: ConnectionID(1))
    d.helloWaiting(
      for: "lobby", resume: Self.token("p3", forged: true), check: Self.check, on: ConnectionID(2))
    #expect(await Self.claims(d) == false)
    d.helloWaiting(for: "lobby", resume: Self.token("p2"), check: Self.check, on: ConnectionID(3))
    d.helloWaiting(for: "lobby", resume: Self.token("p3"), check: Self.check, on: ConnectionID(4))
    #expect(await Self.claims(d) == true)
  }

  @Test("a vote goes with its connection, and with a refused claim")
  func votesGo() async {
    let d = Self.directory()
    d.helloWaiting(for: "lobby", resume: Self.token("p2"), check: Self.check, on: ConnectionID(1))
    d.helloGone(on: ConnectionID(1))
    d.helloWaiting(for: "lobby", resume: Self.token("p3"), check: Self.check, on: ConnectionID(2))
    #expect(await Self.claims(d) == false)
    // p3's hello was refused with that claim: a later hello of p2 alone is no majority.
    d.helloWaiting(for: "lobby", resume: Self.token("p2"), check: Self.check, on: ConnectionID(3))
    #expect(await Self.claims(d) == false)
  }

  @Test("while this machine's participant still reaches a relay, its own does not take over")
  func stillConnected() async {
    let d = Self.directory(participantConnected: true)
    d.helloWaiting(for: "lobby", resume: Self.token("p2"), check: Self.check, on: ConnectionID(1))
    d.helloWaiting(for: "lobby", resume: Self.token("p3"), check: Self.check, on: ConnectionID(2))
    #expect(await Self.claims(d) == false)
  }
}
