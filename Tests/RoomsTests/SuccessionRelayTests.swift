import PlaybackCoordination
import RelayRuntime
import Testing
import WireProtocol

@testable import Rooms

/// A relay that passes its rooms on: it names the members that offered to carry the room,
/// feeds the first of them a copy that holds what a store would, and hands the room over.
@Suite("Relay: successors")
struct SuccessionRelayTests {
  static let bobOffer = CarryOffer(port: 7701, fingerprint: "SHA256:bob")
  static let carlOffer = CarryOffer(port: 7702, fingerprint: nil)

  /// ann, bob and carl in the lobby; bob and carl offer to carry it.
  static func room() -> RelayDriver {
    var r = RelayDriver(feedsSuccessors: true)
    r.hello(1, "ann", address: "10.0.0.1")
    r.hello(2, "bob", address: "10.0.0.2")
    r.hello(3, "carl", address: "10.0.0.3")
    r.send(.carry(bobOffer), from: 2)
    r.send(.carry(carlOffer), from: 3)
    return r
  }

  static func successions(_ r: RelayDriver, _ id: UInt64) -> [[String]] {
    (r.outbox[ConnectionID(id)] ?? []).compactMap {
      if case .succession(let list) = $0 {
        list.map { "\($0.name)@\($0.relay.address)" }
      } else {
        nil
      }
    }
  }

  static func replicas(_ r: RelayDriver, _ id: UInt64) -> [RoomChange] {
    (r.outbox[ConnectionID(id)] ?? []).compactMap {
      if case .replica(let change) = $0 { change } else { nil }
    }
  }

  /// The trust issue: "a successor that cannot be fed is passed over, and the people pane
  /// says why — never a loop". bob's connection goes each time he is sent the room's copy.
  @Test(
    "a successor whose connection goes each time it is fed is passed over, named so, and not fed in a loop"
  )
  func passedOverWhenItCannotBeFed() throws {
    var r = Self.room()
    let bob = try #require(r.welcome(2)).resume
    var connection: UInt64 = 2
    for round in UInt64(0)..<6 {
      r.drop(connection)
      connection = 10 + round
      r.hello(connection, "bob", address: "10.0.0.2", resume: bob)
      r.send(.carry(Self.bobOffer), from: connection)
      r.advance(0.3)
    }
    let fedFromStart = ([2] + (UInt64(10)..<16)).map { id in
      Self.replicas(r, id).filter(\.restart).count
    }
    #expect(fedFromStart.reduce(0, +) == RelayCore.maximumWholeRoomFeeds, "\(fedFromStart)")
    // Named to everyone, last, marked: not fed, not handed the room.
    let lists: [[Successor]] = (r.outbox[ConnectionID(1)] ?? []).compactMap {
      if case .succession(let list) = $0 { list } else { nil }
    }
    let named = lists.last ?? []
    #expect(named.map(\.name) == ["carl", "bob"])
    #expect(named.last?.feedable == false && named.last?.canCarry == false)
    #expect(named.first?.canCarry == true)
    // Five minutes later it may be fed again.
    r.advance(RelayCore.passedOverDuration + 1)
    r.drop(connection)
    r.hello(20, "bob", address: "10.0.0.2", resume: bob)
    r.send(.carry(Self.bobOffer), from: 20)
    r.advance(0.3)
    #expect(Self.replicas(r, 20).contains { $0.restart })
  }

