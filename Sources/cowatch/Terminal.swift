import Foundation
import Synchronization

/// Console I/O for the commands: whole lines to stdout (flushed, so pipes see them at
/// once), one-line errors to stderr, and stdin lines read on a dedicated thread so a
/// blocking read never holds up the concurrency pool.
enum Console {
  private static let lock = Mutex(())

  static func line(_ text: String) {
    lock.withLock { _ in
      // A reader that went away (`| head`) must not crash the program.
      try? FileHandle.standardOutput.write(contentsOf: Data((text + "\n").utf8))
    }
  }

  static func error(_ text: String) {
    lock.withLock { _ in
      try? FileHandle.standardError.write(contentsOf: Data((text + "\n").utf8))
    }
  }

  static func inputLines() -> AsyncStream<String> {
    let (stream, continuation) = AsyncStream<String>.makeStream(bufferingPolicy: .unbounded)
    let thread = Thread {
      while let line = readLine(strippingNewline: true) {
        continuation.yield(line)
      }
      continuation.finish()
    }
    thread.name = "cowatch-stdin"
    thread.start()
    return stream
  }
}

/// A failure the user can act on: printed as one line on stderr, exit status 1.
struct CommandFailure: Error, CustomStringConvertible {
  let description: String
  init(_ description: String) { self.description = description }
}

extension CommandFailure {
  /// Prints `cowatch COMMAND: message` and exits non-zero without a stack trace.
  static func exit(_ command: String, _ message: String) -> Never {
    Console.error("cowatch \(command): \(message)")
    Foundation.exit(1)
  }
}
