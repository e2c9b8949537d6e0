import Foundation
import GRDB
import PlaybackCoordination
import Rooms
import WireProtocol

/// A ``RoomStore`` in one SQLite file, through GRDB: the relay's default, so that rooms
/// outlive a restart of `cowatch serve` with nothing else to run.
///
/// One row per room (its state as JSON, with the sequence inside), one per member (its
/// name, the SHA-256 of its resume secret, pending messages and recent answers, as JSON),
/// and the clocks of the last write. Each batch is one transaction. One relay at a time
/// uses a file: it holds an exclusive lock from its first write until it ends. The file is in WAL mode
/// with `synchronous = NORMAL`: a committed batch survives the relay being killed (the
/// operating system has it); only a power cut can lose the last ones, which is the price of
/// not waiting for the disk on every write.
public final class SQLiteRoomStore: RoomStore {
  public let path: String
  private let queue: DatabaseQueue
  /// Where reads, encoding and writes run (see ``StoreThread``).
  private let thread = StoreThread(name: "cowatch.store")

  deinit { thread.stop() }

  /// Opens (or creates, with its directory) the file at `path`.
  public init(path: String) throws(RoomStoreError) {
    self.path = path
    // Where it goes: everything before the last "/" (Foundation's own way of saying so
    // traps on a one-character path).
    let directory = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? ""
    do {
      var isDirectory: ObjCBool = false
      if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory),
        isDirectory.boolValue
      {
        throw RoomStoreError("cannot open the room store \(path): it is a directory")
      }
      if !directory.isEmpty {
        try Self.makeDirectory(directory, for: path)
      }
      // It holds pending messages: readable by this user only (SQLite gives its journal
      // files the same permissions).
      if !FileManager.default.fileExists(atPath: path) {
        _ = FileManager.default.createFile(
          atPath: path, contents: nil, attributes: [.posixPermissions: 0o600])
      }
      var configuration = Configuration()
      configuration.busyMode = .timeout(1)
      configuration.prepareDatabase { db in
        // One relay per file: the first write takes a lock it keeps until its process ends
        // (the system releases it even after SIGKILL), so a second relay on the same file
        // cannot open it, and two relays never own the same rooms.
        try db.execute(sql: "PRAGMA locking_mode = EXCLUSIVE")
        try db.execute(sql: "PRAGMA journal_mode = WAL")
        try db.execute(sql: "PRAGMA synchronous = NORMAL")
      }
      queue = try DatabaseQueue(path: path, configuration: configuration)
      try Self.migrator.migrate(queue)
    } catch let error as RoomStoreError {
      throw error
    } catch {
      throw RoomStoreError("cannot open the room store \(path): \(Self.describe(error))")
    }
  }

  /// Makes the store's directory (and those above it) readable by this user only; a file
  /// in the way is said in words.
  private static func makeDirectory(_ directory: String, for path: String) throws(RoomStoreError) {
    var prefix = directory.hasPrefix("/") ? "/" : ""
    for part in directory.split(separator: "/") {
      prefix += (prefix.isEmpty || prefix.hasSuffix("/") ? "" : "/") + part
      var isDirectory: ObjCBool = false
      if FileManager.default.fileExists(atPath: prefix, isDirectory: &isDirectory),
        !isDirectory.boolValue
      {
        throw RoomStoreError(
          "cannot open the room store \(path): cannot make the directory \(prefix): a file has that name"
        )
      }
    }
    do {
      try FileManager.default.createDirectory(
        atPath: directory, withIntermediateDirectories: true,
        attributes: [.posixPermissions: 0o700])
    } catch {
      throw RoomStoreError(
        "cannot open the room store \(path): cannot make the directory \(directory): \(error.localizedDescription)"
      )
    }
  }

  private static var migrator: DatabaseMigrator {
    var migrator = DatabaseMigrator()
    migrator.registerMigration("rooms-1") { db in
      try db.execute(
        sql: """
          CREATE TABLE room (
            name TEXT PRIMARY KEY NOT NULL,
            state BLOB NOT NULL,
            next_number INTEGER NOT NULL,
            written_wall_ns INTEGER NOT NULL
          );
          CREATE TABLE member (
            room TEXT NOT NULL REFERENCES room(name) ON DELETE CASCADE,
            participant TEXT NOT NULL,
            data BLOB NOT NULL,
            PRIMARY KEY (room, participant)
          );
          CREATE TABLE clock (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            group_ns INTEGER NOT NULL,
            wall_ns INTEGER NOT NULL
          );
          """)
    }
    // Rooms protected by a password keep its verifier (public key and derivation, JSON).
    migrator.registerMigration("rooms-2-protection") { db in
      try db.execute(sql: "ALTER TABLE room ADD COLUMN protection BLOB")
    }
    // The room's recent conversation for newcomers (JSON, bounded by the relay); NULL: none.
    migrator.registerMigration("rooms-3-backlog") { db in
      try db.execute(sql: "ALTER TABLE room ADD COLUMN backlog BLOB")
    }
    // Whether its owner asked for it to be kept (the state's control.kept), so that cleaning
    // idle rooms spares it without reading every state.
    migrator.registerMigration("rooms-4-kept") { db in
      try db.execute(sql: "ALTER TABLE room ADD COLUMN kept INTEGER NOT NULL DEFAULT 0")
    }
    return migrator
  }

  public func load() async throws(RoomStoreError) -> (rooms: [StoredRoom], clock: ClockReading?) {
    do {
      return try await thread.run { [queue] in
        try queue.read { db in
          let decoder = JSONDecoder()
          var members: [String: [StoredMember]] = [:]
          for row in try Row.fetchAll(
            db, sql: "SELECT room, data FROM member ORDER BY room, participant")
          {
            let room: String = row["room"]
            let data: Data = row["data"]
            members[room, default: []].append(try decoder.decode(StoredMember.self, from: data))
          }
          var rooms: [StoredRoom] = []
          for row in try Row.fetchAll(
            db,
            sql: "SELECT name, state, next_number, protection, backlog FROM room ORDER BY name")
          {
            let name: String = row["name"]
            let state: Data = row["state"]
            let next: Int64 = row["next_number"]
            let protection: Data? = row["protection"]
            let backlog: Data? = row["backlog"]
            rooms.append(
              StoredRoom(
                name: name, state: try decoder.decode(GroupState.self, from: state),
                nextNumber: UInt64(max(0, next)), members: members[name] ?? [],
                protection: try protection.map {
                  try decoder.decode(RoomProtection.self, from: $0)
                },
                backlog: try backlog.map { try decoder.decode([StoredMessage].self, from: $0) }
                  ?? []))
          }
          let clock = try Row.fetchOne(db, sql: "SELECT group_ns, wall_ns FROM clock WHERE id = 1")
            .map { row in
              ClockReading(
                group: GroupInstant(nanoseconds: row["group_ns"]), wallNanoseconds: row["wall_ns"])
            }
          return (rooms, clock)
        }
      }
    } catch {
      throw RoomStoreError("cannot read the room store \(path): \(Self.describe(error))")
    }
  }

  public func write(_ batch: RoomStoreBatch) async throws(RoomStoreError) {
    do {
      // Encoded on the store's own thread, not on the caller's: the relay's tasks share a
      // pool of as many threads as cores, and encoding a large batch would hold one.
      try await thread.run { [queue] in
        try queue.write { db in
          let encoder = JSONEncoder()
          let rooms = try batch.changed.map { change in
            (
              change,
              try change.storedState(),
              try change.protection.map { try encoder.encode($0) },
              try change.backlog.map { try encoder.encode($0) },
              try change.members.map { ($0.participant.rawValue, try encoder.encode($0)) }
            )
          }
          for name in batch.removed {
            try db.execute(sql: "DELETE FROM member WHERE room = ?", arguments: [name])
            try db.execute(sql: "DELETE FROM room WHERE name = ?", arguments: [name])
          }
          for (change, state, protection, backlog, members) in rooms {
            // A change without a backlog leaves the one written before.
            try db.execute(
              sql: """
                INSERT INTO room (name, state, next_number, written_wall_ns, protection, backlog, kept)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT(name) DO UPDATE SET state = excluded.state,
                  next_number = excluded.next_number, written_wall_ns = excluded.written_wall_ns,
                  protection = excluded.protection,
                  backlog = COALESCE(excluded.backlog, room.backlog), kept = excluded.kept
                """,
              arguments: [
                change.name, try encoder.encode(state), Int64(clamping: change.nextNumber),
                batch.clock.wallNanoseconds, protection, backlog, state.control.kept,
              ])
            for (participant, data) in members {
              try db.execute(
                sql: """
                  INSERT INTO member (room, participant, data) VALUES (?, ?, ?)
                  ON CONFLICT(room, participant) DO UPDATE SET data = excluded.data
                  """,
                arguments: [change.name, participant, data])
            }
            for gone in change.departed {
              try db.execute(
                sql: "DELETE FROM member WHERE room = ? AND participant = ?",
                arguments: [change.name, gone.rawValue])
            }
          }
          try db.execute(
            sql: """
              INSERT INTO clock (id, group_ns, wall_ns) VALUES (1, ?, ?)
              ON CONFLICT(id) DO UPDATE SET group_ns = excluded.group_ns, wall_ns = excluded.wall_ns
              """,
            arguments: [batch.clock.group.nanoseconds, batch.clock.wallNanoseconds])
        }
      }
    } catch {
      throw RoomStoreError("cannot write to the room store \(path): \(Self.describe(error))")
    }
  }

  public func removeRooms(writtenBefore wallNanoseconds: Int64) async throws(RoomStoreError)
    -> Int
  {
    do {
      return try await thread.run { [queue] in
        try queue.write { db in
          try db.execute(
            sql: """
              DELETE FROM member WHERE room IN
                (SELECT name FROM room WHERE written_wall_ns < ? AND kept = 0)
              """,
            arguments: [wallNanoseconds])
          try db.execute(
            sql: "DELETE FROM room WHERE written_wall_ns < ? AND kept = 0",
            arguments: [wallNanoseconds])
          return db.changesCount
        }
      }
    } catch {
      throw RoomStoreError("cannot clean the room store \(path): \(Self.describe(error))")
    }
  }

  /// GRDB's errors say which statement failed; the message alone is what a person needs.
  private static func describe(_ error: any Error) -> String {
    if let error = error as? DatabaseError {
      if error.resultCode == .SQLITE_BUSY || error.resultCode == .SQLITE_LOCKED {
        return "another relay is using it (one relay per store file)"
      }
      return error.message ?? "\(error.resultCode)"
    }
    return "\(error)"
  }
}