  @Test("members that offer are named to everyone, longest present first; one that goes is not")
  func named() {
    var r = Self.room()
    #expect(
      Self.successions(r, 1).last == ["bob@10.0.0.2:7701", "carl@10.0.0.3:7702"])
    #expect(Self.successions(r, 3).last == Self.successions(r, 1).last)
    // A newcomer hears the succession with its welcome.
    r.hello(4, "dan", address: "10.0.0.4")
    #expect(Self.successions(r, 4).last == ["bob@10.0.0.2:7701", "carl@10.0.0.3:7702"])
    r.drop(2)
    #expect(Self.successions(r, 1).last == ["carl@10.0.0.3:7702"])
    // Back, it offers again (a participant does after every welcome).
    let token = r.welcome(2)!.resume
    r.hello(5, "bob", address: "10.0.0.2", resume: token)
    r.send(.carry(Self.bobOffer), from: 5)
    #expect(Self.successions(r, 1).last == ["bob@10.0.0.2:7701", "carl@10.0.0.3:7702"])
  }

  @Test("who runs the relay reaches the successors at once, not with the next feed")
  func hostAtOnce() throws {
    var r = Self.room()
    // The relay's own participant, at the machine's LAN address (as a successor's is).
    r.hello(4, "dan", address: "10.0.0.4")
    let dan = try #require(r.welcome(4)?.participant)
    r.send(.carry(r.ownOffer), from: 4)
    // No feed ran: the line went with the offer itself.
    #expect(Self.replicas(r, 2).last?.host == dan)
    #expect(Self.replicas(r, 3).last?.host == dan)
    #expect(Self.successions(r, 1).last == ["bob@10.0.0.2:7701", "carl@10.0.0.3:7702"])
  }

  @Test(
    "saying one runs the relay takes its key: not an address, loopback included, nor a wrong key",
    arguments: [
      ("127.0.0.1", nil), ("10.0.0.3", nil), ("127.0.0.1", "0123456789abcdef0123456789abcdef"),
    ] as [(String, String?)])
  func hostByKeyOnly(address: String, key: String?) throws {
    var r = Self.room()
    r.hello(4, "dan", address: "10.0.0.4")
    let dan = try #require(r.welcome(4)?.participant)
    r.send(.carry(r.ownOffer), from: 4)
    r.hello(5, "mallory", address: address)
    r.send(
      .carry(CarryOffer(port: 7700, fingerprint: nil, runsRelay: true, relayKey: key)), from: 5)
    r.advance(1)
    #expect(Self.replicas(r, 2).last?.host == dan, "mallory is not taken for the relay's own")
  }

  @Test(
    "offers are bounded work: one acted on per connection, one check per member, at most four at once"
  )
  func boundedChecks() {
    var r = RelayDriver(feedsSuccessors: true)
    r.runtime.keepLocateRequests()
    r.hello(1, "ann", address: "10.0.0.1")
    for n in UInt64(2)...7 {
      r.hello(n, "m\(n)", address: "10.0.1.\(n)")
      // Each offers ten times on its connection.
      for _ in 0..<10 { r.send(.carry(CarryOffer(port: 7700 + Int(n), fingerprint: nil)), from: n) }
    }
    let first = r.runtime.takeLocateRequests()
    #expect(first.count == RelayCore.maximumReachabilityChecks)
    #expect(Set(first.compactMap(\.reachability)).count == first.count, "one per member")
    // What the relay said to ann: a succession when someone entered or offered, not one
    // per offer (60).
    #expect(Self.successions(r, 1).count <= 13)
    // One check ends: the next member's starts.
    let done = first[0]
    r.runtime.reachability(
      of: done.reachability!, in: "lobby", at: done.relay, reachable: true)
    let next = r.runtime.takeLocateRequests()
    #expect(next.count == 1)
    #expect(next.first?.reachability != nil && next.first?.reachability != done.reachability)
    // A member that reconnects may offer again, on its new connection.
    let token = r.welcome(2)?.resume
    r.drop(2)
    r.hello(12, "m2", address: "10.0.1.2", resume: token)
    r.send(.carry(CarryOffer(port: 7702, fingerprint: nil)), from: 12)
    r.collect()
    #expect(r.runtime.takeLocateRequests().isEmpty, "all four checks are still taken")
  }

  @Test(
    "a flood of control characters for one member: what it keeps, and every successor's feed, fits a participant's frame"
  )
  func floodFitsTheFeed() throws {
    var r = Self.room()
    r.hello(4, "mallory", address: "10.0.0.9")
    let carl = try #require(r.welcome(3)?.participant)
    // Each body as long as a 64 KiB line lets through: 10,880 characters, six bytes each
    // once encoded. Then a 16,000-quote one (two bytes each).
    for seq in UInt64(1)...100 {
      let body =
        seq == 100
        ? String(repeating: "\"", count: 16_000) : String(repeating: "\u{1}", count: 10_880)
      r.send(.send(seq: seq, to: .only([carl]), kind: .chat, body: body), from: 4)
    }
    r.runtime.feedSuccessors()
    r.collect()
    // A newcomer offers to carry the room and is fed the whole of it.
    r.hello(5, "dan", address: "10.0.0.5")
    r.send(.carry(CarryOffer(port: 7705, fingerprint: nil)), from: 5)
    r.runtime.feedSuccessors()
    r.collect()
    #expect(!Self.replicas(r, 5).isEmpty, "dan is fed")
    let frame = 1 << 20
    for id: UInt64 in [2, 3, 5] {
      let longest = r.longestLine[ConnectionID(id)] ?? 0
      #expect(longest < frame / 2, "connection \(id): a line of \(longest) bytes")
    }
    #expect(!r.closed.contains(ConnectionID(5)))
  }

  @Test(
    "what one member makes the relay deliver is bounded in bytes: a flood is refused in words after the burst, then paced"
  )
  func messageBytesBounded() throws {
    var r = Self.room()
    let carl = try #require(r.welcome(3)?.participant)
    let body = String(repeating: "\u{1}", count: 10_880)  // 65,282 bytes once encoded
    for seq in UInt64(1)...100 {
      r.send(.send(seq: seq, to: .only([carl]), kind: .chat, body: body), from: 1)
    }
    // A 1 MiB burst: 16 of them; the rest refused, each answered, with the reason.
    #expect(r.accepted(1).count == 16)
    #expect(r.rejections(1).count == 84)
    #expect(r.rejections(1).first?.1.contains("faster than 256 KiB a second") == true)
    // Paced: after a second, another four go.
    r.advance(1)
    for seq in UInt64(101)...110 {
      r.send(.send(seq: seq, to: .only([carl]), kind: .chat, body: body), from: 1)
    }
    #expect(r.accepted(1).count == 20)
    // Everyone else's chat is not held up by it.
    r.send(.send(seq: 1, to: .all, kind: .chat, body: "hi"), from: 2)
    #expect(r.accepted(2) == [1])
  }

  @Test("a relay that does not pass rooms on ignores offers")
  func notPassingOn() {
    var r = RelayDriver()
    r.hello(1, "ann", address: "10.0.0.1")
    r.hello(2, "bob", address: "10.0.0.2")
    r.send(.carry(Self.bobOffer), from: 2)
    #expect(Self.successions(r, 1).isEmpty)
    #expect(Self.successions(r, 2).isEmpty)
    #expect(r.errors(2).isEmpty)
  }

  @Test("the successors' copies hold what a store would: state, members, messages, answers")
  func copies() throws {
    var r = Self.room()
    r.send(.command(id: 1, .setAutoAdvance(true)), from: 1)
    r.send(.send(seq: 2, to: .all, kind: .chat, body: "hello"), from: 1)
    r.send(.send(seq: 3, to: .only(["p3"]), kind: .chat, body: "psst"), from: 1)
    r.runtime.feedSuccessors()
    r.collect()
    r.drop(3)
    r.send(.send(seq: 4, to: .all, kind: .chat, body: "carl is away"), from: 1)
    r.runtime.feedSuccessors()
    r.collect()
    for successor: UInt64 in [2] {
      var copy: StoredRoom?
      for change in Self.replicas(r, successor) { copy = StoredRoom.applying(change, to: copy) }
      let stored = try #require(r.runtime.storedRooms().first)
      // The feed leaves the state out after the first line: the successor replays the steps.
      copy?.state = try #require(r.lastState(successor))
      #expect(copy == stored)
      // Each message went over once for each member, however often the member changed.
      let fed = Self.replicas(r, successor).flatMap { change in
        change.members.flatMap { member in
          member.messages.map { "\(member.participant)/\($0.index)" }
        }
      }
      #expect(fed.count == Set(fed).count)
      #expect(fed.count == 5)
    }
    // carl went away: not a successor any more, so not fed.
    let carlFedAfter = Self.replicas(r, 3).count
    r.send(.send(seq: 5, to: .all, kind: .chat, body: "more"), from: 1)
    r.runtime.feedSuccessors()
    r.collect()
    #expect(Self.replicas(r, 3).count == carlFedAfter)
  }

  @Test("handing over: the first successor is told, everyone is sent to it, the room is gone here")
  func handOver() {
    var r = Self.room()
    r.send(.bye, from: 1)
    let moved = r.runtime.handOver()
    r.collect()
    #expect(moved.map(\.room) == ["lobby"])
    #expect(moved.first?.to.name == "bob")
    let bob = r.outbox[ConnectionID(2)] ?? []
    let handover = bob.firstIndex(of: .handover(room: "lobby"))
    let redirect = bob.firstIndex(
      of: .redirect(
        room: "lobby", relay: RelayEndpoint(address: "10.0.0.2:7701", fingerprint: "SHA256:bob")))
    #expect(handover != nil && redirect != nil && handover! < redirect!)
    #expect(
      r.outbox[ConnectionID(3)]?.last
        == .redirect(
          room: "lobby",
          relay: RelayEndpoint(address: "10.0.0.2:7701", fingerprint: "SHA256:bob")))
    #expect(r.closed.isSuperset(of: [ConnectionID(2), ConnectionID(3)]))
    #expect(r.runtime.roomNames.isEmpty)
    #expect(!(r.outbox[ConnectionID(3)] ?? []).contains(.handover(room: "lobby")))
  }

  @Test("a room carried on from a copy passes itself on again")
  func chain() throws {
    var first = Self.room()
    first.send(.bye, from: 1)
    first.runtime.handOver()
    first.collect()
    var copy: StoredRoom?
    for change in Self.replicas(first, 2) { copy = StoredRoom.applying(change, to: copy) }
    // As the successor's relay does: the state is the one bob replayed up to the handover.
    copy?.state = try #require(first.lastState(2))
    let bobToken = try #require(first.welcome(2)?.resume)
    let carlToken = try #require(first.welcome(3)?.resume)

    var second = RelayDriver(restoring: [try #require(copy)], feedsSuccessors: true)
    second.hello(1, "bob", address: "127.0.0.1", resume: bobToken)
    second.hello(2, "carl", address: "10.0.0.3", resume: carlToken)
    #expect(second.welcome(1)?.resumed == true)
    #expect(second.welcome(2)?.resumed == true)
    second.send(.carry(Self.carlOffer), from: 2)
    #expect(Self.successions(second, 1).last == ["carl@10.0.0.3:7702"])
    second.send(.bye, from: 1)
    let moved = second.runtime.handOver()
    second.collect()
    #expect(moved.first?.to.name == "carl")
    #expect(second.outbox[ConnectionID(2)]?.contains(.handover(room: "lobby")) == true)
    #expect(second.closed.contains(ConnectionID(2)))
  }
}
