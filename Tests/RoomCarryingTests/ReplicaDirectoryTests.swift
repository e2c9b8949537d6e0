import PlaybackCoordination
import Rooms
import RoomsTesting
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
      ResumeKeys.member($0)
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
    d.helloWaiting(
      for: "lobby", resume: ResumeKeys.token("p2"), check: ResumeKeys.check, on: ConnectionID(1))
    d.helloWaiting(
      for: "lobby", resume: ResumeKeys.token("p3", forged: true), check: ResumeKeys.check,
      on: ConnectionID(2))
    #expect(await Self.claims(d) == false)
    d.helloWaiting(
      for: "lobby", resume: ResumeKeys.token("p2"), check: ResumeKeys.check, on: ConnectionID(3))
    d.helloWaiting(
      for: "lobby", resume: ResumeKeys.token("p3"), check: ResumeKeys.check, on: ConnectionID(4))
    #expect(await Self.claims(d) == true)
  }

  @Test("a vote goes with its connection, and with a refused claim")
  func votesGo() async {
    let d = Self.directory()
    d.helloWaiting(
      for: "lobby", resume: ResumeKeys.token("p2"), check: ResumeKeys.check, on: ConnectionID(1))
    d.helloGone(on: ConnectionID(1))
    d.helloWaiting(
      for: "lobby", resume: ResumeKeys.token("p3"), check: ResumeKeys.check, on: ConnectionID(2))
    #expect(await Self.claims(d) == false)
    // p3's hello was refused with that claim: a later hello of p2 alone is no majority.
    d.helloWaiting(
      for: "lobby", resume: ResumeKeys.token("p2"), check: ResumeKeys.check, on: ConnectionID(3))
    #expect(await Self.claims(d) == false)
  }

  @Test("while this machine's participant still reaches a relay, its own does not take over")
  func stillConnected() async {
    let d = Self.directory(participantConnected: true)
    d.helloWaiting(
      for: "lobby", resume: ResumeKeys.token("p2"), check: ResumeKeys.check, on: ConnectionID(1))
    d.helloWaiting(
      for: "lobby", resume: ResumeKeys.token("p3"), check: ResumeKeys.check, on: ConnectionID(2))
    #expect(await Self.claims(d) == false)
  }
}
