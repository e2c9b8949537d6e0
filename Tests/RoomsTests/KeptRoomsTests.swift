import PlaybackCoordination
import Testing
import WireProtocol

@testable import Rooms

/// A room nobody is in stays, paused where its group was, for the group's next night: every
/// room with `cowatch serve --keep-rooms`, or one whose owner asked (`setKept`); at most so
/// many, asked places refused beyond the bound, unasked ones going unused longest first.
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

  /// A relay keeping at most `kept` rooms (0: none; `all`: every empty one, as
  /// `--keep-rooms`), with a short grace.
  func relay(kept: Int, all: Bool = true, perAddress: Int = 8) -> RelayDriver {
    RelayDriver(configuration(kept: kept, all: all, perAddress: perAddress))
  }

  func configuration(kept: Int, all: Bool = true, perAddress: Int = 8) -> RelayConfiguration {
    var c = RelayConfiguration()
    c.reconnectGrace = 2
    c.heartbeatTimeout = 1000
    c.maximumKeptRooms = kept
    c.keepsAllRooms = all && kept > 0
    c.maximumKeptRoomsPerAddress = perAddress
    return c
  }

  /// `name` alone in `room` (connection `id`), watching s/e1 for a while with s/e2 queued,
  /// then gone past the grace.
  func night(
    _ r: inout RelayDriver, _ id: UInt64, room: String, name: String = "ann",
    address: String? = nil, keep: Bool = false
  ) {
    r.hello(id, name, room: room, address: address)
    if keep { r.send(.command(id: 9, .setKept(true)), from: id) }
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
    var again = RelayDriver(configuration(kept: 10), restoring: stored)
    #expect(again.has("club"))
    again.hello(1, "bob", room: "club")
    let welcome = try #require(again.welcome(1))
    #expect(welcome.state.session?.item.id == "s/e1")
    #expect(welcome.state.queue.map(\.item) == ["s/e2"])
    let forgetting = RelayDriver(RelayConfiguration(), restoring: stored)
    #expect(!forgetting.has("club"))
  }

  // MARK: - Kept on request

  @Test(
    "a relay that keeps rooms on request says so in its welcome, keeps the room its owner asked for, and lets the others go"
  )
  func keptOnRequest() throws {
    var r = relay(kept: 10, all: false)
    night(&r, 1, room: "club", keep: true)
    #expect(r.welcome(1)?.keepsRooms == true)
    #expect(r.accepted(1).contains(9), "\(r.rejections(1))")
    night(&r, 2, room: "party")
    #expect(r.has("club"), "asked for")
    #expect(!r.has("party"), "not asked for: it goes with its last member, as before")
    let kept = try #require(r.core.state(ofRoom: "club"))
    #expect(kept.control == RoomControl(kept: true))
    #expect(kept.session?.timeline.rate == 0)
    // The next night: whoever comes first owns it, finds it as left, and may let it go.
    r.advance(6 * 3600)
    r.hello(3, "bob", room: "club")
    #expect(r.welcome(3)?.state.session?.item.id == "s/e1")
    #expect(r.welcome(3)?.state.queue.map(\.item) == ["s/e2"])
    r.send(.command(id: 1, .setKept(false)), from: 3)
    #expect(r.accepted(3).contains(1))
    r.drop(3)
    r.advance(3)
    #expect(!r.has("club"), "let go: it goes with its last member again")
  }

  @Test(
    "a relay that keeps no rooms (a cowatch host's) refuses the request in words before it is sequenced, and its welcome does not offer it"
  )
  func refusedWhereNotKept() throws {
    var r = relay(kept: 0)
    r.hello(1, "ann", room: "club")
    #expect(r.welcome(1)?.keepsRooms == false)
    let before = try #require(r.core.state(ofRoom: "club")).sequence
    r.send(.command(id: 1, .setKept(true)), from: 1)
    let refusal = try #require(r.rejections(1).first)
    #expect(refusal.0 == 1)
    #expect(refusal.1.contains("keeps no rooms"), "\(refusal.1)")
    #expect(r.core.state(ofRoom: "club")?.sequence == before, "nothing sequenced")
    #expect(r.core.state(ofRoom: "club")?.control.kept == false)
  }

  @Test("only the owner asks: another member's request is refused by the rules every replica keeps")
  func ownerOnly() throws {
    var r = relay(kept: 10, all: false)
    r.hello(1, "ann", room: "club")
    r.hello(2, "mallory", room: "club")
    r.send(.command(id: 1, .setKept(true)), from: 2)
    #expect(r.rejections(2).first?.1.contains("ann") == true, "\(r.rejections(2))")
    #expect(r.core.state(ofRoom: "club")?.control.kept == false)
  }

  @Test(
    "attack: one address asking to keep room after room gets its share and no more; the places others asked for stay theirs"
  )
  func oneAddressShare() throws {
    var r = relay(kept: 5, all: false, perAddress: 2)
    for (i, room) in ["m1", "m2", "m3"].enumerated() {
      let id = UInt64(10 + i)
      r.hello(id, "mallory", room: room, address: "203.0.113.9")
      r.send(.command(id: 1, .setKept(true)), from: id)
    }
    #expect(r.accepted(10).contains(1) && r.accepted(11).contains(1))
    let refusal = try #require(r.rejections(12).first?.1)
    #expect(refusal.contains("your address already asked this relay to keep 2 rooms"), "\(refusal)")
    #expect(r.core.state(ofRoom: "m3")?.control.kept == false)
    // Another address still has its places.
    night(&r, 1, room: "club", address: "198.51.100.7", keep: true)
    #expect(r.accepted(1).contains(9), "\(r.rejections(1))")
    #expect(r.has("club"))
    // Letting one go gives the address its share back.
    r.send(.command(id: 2, .setKept(false)), from: 10)
    r.send(.command(id: 2, .setKept(true)), from: 12)
    #expect(r.accepted(12).contains(2), "\(r.rejections(12))")
  }

  @Test(
    "the places are bounded: a request past them is refused; with --keep-rooms, rooms nobody asked for go first and an asked-for one never"
  )
  func placesBounded() throws {
    var r = relay(kept: 2, all: true)
    night(&r, 1, room: "first", address: "198.51.100.1", keep: true)
    night(&r, 2, room: "second", address: "198.51.100.2", keep: true)
    r.hello(3, "carol", room: "third", address: "198.51.100.3")
    r.send(.command(id: 1, .setKept(true)), from: 3)
    let refusal = try #require(r.rejections(3).first?.1)
    #expect(refusal.contains("keeps at most 2 rooms on request"), "\(refusal)")
    // "third" empties: kept for --keep-rooms only while there is a place, and there is none.
    r.drop(3)
    r.advance(3)
    #expect(r.has("first") && r.has("second"), "asked for: never dropped")
    #expect(!r.has("third"))
  }

  @Test(
    "a room kept on request survives a restart of a relay without --keep-rooms; a relay that keeps none lets it go"
  )
  func keptOnRequestRestarted() throws {
    var r = relay(kept: 10, all: false)
    night(&r, 1, room: "club", keep: true)
    night(&r, 2, room: "party")
    let stored = r.core.storedRooms()
    #expect(stored.map(\.name) == ["club"])
    #expect(stored.first?.state.control.kept == true)
    var again = RelayDriver(configuration(kept: 10, all: false), restoring: stored)
    #expect(again.has("club"))
    again.hello(1, "bob", room: "club")
    #expect(again.welcome(1)?.state.session?.item.id == "s/e1")
    #expect(!RelayDriver(configuration(kept: 0), restoring: stored).has("club"))
  }
}
