import PlaybackCoordination
import RelayRuntime
import Synchronization
import Testing
import WireProtocol

@testable import Rooms

/// A relay replaced while it was away (its machine slept past the others' patience, and
/// they carried the room on at a successor's): it asks its lost successors' relays where
/// the room is, and never runs it on beside the one that carries it.
@Suite("Relay: replaced while away")
struct ReplacedRelayTests {
  /// What the relay asked, and what each relay answers (by address).
  final class Locator: Sendable {
    let asked = Mutex<[String]>([])
    let answers: [String: Bool]
    /// The term a relay that runs the room says it runs it at: the next after dan's.
    let term: UInt64
    init(answers: [String: Bool], term: UInt64 = 2) {
      self.answers = answers
      self.term = term
    }
    func locate(_ room: String, _ relay: RelayEndpoint) -> LocateAnswer {
      asked.withLock { $0.append("\(room)@\(relay.address)") }
      return answers[relay.address].map { $0 ? .here(term: term) : .elsewhere } ?? .noAnswer
    }
  }

  /// dan runs the relay (on its machine); bob and carl offered to carry the room, then
  /// their connections (and ann's) went without a word, as when dan's machine slept.
  static func awake(answers: [String: Bool], term: UInt64 = 2) -> (RelayDriver, Locator) {
    var r = SuccessionRelayTests.room()
    r.hello(4, "dan", address: "127.0.0.1")
    r.send(.carry(r.ownOffer), from: 4)
    let locator = Locator(answers: answers, term: term)
    r.runtime.locateRooms { room, relay in locator.locate(room, relay) }
    r.drop(1)
    r.drop(2)
    r.drop(3)
    return (r, locator)
  }

  static func redirects(_ r: RelayDriver, _ id: UInt64) -> [RelayEndpoint] {
    (r.outbox[ConnectionID(id)] ?? []).compactMap {
      if case .redirect(_, let relay) = $0 { relay } else { nil }
    }
  }

  /// Lets the locator's answers come back, collects what the relay wrote, and checks that
  /// the relay acted on them as `done` says.
  static func settle(
    _ r: inout RelayDriver, sourceLocation: SourceLocation = #_sourceLocation,
    until done: (RelayDriver) -> Bool
  ) async {
    await r.settle()
    if !done(r) {
      Issue.record("the relay did not act on the answers", sourceLocation: sourceLocation)
    }
  }

  @Test("bob's relay runs the room now: dan is sent there, and the room is let go here")
  func sendsEveryoneOn() async throws {
    var (r, locator) = Self.awake(answers: ["10.0.0.2:7701": true, "10.0.0.3:7702": false])
    // Asked at the next sweep (within 0.2 s), not a second later.
    r.advance(0.2)
    await Self.settle(&r) { _ in locator.asked.withLock { $0 }.count == 2 }
    #expect(
      locator.asked.withLock { $0 }.sorted() == ["lobby@10.0.0.2:7701", "lobby@10.0.0.3:7702"])
    await Self.settle(&r) { $0.closed.contains(ConnectionID(4)) }
    // Sent to bob's relay, pinned to the fingerprint bob offered with.
    #expect(
      Self.redirects(r, 4) == [RelayEndpoint(address: "10.0.0.2:7701", fingerprint: "SHA256:bob")])
    #expect(r.runtime.roomNames.isEmpty)
  }

  /// The trust issue: a room moves only "to a successor it named and fed, at a higher
  /// term". A relay that says it runs the room at this relay's own term (or without one,
  /// as a client of its own answers) did not carry it on from here.
  @Test(
    "most members are gone, but the relay that says it runs the room says so at no later term: nobody moves",
    arguments: [UInt64(0), 1])
  func staleTermMovesNobody(term: UInt64) async throws {
    var (r, locator) = Self.awake(
      answers: ["10.0.0.2:7701": true, "10.0.0.3:7702": false], term: term)
    r.advance(0.2)
    await Self.settle(&r) { _ in locator.asked.withLock { $0 }.count >= 2 }
    for _ in 0..<3 {
      r.advance(1.0)
      await r.settle()
    }
    #expect(r.runtime.roomNames == ["lobby"])
    #expect(Self.redirects(r, 4).isEmpty, "dan was sent to a relay that did not carry the room on")
    #expect(!r.closed.contains(ConnectionID(4)))
  }

  @Test(
    "one member drops without a word and its relay says it runs the room: most are still here, so nobody moves"
  )
  func oneLiarMovesNobody() async throws {
    var r = SuccessionRelayTests.room()
    r.hello(4, "dan", address: "10.0.0.4")
    r.send(.carry(r.ownOffer), from: 4)
    // carl, fed as a successor, runs a client of its own: it drops its connection and
    // answers every `locate` with "here".
    let locator = Locator(answers: ["10.0.0.3:7702": true])
    r.runtime.locateRooms { room, relay in locator.locate(room, relay) }
    r.drop(3)
    r.advance(0.2)
    await Self.settle(&r) { _ in !locator.asked.withLock { $0 }.isEmpty }
    for _ in 0..<3 {
      r.advance(1.0)
      await r.settle()
    }
    #expect(locator.asked.withLock { $0 }.count >= 2, "carl's relay was asked, and answered here")
    #expect(r.runtime.roomNames == ["lobby"])
    for id: UInt64 in [1, 2, 4] {
      #expect(Self.redirects(r, id).isEmpty, "connection \(id) sent to carl's relay")
      #expect(!r.closed.contains(ConnectionID(id)))
    }
    // The room goes on here: a change of bob's reaches ann.
    r.send(.command(id: 1, .setAutoAdvance(true)), from: 2)
    #expect(
      r.replicas[ConnectionID(1)]?.state.participants.first { $0.name == "bob" }?.autoAdvance
        == true)
  }

  @Test("nobody runs it elsewhere: the room stays, asked again each second; one back is not asked")
  func staysWhileNobodyElse() async throws {
    var (r, locator) = Self.awake(answers: [:])
    r.advance(0.2)
    await Self.settle(&r) { _ in locator.asked.withLock { $0 }.count == 2 }
    r.advance(0.7)
    await r.settle()
    #expect(locator.asked.withLock { $0 }.count == 2, "once a second, not at every sweep")
    r.advance(0.2)
    await Self.settle(&r) { _ in locator.asked.withLock { $0 }.count == 4 }
    await r.settle()
    #expect(r.runtime.roomNames == ["lobby"])
    #expect(Self.redirects(r, 4).isEmpty)
    // bob comes back: only carl's relay is asked from then on.
    let token = try #require(r.welcome(2)?.resume)
    r.hello(5, "bob", address: "10.0.0.2", resume: token)
    locator.asked.withLock { $0 = [] }
    r.advance(1.0)
    await Self.settle(&r) { _ in !locator.asked.withLock { $0 }.isEmpty }
    await r.settle()
    #expect(locator.asked.withLock { $0 } == ["lobby@10.0.0.3:7702"])
    // A relay that answers "here" for a successor it did not lose is not believed.
    r.runtime.located(
      "lobby", at: RelayEndpoint(address: "10.0.0.9:7709", fingerprint: nil), .here(term: 2))
    r.collect()
    #expect(r.runtime.roomNames == ["lobby"])
  }

  /// The edges issue: `locate` was answered before any hello by every relay, a silent
  /// oracle of which rooms exist. Only a room carried on from another relay is "here".
  @Test(
    "locate says here only for a room carried on from another relay; any other name gets the same answer; from a member it is refused"
  )
  func answersLocate() throws {
    var r = SuccessionRelayTests.room()
    r.connect(7, address: "10.0.0.7")
    r.send(.locate(room: "lobby"), from: 7)
    // lobby began here: nobody could have moved it here, so it is not said.
    #expect(r.outbox[ConnectionID(7)] == [.located(room: "lobby", here: false)])
    #expect(r.closed.contains(ConnectionID(7)))
    r.connect(8, address: "10.0.0.8")
    r.send(.locate(room: "attic"), from: 8)
    #expect(r.outbox[ConnectionID(8)] == [.located(room: "attic", here: false)])
    r.send(.locate(room: "lobby"), from: 2)
    #expect(r.errors(2) == [.alreadyGreeted])
    #expect(!r.closed.contains(ConnectionID(2)))
    // A relay that carries a room on from a copy (term 2) says so, with its term.
    var stored = try #require(r.runtime.storedRooms().first)
    stored.term = 2
    var successor = RelayDriver(restoring: [stored], feedsSuccessors: true)
    successor.connect(9, address: "10.0.0.9")
    successor.send(.locate(room: "lobby"), from: 9)
    #expect(successor.outbox[ConnectionID(9)] == [.located(room: "lobby", here: true, term: 2)])
  }
}

