import Foundation
import Logging
import PlaybackCoordination
import PostgresNIO
import Rooms
import Synchronization
import WireProtocol

/// A ``RoomStore`` in a PostgreSQL database, through postgres-nio: for relays that share
/// their rooms' truth with a database rather than keep it in a file of their own.
///
/// The same shape as the SQLite store: one row per room (its state as JSON, the password
/// verifier if any), one per member (as JSON), the clocks of the last write; each batch is
/// one transaction. Tables are created if missing.
public final class PostgresRoomStore: RoomStore {
  /// The database as people may see it (`postgres://user@host:port/db`, no password).
  public let location: String
  private let client: PostgresClient
  private let runTask: Task<Void, Never>
  private let logger: Logger
  /// Longest a read or a write may take, seconds.
  public static let timeout = 10.0

  private init(location: String, client: PostgresClient, runTask: Task<Void, Never>, logger: Logger)
  {
    self.location = location
    self.client = client
    self.runTask = runTask
    self.logger = logger
  }

  deinit { runTask.cancel() }

  /// Connects to `url` (`postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE`, with
  /// `?sslmode=require` for TLS to the database) and makes the tables if they are missing.
  public static func connect(
    url: String, logger: Logger = Logger(label: "cowatch.store.postgres")
  ) async throws(RoomStoreError) -> PostgresRoomStore {
    let settings = try PostgresURL(url)
    var configuration = PostgresClient.Configuration(
      host: settings.host, port: settings.port, username: settings.user,
      password: settings.password, database: settings.database,
      tls: settings.requireTLS ? .require(.makeClientConfiguration()) : .disable)
    configuration.options.connectTimeout = .seconds(Int64(timeout))
    configuration.options.maximumConnections = 4
    let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
    let runTask = Task { await client.run() }
    let store = PostgresRoomStore(
      location: settings.displayed, client: client, runTask: runTask, logger: logger)
    do {
      try await store.bounded("creating the tables") { client in
        for statement in Self.schema {
          try await client.query(PostgresQuery(unsafeSQL: statement), logger: logger)
        }
      }
    } catch {
      runTask.cancel()
      throw error
    }
    return store
  }

  static let schema = [
    """
    CREATE TABLE IF NOT EXISTS cowatch_room (
      name TEXT PRIMARY KEY,
      state TEXT NOT NULL,
      next_number BIGINT NOT NULL,
      written_wall_ns BIGINT NOT NULL,
      protection TEXT
    )
    """,
    """
    CREATE TABLE IF NOT EXISTS cowatch_member (
      room TEXT NOT NULL REFERENCES cowatch_room(name) ON DELETE CASCADE,
      participant TEXT NOT NULL,
      data TEXT NOT NULL,
      PRIMARY KEY (room, participant)
    )
    """,
    """
    CREATE TABLE IF NOT EXISTS cowatch_clock (
      id INTEGER PRIMARY KEY CHECK (id = 1),
      group_ns BIGINT NOT NULL,
      wall_ns BIGINT NOT NULL
    )
    """,
  ]

  /// Stops the connections.
  public func close() { runTask.cancel() }

  public func load() async throws(RoomStoreError) -> (rooms: [StoredRoom], clock: ClockReading?) {
    let logger = self.logger
    return try await bounded("reading") { client in
      let decoder = JSONDecoder()
      var members: [String: [StoredMember]] = [:]
      let memberRows = try await client.query(
        "SELECT room, data FROM cowatch_member ORDER BY room, participant", logger: logger)
      for try await (room, data) in memberRows.decode((String, String).self) {
        members[room, default: []].append(
          try decoder.decode(StoredMember.self, from: Data(data.utf8)))
      }
      var rooms: [StoredRoom] = []
      let roomRows = try await client.query(
        "SELECT name, state, next_number, protection FROM cowatch_room ORDER BY name",
        logger: logger)
      for try await (name, state, next, protection) in roomRows.decode(
        (String, String, Int64, String?).self)
      {
        rooms.append(
          StoredRoom(
            name: name, state: try decoder.decode(GroupState.self, from: Data(state.utf8)),
            nextNumber: UInt64(max(0, next)), members: members[name] ?? [],
            protection: try protection.map {
              try decoder.decode(RoomProtection.self, from: Data($0.utf8))
            }))
      }
      var clock: ClockReading?
      let clockRows = try await client.query(
        "SELECT group_ns, wall_ns FROM cowatch_clock WHERE id = 1", logger: logger)
      for try await (group, wall) in clockRows.decode((Int64, Int64).self) {
        clock = ClockReading(group: GroupInstant(nanoseconds: group), wallNanoseconds: wall)
      }
      return (rooms, clock)
    }
  }

