import Foundation
import Logging
import Synchronization

/// Where logs go: stderr for the relay and headless participants, a file while curses
/// owns the screen.
enum Logs {
  private static let bootstrapped = Mutex(false)

  /// True the first time only (the logging system can be bootstrapped once).
  static func claimBootstrap() -> Bool {
    bootstrapped.withLock { done in
      defer { done = true }
      return !done
    }
  }

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

  /// Where the interactive front logs by default: `$XDG_STATE_HOME/cowatch/cowatch-NAME.log`
  /// (`~/.local/state/cowatch/…`), or the temporary directory when that cannot be created —
  /// never the current directory. One file per participant name, so that two fronts on one
  /// machine do not write over each other.
  static func defaultFrontLogFile(name: String) -> String {
    // The name as people wrote it (雪, Zoë, 🙂 all stay): only what a file name cannot or
    // should not hold becomes `_` (a slash, spaces, controls, a leading dot).
    var safe = String(
      name.map { c -> Character in
        let unsafe =
          c == "/" || c.isWhitespace
          || c.unicodeScalars.contains { $0.properties.generalCategory == .control }
        return unsafe ? "_" : c
      })
    if safe.hasPrefix(".") { safe = "_" + safe.dropFirst() }
    let env = ProcessInfo.processInfo.environment
    let state: String? =
      if let xdg = env["XDG_STATE_HOME"], xdg.hasPrefix("/") {
        xdg
      } else if let home = env["HOME"], !home.isEmpty {
        home + "/.local/state"
      } else {
        nil
      }
    if let state {
      let dir = state + "/cowatch"
      if (try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true))
        != nil
      {
        return dir + "/cowatch-\(safe).log"
      }
    }
    return NSTemporaryDirectory() + "cowatch-\(getuid())-\(safe).log"
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
