import PlaybackCoordination
import Testing
import WireProtocol

@testable import Rooms

/// `cowatch serve --keep-rooms`: a room nobody is in stays, paused where its group was, for
/// the group's next night; at most so many, the one unused longest going first.
extension RelayDriver {
  /// Whether the relay holds `room`.
  func has(_ room: String) -> Bool { core.state(ofRoom: room) != nil }
}

@Suite("A relay keeps rooms nobody is in")
struct KeptRoomsTests {
  let series = SeriesInfo(
    id: "s", title: "S",
    items: [
      ItemInfo(id: "s/e1", title: "E1", duration: 3000),
      ItemInfo(id: "s/e2", title: "E2", duration: 3000),
    ])

  /// A relay keeping `kept` rooms (0: none), with a short grace.
  func relay(kept: Int) -> RelayDriver {
    var c = RelayConfiguration()
    c.reconnectGrace = 2
    c.heartbeatTimeout = 1000
    c.keptRooms = kept
    return RelayDriver(c)
  }

  /// `name` alone in `room` (connection `id`), watching s/e1 for a while with s/e2 queued,
  /// then gone past the grace.
  func night(_ r: inout RelayDriver, _ id: UInt64, room: String, name: String = "ann") {
    r.hello(id, name, room: room)
    r.send(.command(id: 1, .start(series: series, item: "s/e1")), from: id)
    r.send(.command(id: 2, .setReadiness(.ready)), from: id)
    r.send(.command(id: 3, .queueAdd(series: series, item: "s/e2")), from: id)
    r.advance(12)
    r.drop(id)
    r.advance(3)
  }

  @Test(
    "the last member gone, the room stays, paused where the group was, with its queue; hours later the next night finds it so"
  )
  func keptAndBack() throws {
    var r = relay(kept: 10)
    night(&r, 1, room: "club")
    #expect(r.has("club"))
    let kept = try #require(r.core.state(ofRoom: "club"))
    #expect(kept.participants.isEmpty)
    let session = try #require(kept.session)
    #expect(session.item.id == "s/e1")
    #expect(session.timeline.rate == 0 && session.intendedRate == 0)
    #expect(session.timeline.itemTime > 5 && session.timeline.itemTime < 15, "\(session.timeline)")
    #expect(session.waits.isEmpty)
    #expect(kept.queue.map(\.item) == ["s/e2"])
    // The next night, hours later.
    r.advance(6 * 3600)
    r.hello(2, "bob", room: "club")
    let welcome = try #require(r.welcome(2))
    #expect(welcome.state.session?.item.id == "s/e1")
    #expect(welcome.state.session?.timeline.itemTime == session.timeline.itemTime)
    #expect(welcome.state.session?.timeline.rate == 0)
    #expect(welcome.state.queue.map(\.item) == ["s/e2"])
    #expect(welcome.state.owner?.name == "bob", "the first back owns it")
    // bob joins and plays on from there.
    r.send(.command(id: 1, .join), from: 2)
    r.send(.command(id: 2, .play(item: "s/e1", rate: nil)), from: 2)
    #expect(r.rejections(2).isEmpty, "\(r.rejections(2))")
  }

  @Test("without --keep-rooms a room goes with its last member, as before")
  func notKept() {
    var r = relay(kept: 0)
    night(&r, 1, room: "club")
    #expect(!r.has("club"))
  }

  @Test("past the bound, the kept room unused longest goes; a room in use is never dropped")
  func bounded() {
    var r = relay(kept: 2)
    r.hello(9, "dan", room: "busy")
    night(&r, 1, room: "first")
    night(&r, 2, room: "second")
    night(&r, 3, room: "third")
    #expect(!r.has("first"), "unused longest")
    #expect(r.has("second") && r.has("third") && r.has("busy"))
    // Used again, "second" is no longer the oldest.
    r.hello(4, "ann", room: "second")
    r.drop(4)
    r.advance(3)
    night(&r, 5, room: "fourth")
    #expect(!r.has("third"))
    #expect(r.has("second") && r.has("fourth"))
  }

  @Test(
    "a kept room goes into the store and a restarted relay keeps it again; one started without --keep-rooms lets it go"
  )
  func restarted() throws {
    var r = relay(kept: 10)
    night(&r, 1, room: "club")
    let stored = r.core.storedRooms()
    #expect(stored.map(\.name) == ["club"])
    #expect(stored.first?.members.isEmpty == true)
    var c = RelayConfiguration()
    c.keptRooms = 10
    var again = RelayDriver(c, restoring: stored)
    #expect(again.has("club"))
    again.hello(1, "bob", room: "club")
    let welcome = try #require(again.welcome(1))
    #expect(welcome.state.session?.item.id == "s/e1")
    #expect(welcome.state.queue.map(\.item) == ["s/e2"])
    let forgetting = RelayDriver(RelayConfiguration(), restoring: stored)
    #expect(!forgetting.has("club"))
  }
}
