import Foundation
import PlaybackCoordination
import RelayRuntime
import SQLiteRoomStore
import Testing
import WireProtocol

@testable import Rooms

/// A folder of its own under the system's temporary directory, removed afterwards: tests
/// never write into the user's state directory.
final class TemporaryFolder: Sendable {
  let path: String
  init() throws {
    path = NSTemporaryDirectory() + "cowatch-store-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
  }
  deinit { try? FileManager.default.removeItem(atPath: path) }
}

@Suite("Room store in SQLite")
struct SQLiteRoomStoreTests {
  @Test("rooms written to the file come back from it when opened again, and members resume")
  func restartFromFile() async throws {
    let folder = try TemporaryFolder()
    let file = folder.path + "/state/relay.sqlite"
    try await resumeAfterRestart { try SQLiteRoomStore(path: file) }
  }

  @Test("members who leave and rooms that empty are deleted from the file")
  func departuresDeleted() async throws {
    let folder = try TemporaryFolder()
    let file = folder.path + "/relay.sqlite"
    let (held, now) = try await {
      var r = RelayDriver(store: try SQLiteRoomStore(path: file))
      r.hello(1, "ann")
      r.hello(2, "bob")
      r.hello(3, "carol", room: "other")
      #expect(await r.runtime.flushStore())
      r.send(.bye, from: 2)
      r.send(.bye, from: 3)
      #expect(await r.runtime.flushStore())
      return (r.runtime.storedRooms(), r.now)
    }()
    let (rooms, clock) = try await SQLiteRoomStore(path: file).load()
    #expect(rooms.map(\.name) == ["lobby"])
    #expect(rooms.first?.members.map(\.name) == ["ann"])
    #expect(rooms == held)
    #expect(clock?.group == now)
  }

  @Test("rooms written before the retention are removed; others stay")
  func retention() async throws {
    let folder = try TemporaryFolder()
    let store = try SQLiteRoomStore(path: folder.path + "/relay.sqlite")
    var r = RelayDriver(store: store)
    r.hello(1, "ann")
    #expect(await r.runtime.flushStore())
    let written = r.clock.nanoseconds() + 1_700_000_000_000_000_000
    #expect(try await store.removeRooms(writtenBefore: written) == 0)
    #expect(try await store.load().rooms.count == 1)
    #expect(try await store.removeRooms(writtenBefore: written + 1) == 1)
    #expect(try await store.load().rooms.isEmpty)
  }

  @Test(
    "a room its owner asked to keep outlasts the retention; let go, it is idle like any other"
  )
  func retentionSparesKept() async throws {
    let folder = try TemporaryFolder()
    let store = try SQLiteRoomStore(path: folder.path + "/relay.sqlite")
    var c = RelayConfiguration()
    c.maximumKeptRooms = 10
    var r = RelayDriver(c, store: store)
    r.hello(1, "ann", room: "club")
    r.send(.command(id: 1, .setKept(true)), from: 1)
    r.hello(2, "bob")
    #expect(await r.runtime.flushStore())
    let later = r.clock.nanoseconds() + 1_700_000_000_000_000_001
    #expect(try await store.removeRooms(writtenBefore: later) == 1)
    #expect(try await store.load().rooms.map(\.name) == ["club"])
    #expect(try await store.load().rooms.first?.state.control.kept == true)
    r.send(.command(id: 2, .setKept(false)), from: 1)
    #expect(await r.runtime.flushStore())
    #expect(try await store.removeRooms(writtenBefore: later + 10_000_000_000) == 1)
    #expect(try await store.load().rooms.isEmpty)
  }

  @Test("a one-letter file name is a store like any other, relative to the working directory")
  func oneLetterName() throws {
    let folder = try TemporaryFolder()
    let saved = FileManager.default.currentDirectoryPath
    #expect(FileManager.default.changeCurrentDirectoryPath(folder.path))
    defer { _ = FileManager.default.changeCurrentDirectoryPath(saved) }
    _ = try SQLiteRoomStore(path: "x")
    #expect(FileManager.default.fileExists(atPath: folder.path + "/x"))
  }

  @Test("a directory, or a path through a file, is refused in one line that says so")
  func notAFile() throws {
    let folder = try TemporaryFolder()
    #expect {
      _ = try SQLiteRoomStore(path: folder.path)
    } throws: { error in
      "\(error)" == "cannot open the room store \(folder.path): it is a directory"
    }
    let file = folder.path + "/plain"
    try Data("x".utf8).write(to: URL(fileURLWithPath: file))
    #expect {
      _ = try SQLiteRoomStore(path: file + "/rooms.sqlite")
    } throws: { error in
      "\(error)"
        == "cannot open the room store \(file)/rooms.sqlite: cannot make the directory \(file): a file has that name"
    }
  }

  @Test("a file that is not a room store is refused with a clear error")
  func notAStore() throws {
    let folder = try TemporaryFolder()
    let file = folder.path + "/relay.sqlite"
    try Data(repeating: 0x41, count: 4096).write(to: URL(fileURLWithPath: file))
    #expect {
      _ = try SQLiteRoomStore(path: file)
    } throws: { error in
      "\(error)".contains("cannot open the room store \(file)")
    }
  }
}

@Suite("Room store file permissions")
struct SQLiteRoomStorePermissionTests {
  @Test("the file is created readable by its user only")
  func ownerOnly() throws {
    let folder = try TemporaryFolder()
    let file = folder.path + "/new/relay.sqlite"
    _ = try SQLiteRoomStore(path: file)
    let attributes = try FileManager.default.attributesOfItem(atPath: file)
    #expect((attributes[.posixPermissions] as? Int) == 0o600)
    let directory = try FileManager.default.attributesOfItem(atPath: folder.path + "/new")
    #expect((directory[.posixPermissions] as? Int) == 0o700)
  }
}

@Suite("Room store file: one relay at a time")
struct SQLiteRoomStoreLockTests {
  @Test("a second relay on the same file is refused with a clear error while the first has it")
  func secondRelayRefused() async throws {
    let folder = try TemporaryFolder()
    let file = folder.path + "/relay.sqlite"
    var first: SQLiteRoomStore? = try SQLiteRoomStore(path: file)
    var r = RelayDriver(store: first)
    r.hello(1, "ann")
    #expect(await r.runtime.flushStore())
    #expect {
      _ = try SQLiteRoomStore(path: file)
    } throws: { error in
      "\(error)".contains("another relay is using it")
    }
    // Once the first is gone (its process ended), the file opens, with the room.
    r = RelayDriver()
    first = nil
    #expect(first == nil)
    let (rooms, _) = try await SQLiteRoomStore(path: file).load()
    #expect(rooms.map(\.name) == ["lobby"])
  }
}
