import Foundation
import Testing
import WatchNights

@Suite("A room's memory on disk")
struct RoomMemoryFolderTests {
  /// A folder of the test's own, removed afterwards.
  static func withFolder(_ body: (RoomMemoryFolder) throws -> Void) throws {
    let base = FileManager.default.temporaryDirectory
      .appendingPathComponent("cowatch-memory-\(UUID().uuidString)").path
    defer { try? FileManager.default.removeItem(atPath: base) }
    try body(RoomMemoryFolder(stateDirectory: base))
  }

  @Test("written whole into a private folder (0700), the file 0600, read back, forgotten")
  func writeReadForget() throws {
    try Self.withFolder { folder in
      #expect(folder.read(room: "club") == .nothing)
      let memory = sampleMemory()
      try folder.write(memory)
      #expect(folder.read(room: "club") == .memory(memory))
      let folderMode =
        try FileManager.default.attributesOfItem(atPath: folder.path)[.posixPermissions] as? Int
      let fileMode =
        try FileManager.default.attributesOfItem(atPath: folder.file(for: "club"))[
          .posixPermissions] as? Int
      #expect(folderMode == 0o700)
      #expect(fileMode == 0o600)
      // No temporary file left behind.
      #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["club.json"])
      // Written over by the next night.
      var next = memory
      next.position = 10
      try folder.write(next)
      #expect(folder.read(room: "club") == .memory(next))
      #expect(folder.remove(room: "club"))
      #expect(!folder.remove(room: "club"))
      #expect(folder.read(room: "club") == .nothing)
    }
  }

  @Test(
    "a damaged file, or another room's under this room's name, is read as a problem (and written over)"
  )
  func damaged() throws {
    try Self.withFolder { folder in
      try folder.write(sampleMemory())
      try Data("{\"format\":\"cowatch-room-memory\",\"vers".utf8).write(
        to: URL(fileURLWithPath: folder.file(for: "club")))
      guard case .unreadable(_, let problem) = folder.read(room: "club") else {
        Issue.record("a cut file was read")
        return
      }
      #expect(problem.description.contains("not a room's memory"))
      try folder.write(sampleMemory())
      #expect(folder.read(room: "club") == .memory(sampleMemory()))
      try FileManager.default.copyItem(
        atPath: folder.file(for: "club"), toPath: folder.file(for: "other"))
      guard case .unreadable(_, let other) = folder.read(room: "other") else {
        Issue.record("another room's memory was read")
        return
      }
      #expect(other.description.contains("another room, club"))
    }
  }

  @Test("a room named to climb out of the folder is written inside it")
  func escaping() throws {
    try Self.withFolder { folder in
      var memory = sampleMemory(room: "../../escaped")
      memory.position = 1
      try folder.write(memory)
      #expect(folder.read(room: "../../escaped") == .memory(memory))
      let parent = URL(fileURLWithPath: folder.path).deletingLastPathComponent().path
      #expect(try FileManager.default.contentsOfDirectory(atPath: parent) == ["rooms"])
    }
  }
}