/// Successors the relay cannot reach (behind a NAT): named, marked so, never fed, never
/// handed the room.
@Suite("Relay: successors it cannot reach")
struct UnreachableSuccessorTests {
  static func successions(_ r: RelayDriver, _ id: UInt64) -> [[String]] {
    (r.outbox[ConnectionID(id)] ?? []).compactMap {
      if case .succession(let list) = $0 {
        list.map { "\($0.name)\($0.reachable ? "" : " (unreachable)")" }
      } else {
        nil
      }
    }
  }

  @Test("bob's relay cannot be reached: carl is the first successor, fed and handed the room")
  func skipped() async throws {
    var r = RelayDriver(feedsSuccessors: true)
    // bob's address gets no answer; carl's relay answers (it runs nothing yet).
    let locator = ReplacedRelayTests.Locator(answers: ["10.0.0.3:7702": false])
    r.runtime.locateRooms { room, relay in locator.locate(room, relay) }
    r.hello(1, "ann", address: "10.0.0.1")
    r.hello(2, "bob", address: "10.0.0.2")
    r.hello(3, "carl", address: "10.0.0.3")
    r.send(.carry(SuccessionRelayTests.bobOffer), from: 2)
    r.send(.carry(SuccessionRelayTests.carlOffer), from: 3)
    await ReplacedRelayTests.settle(&r) {
      Self.successions($0, 1).last == ["carl", "bob (unreachable)"]
    }
    #expect(
      locator.asked.withLock { $0 }.sorted() == ["lobby@10.0.0.2:7701", "lobby@10.0.0.3:7702"])
    // bob is fed no more (it had the whole room while it counted as reachable).
    let fedBob = SuccessionRelayTests.replicas(r, 2).count
    let fedCarl = SuccessionRelayTests.replicas(r, 3).count
    r.send(.send(seq: 1, to: .all, kind: "chat", body: "hi"), from: 1)
    r.runtime.feedSuccessors()
    r.collect()
    #expect(SuccessionRelayTests.replicas(r, 2).count == fedBob)
    #expect(SuccessionRelayTests.replicas(r, 3).count > fedCarl)
    // The room goes to carl, whom everyone is sent to.
    let moved = r.runtime.handOver()
    #expect(moved.map(\.to.name) == ["carl"])
    r.collect()
    #expect(r.outbox[ConnectionID(3)]?.contains(.handover(room: "lobby")) == true)
    #expect(r.outbox[ConnectionID(2)]?.contains(.handover(room: "lobby")) != true)
  }
}
