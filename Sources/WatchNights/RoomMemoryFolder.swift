import Foundation

/// Where this machine keeps its rooms' memories: one file a room in a folder of the state
/// directory (`$XDG_STATE_HOME/cowatch/rooms`), the folder 0700 and each file 0600, written
/// whole or not at all (a temporary file renamed over the old one), so that a night that
/// ends in the middle of a write leaves the last good memory. A room's name never leaves
/// the folder: it is escaped into the file's name (``fileName(for:)``).
public struct RoomMemoryFolder: Sendable {
  public let path: String

  /// `path`: the folder (made when first written to).
  public init(path: String) { self.path = path }

  /// The folder inside a state directory.
  public init(stateDirectory: String) { self.init(path: stateDirectory + "/rooms") }

  /// What reading a room's memory found.
  public enum Reading: Hashable, Sendable {
    /// Nothing remembered of the room here.
    case nothing
    case memory(RoomMemory)
    /// A file that could not be read, and why (said once; it is written over next time).
    case unreadable(file: String, RoomMemoryFile.Problem)
  }

  public func read(room: String) -> Reading {
    let file = self.file(for: room)
    guard let handle = FileHandle(forReadingAtPath: file) else { return .nothing }
    defer { try? handle.close() }
    // One byte more than a memory may be: enough to know it is too big.
    let data: Data
    do {
      data = try handle.read(upToCount: RoomMemoryFile.maximumBytes + 1) ?? Data()
    } catch {
      return .unreadable(file: file, RoomMemoryFile.Problem("it cannot be read (\(error))"))
    }
    do throws(RoomMemoryFile.Problem) {
      let memory = try RoomMemoryFile.decode(data)
      guard memory.room == room else {
        return .unreadable(file: file, .init("it is the memory of another room, \(memory.room)"))
      }
      return .memory(memory)
    } catch {
      return .unreadable(file: file, error)
    }
  }

  /// Writes `memory` over the room's file, whole: a temporary file (0600) renamed over it.
  public func write(_ memory: RoomMemory) throws(RoomMemoryFile.Problem) {
    try makeFolder()
    let file = self.file(for: memory.room)
    let temporary = file + ".\(getpid()).tmp"
    let data = RoomMemoryFile.encode(memory)
    let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else {
      throw RoomMemoryFile.Problem("cannot write \(temporary): \(String(cString: strerror(errno)))")
    }
    let written = data.withUnsafeBytes { bytes in
      var done = 0
      while done < bytes.count {
        let n = Foundation.write(descriptor, bytes.baseAddress! + done, bytes.count - done)
        if n <= 0 { return false }
        done += n
      }
      return true
    }
    let synced = fsync(descriptor) == 0
    close(descriptor)
    guard written, synced, rename(temporary, file) == 0 else {
      let reason = String(cString: strerror(errno))
      unlink(temporary)
      throw RoomMemoryFile.Problem("cannot write \(file): \(reason)")
    }
  }

  /// Forgets the room: true when there was a memory (or an unreadable file) to remove.
  @discardableResult
  public func remove(room: String) -> Bool {
    unlink(file(for: room)) == 0
  }

  /// The room's file.
  public func file(for room: String) -> String { path + "/" + Self.fileName(for: room) }

  /// `club.json`; letters, digits, `-` and `_` are kept, every other byte is `%XX` (so
  /// `../x` is `%2E%2E%2Fx.json`, in the folder like any other), and a name that would be
  /// too long for a file system is cut, with a hash of the whole name after it.
  public static func fileName(for room: String) -> String {
    var escaped = ""
    for byte in room.utf8 {
      switch byte {
      case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
        UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
        escaped.append(Character(Unicode.Scalar(byte)))
      default:
        let hex = String(byte, radix: 16, uppercase: true)
        escaped += "%" + (hex.count == 1 ? "0" + hex : hex)
      }
    }
    if escaped.isEmpty { escaped = "%" }
    if escaped.utf8.count > 120 {
      var hash: UInt64 = 0xcbf2_9ce4_8422_2325
      for byte in room.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
      escaped = String(escaped.prefix(100)) + "~" + String(hash, radix: 16)
    }
    return escaped + ".json"
  }

  private func makeFolder() throws(RoomMemoryFile.Problem) {
    do {
      try FileManager.default.createDirectory(
        atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    } catch {
      throw RoomMemoryFile.Problem("cannot make \(path): \(error.localizedDescription)")
    }
    // Made earlier by hand, or by an older Cowatch: closed to others all the same.
    chmod(path, 0o700)
  }
}
