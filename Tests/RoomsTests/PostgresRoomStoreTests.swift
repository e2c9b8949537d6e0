import Foundation
import Glibc
import PlaybackCoordination
import PostgresRoomStore
import RelayRuntime
import Synchronization
import Testing
import ThrowawayPostgres
import WireProtocol

@testable import Rooms

@Suite(
  "Room store in PostgreSQL (a throwaway server)", .serialized,
  .enabled(if: ThrowawayPostgres.available, "PostgreSQL is not installed (.ci/run installs it)"),
  .timeLimit(.minutes(2)))
struct PostgresRoomStoreTests {
  /// The store's bound on a read or a write: not what these tests are about, and the
  /// throwaway server, beside the whole suite and busy loops, once took more than the
  /// relay's 10 s to make its tables.
  static let storeTimeout = 30.0

  @Test("rooms written to the database come back from it for a new relay, and members resume")
  func restartFromDatabase() async throws {
    let cluster = try await ThrowawayPostgres.start()
    defer { cluster.stop() }
    // Each relay process connects on its own; the database is what outlives them.
    let first = try await PostgresRoomStore.connect(url: cluster.url, timeout: Self.storeTimeout)
    let second = try await PostgresRoomStore.connect(url: cluster.url, timeout: Self.storeTimeout)
    let stores = Mutex([first, second] as [any RoomStore])
    try await resumeAfterRestart { stores.withLock { $0.removeFirst() } }
    first.close()
    second.close()
  }

  @Test(
    "departures and emptied rooms are deleted; the password verifier is kept; idle rooms expire, kept ones stay"
  )
  func departuresAndRetention() async throws {
    let cluster = try await ThrowawayPostgres.start()
    defer { cluster.stop() }
    let store = try await PostgresRoomStore.connect(url: cluster.url, timeout: Self.storeTimeout)
    defer { store.close() }
    var c = RelayConfiguration()
    c.maximumKeptRooms = 10
    var r = RelayDriver(c, store: store)
    r.hello(1, "ann")
    r.hello(2, "bob")
    r.hello(3, "carol", room: "other")
    // Kept on request: it outlasts the retention below.
    r.hello(5, "erin", room: "club")
    r.send(.command(id: 1, .setKept(true)), from: 5)
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
    #expect(rooms.map(\.name) == ["club", "lobby", "movie-night"])
    #expect(rooms[1].members.map(\.name) == ["ann"])
    #expect(rooms.last?.protection == keys.protection)
    #expect(rooms == r.runtime.storedRooms())
    #expect(clock?.group == r.now)
    let written = r.clock.nanoseconds() + 1_700_000_000_000_000_000
    #expect(try await store.removeRooms(writtenBefore: written) == 0)
    #expect(try await store.removeRooms(writtenBefore: written + 1) == 2)
    #expect(try await store.load().rooms.map(\.name) == ["club"])
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

  @Test(
    "something else at the address — hanging up at once, or answering what is not PostgreSQL — is said in words"
  )
  func notPostgres() async throws {
    for (answer, words) in [
      (nil, "closed the connection before PostgreSQL answered"),
      (
        Array("HTTP/1.1 400 Bad Request\r\n\r\n".utf8), "PostgreSQL server at this address and port"
      ),
    ] {
      let listener = try FakeServer(answer: answer)
      defer { listener.stop() }
      let url = "postgres://cowatch@127.0.0.1:\(listener.port)/postgres"
      do {
        _ = try await PostgresRoomStore.connect(url: url, timeout: Self.storeTimeout)
        Issue.record("connected to something that is not PostgreSQL")
      } catch {
        #expect(error.description.hasPrefix("cannot reach the database \(url): "))
        #expect(error.description.contains(words), "\(error.description)")
        #expect(!error.description.contains("serverClosedConnection"), "\(error.description)")
      }
    }
  }
}

/// A TCP listener on loopback that reads what each connection sends first, answers with
/// `answer` (or nothing) and hangs up: what a wrong port can hold instead of a database.
final class FakeServer: Sendable {
  let port: Int
  private let socket: Int32

  init(answer: [UInt8]?) throws {
    let fd = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
    }
    guard bound == 0, listen(fd, 8) == 0 else { throw POSIXError(.EADDRINUSE) }
    _ = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    port = Int(UInt16(bigEndian: address.sin_port))
    socket = fd
    Thread.detachNewThread {
      while true {
        let client = accept(fd, nil, nil)
        guard client >= 0 else { return }
        // Read what the client says first, as a server would, then answer.
        var buffer = [UInt8](repeating: 0, count: 512)
        _ = read(client, &buffer, buffer.count)
        if let answer { _ = answer.withUnsafeBytes { write(client, $0.baseAddress, $0.count) } }
        close(client)
      }
    }
  }

  func stop() {
    shutdown(socket, Int32(SHUT_RDWR))
    close(socket)
  }
}