  public func write(_ batch: RoomStoreBatch) async throws(RoomStoreError) {
    let encoder = JSONEncoder()
    let rooms: [(RoomStoreBatch.RoomChange, String, String?, [(String, String)])]
    do {
      rooms = try batch.changed.map { change in
        (
          change, String(decoding: try encoder.encode(change.state), as: UTF8.self),
          try change.protection.map { String(decoding: try encoder.encode($0), as: UTF8.self) },
          try change.members.map {
            ($0.participant.rawValue, String(decoding: try encoder.encode($0), as: UTF8.self))
          }
        )
      }
    } catch {
      throw RoomStoreError("cannot encode a room for \(location): \(error)")
    }
    let logger = self.logger
    try await bounded("writing") { client in
      try await client.withTransaction(logger: logger) { connection in
        for name in batch.removed {
          try await connection.query(
            "DELETE FROM cowatch_room WHERE name = \(name)", logger: logger)
        }
        for (change, state, protection, members) in rooms {
          let next = Int64(clamping: change.nextNumber)
          let wall = batch.clock.wallNanoseconds
          try await connection.query(
            """
            INSERT INTO cowatch_room (name, state, next_number, written_wall_ns, protection)
            VALUES (\(change.name), \(state), \(next), \(wall), \(protection))
            ON CONFLICT (name) DO UPDATE SET state = EXCLUDED.state,
              next_number = EXCLUDED.next_number, written_wall_ns = EXCLUDED.written_wall_ns,
              protection = EXCLUDED.protection
            """, logger: logger)
          for (participant, data) in members {
            try await connection.query(
              """
              INSERT INTO cowatch_member (room, participant, data)
              VALUES (\(change.name), \(participant), \(data))
              ON CONFLICT (room, participant) DO UPDATE SET data = EXCLUDED.data
              """, logger: logger)
          }
          for gone in change.departed {
            try await connection.query(
              "DELETE FROM cowatch_member WHERE room = \(change.name) AND participant = \(gone.rawValue)",
              logger: logger)
          }
        }
        let group = batch.clock.group.nanoseconds
        let wall = batch.clock.wallNanoseconds
        try await connection.query(
          """
          INSERT INTO cowatch_clock (id, group_ns, wall_ns) VALUES (1, \(group), \(wall))
          ON CONFLICT (id) DO UPDATE SET group_ns = EXCLUDED.group_ns, wall_ns = EXCLUDED.wall_ns
          """, logger: logger)
      }
    }
  }

  public func removeRooms(writtenBefore wallNanoseconds: Int64) async throws(RoomStoreError)
    -> Int
  {
    let logger = self.logger
    return try await bounded("removing idle rooms") { client in
      let rows = try await client.query(
        "DELETE FROM cowatch_room WHERE written_wall_ns < \(wallNanoseconds) RETURNING name",
        logger: logger)
      var count = 0
      for try await _ in rows.decode(String.self) { count += 1 }
      return count
    }
  }

  /// Runs `body` against the database, at most ``timeout`` seconds; any failure becomes a
  /// ``RoomStoreError`` saying what was being done and where.
  private func bounded<Result: Sendable>(
    _ what: String, _ body: @escaping @Sendable (PostgresClient) async throws -> Result
  ) async throws(RoomStoreError) -> Result {
    let client = self.client
    let location = self.location
    do {
      // Raced against a timer without waiting for the loser: a query stuck on a database
      // that does not answer need not end for the relay to go on.
      return try await withCheckedThrowingContinuation { continuation in
        let settled = Mutex(false)
        let settle: @Sendable (Swift.Result<Result, any Error>) -> Bool = { result in
          guard
            settled.withLock({ done in
              defer { done = true }
              return !done
            })
          else {
            return false
          }
          continuation.resume(with: result)
          return true
        }
        let work = Task {
          do {
            _ = settle(.success(try await body(client)))
          } catch {
            _ = settle(.failure(error))
          }
        }
        Task {
          try? await Task.sleep(nanoseconds: UInt64(Self.timeout * 1e9))
          if settle(
            .failure(
              RoomStoreError("\(what) \(location) took more than \(Int(Self.timeout)) s")))
          {
            work.cancel()
          }
        }
      }
    } catch let error as RoomStoreError {
      throw error
    } catch let error as PSQLError {
      throw RoomStoreError(
        "\(what) \(location) failed: \(error.serverInfo?[.message] ?? "\(error.code)")")
    } catch {
      throw RoomStoreError("\(what) \(location) failed: \(error)")
    }
  }
}
