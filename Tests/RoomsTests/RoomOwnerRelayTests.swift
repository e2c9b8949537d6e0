import PlaybackCoordination
import Testing
import WireProtocol

@testable import Rooms

@Suite("Relay core: the owner's lock and removals")
struct RoomOwnerRelayTests {
  @Test("a locked room refuses newcomers with one clear error; members reconnect to their place")
  func lockedRoom() throws {
    var r = RelayDriver()
    r.hello(1, "ann")
    r.hello(2, "bob")
    let bob = try #require(r.welcome(2))
    r.send(.command(id: 1, .setLocked(true)), from: 1)
    #expect(r.accepted(1) == [1])
    #expect(r.lastState(2)?.control.locked == true)
    r.hello(3, "eve")
    #expect(r.errors(3) == [.roomLocked])
    #expect(r.closed.contains(ConnectionID(3)))
    #expect(r.lastState(1)?.participants.map(\.name) == ["ann", "bob"], "the others heard nothing")
    // bob's connection drops; he comes back to his kept place although the room is locked.
    r.drop(2)
    r.connect(4)
    r.send(
      .hello(version: ProtocolVersion.current, name: "bob", room: "lobby", resume: bob.resume),
      from: 4)
    #expect(r.welcome(4)?.resumed == true)
  }

  @Test("only the owner's lock counts: anyone else's is rejected and changes nothing")
  func lockByOthers() {
    var r = RelayDriver()
    r.hello(1, "ann")
    r.hello(2, "bob")
    r.send(.command(id: 1, .setLocked(true)), from: 2)
    #expect(r.rejections(2).map(\.1) == ["only the room's owner (ann) can do that"])
    r.hello(3, "cat")
    #expect(r.welcome(3) != nil)
  }

  @Test("a removed participant is told who removed it, closed, and cannot resume its place")
  func removal() throws {
    var r = RelayDriver()
    r.hello(1, "ann")
    r.hello(2, "eve")
    let eve = try #require(r.welcome(2))
    r.send(.command(id: 1, .remove(eve.participant)), from: 1)
    #expect(r.accepted(1) == [1])
    #expect(
      r.outbox[ConnectionID(2)]?.last
        == .error(code: .removedFromRoom, message: "ann removed you from room lobby", fatal: true))
    #expect(r.closed.contains(ConnectionID(2)))
    #expect(r.lastState(1)?.participants.map(\.name) == ["ann"])
    // Her resume token is worthless now: she enters as someone new (the room is open).
    r.connect(3)
    r.send(
      .hello(version: ProtocolVersion.current, name: "eve", room: "lobby", resume: eve.resume),
      from: 3)
    let again = try #require(r.welcome(3))
    #expect(!again.resumed)
    #expect(again.participant != eve.participant)
  }

  @Test("when the owner quits, the next longest present owns the room, on every replica")
  func ownershipPasses() throws {
    var r = RelayDriver()
    r.hello(1, "ann")
    r.hello(2, "bob")
    r.hello(3, "cat")
    let bob = try #require(r.welcome(2))
    r.send(.bye, from: 1)
    #expect(r.core.state(ofRoom: "lobby")?.control.owner == bob.participant)
    #expect(r.lastState(2)?.control.owner == bob.participant)
    #expect(r.lastState(3)?.control.owner == bob.participant)
    r.send(.command(id: 1, .setPlaybackControl(.owner)), from: 2)
    #expect(r.lastState(3)?.control.playback == .owner)
  }
}
