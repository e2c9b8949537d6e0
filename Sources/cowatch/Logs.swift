import Foundation
import Logging

/// Where logs go: stderr for the relay and headless participants, a file while curses
/// owns the screen.
enum Logs {
  static func bootstrap(level: Logger.Level, file: String? = nil) {
    if let file, let handle = FileHandle(forWritingAtPath: file) ?? create(file) {
      handle.seekToEndOfFile()
      let box = FileLogStream(handle: handle)
      LoggingSystem.bootstrap { label in
        var h = StreamLogHandler(label: label, stream: box)
        h.logLevel = level
        return h
      }
    } else {
      LoggingSystem.bootstrap { label in
        var h = StreamLogHandler.standardError(label: label)
        h.logLevel = level
        return h
      }
    }
  }

  private static func create(_ path: String) -> FileHandle? {
    _ = FileManager.default.createFile(atPath: path, contents: nil)
    return FileHandle(forWritingAtPath: path)
  }
}

struct FileLogStream: TextOutputStream, @unchecked Sendable {
  // FileHandle writes are atomic per call; StreamLogHandler calls write once per line.
  let handle: FileHandle
  mutating func write(_ string: String) { handle.write(Data(string.utf8)) }
}
