import Foundation
import PlaybackCoordination
import PostgresRoomStore
import RelayRuntime
import Synchronization
import Testing
import ThrowawayPostgres
import Transports
import WireProtocol

@testable import Rooms

@Suite(
  "Room store in PostgreSQL (a throwaway server)", .serialized,
  .enabled(if: ThrowawayPostgres.available, "PostgreSQL is not installed (.ci/run installs it)"),
  .timeLimit(.minutes(2)))
struct PostgresRoomStoreTests {
  @Test("rooms written to the database come back from it for a new relay, and members resume")
  func restartFromDatabase() async throws {
    let cluster = try await ThrowawayPostgres.start()
    defer { cluster.stop() }
    // Each relay process connects on its own; the database is what outlives them.
    let first = try await PostgresRoomStore.connect(url: cluster.url)
    let second = try await PostgresRoomStore.connect(url: cluster.url)
    let stores = Mutex([first, second] as [any RoomStore])
    try await resumeAfterRestart { stores.withLock { $0.removeFirst() } }
    first.close()
    second.close()
  }

  @Test(
    "departures and emptied rooms are deleted; the password verifier is kept; idle rooms expire")
  func departuresAndRetention() async throws {
    let cluster = try await ThrowawayPostgres.start()
    defer { cluster.stop() }
    let store = try await PostgresRoomStore.connect(url: cluster.url)
    defer { store.close() }
    var r = RelayDriver(store: store)
    r.hello(1, "ann")
    r.hello(2, "bob")
    r.hello(3, "carol", room: "other")
    let keys = RoomPasswordRelayTests.keys
    r.connect(4, address: "10.0.0.4")
    r.send(
      .hello(
        version: ProtocolVersion.current, name: "dan", room: "movie-night", resume: nil,
        protect: keys.protection), from: 4)
    #expect(await r.runtime.flushStore())
    r.send(.bye, from: 2)
    r.send(.bye, from: 3)
    #expect(await r.runtime.flushStore())
    let (rooms, clock) = try await store.load()
    #expect(rooms.map(\.name) == ["lobby", "movie-night"])
    #expect(rooms.first?.members.map(\.name) == ["ann"])
    #expect(rooms.last?.protection == keys.protection)
    #expect(rooms == r.runtime.storedRooms())
    #expect(clock?.group == r.now)
    let written = r.clock.nanoseconds() + 1_700_000_000_000_000_000
    #expect(try await store.removeRooms(writtenBefore: written) == 0)
    #expect(try await store.removeRooms(writtenBefore: written + 1) == 2)
    #expect(try await store.load().rooms.isEmpty)
  }

  @Test("a bad URL, or a database that is not there, is one clear error")
  func unreachable() async throws {
    await #expect(throws: RoomStoreError.self) {
      _ = try await PostgresRoomStore.connect(url: "postgres://nobody@/nodb")
    }
    // A closed port is said at once, in words, not as a query that took too long.
    let asked = ContinuousClock.now
    do {
      _ = try await PostgresRoomStore.connect(url: "postgres://cowatch@127.0.0.1:1/postgres")
      Issue.record("connected to a closed port")
    } catch {
      #expect(
        error.description.hasPrefix(
          "cannot reach the database postgres://cowatch@127.0.0.1:1/postgres: "),
        "\(error.description)")
      #expect(error.description.lowercased().contains("refused"), "\(error.description)")
    }
    #expect(ContinuousClock.now - asked < .seconds(8), "the query timeout is 10 s")
  }
}
