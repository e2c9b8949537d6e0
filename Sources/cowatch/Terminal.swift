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

  /// A prompt on stderr, the cursor left after it.
  static func errorWithoutNewline(_ text: String) {
    lock.withLock { _ in
      try? FileHandle.standardError.write(contentsOf: Data(text.utf8))
    }
  }

  /// `endOnStopSignals`: SIGINT, SIGTERM and SIGHUP end the lines as the end of input
  /// would (a headless host leaves "only me" then, rather than dying where it stands).
  static func inputLines(endOnStopSignals: Bool = false) -> AsyncStream<String> {
    let (stream, continuation) = AsyncStream<String>.makeStream(bufferingPolicy: .unbounded)
    if endOnStopSignals {
      let watch = StopSignals.watch(including: [SIGHUP]) { continuation.finish() }
      continuation.onTermination = { _ in watch.cancel() }
    }
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

/// A failure the user can act on, thrown up to the command's `run()`: `Cowatch.main`
/// prints it as one line on stderr and exits 1, without a stack trace. Thrown rather than
/// exiting on the spot, so that whatever the command started (an embedded relay, a
/// participant client) is stopped on the way out.
struct CommandFailure: Error, CustomStringConvertible {
  /// The whole line, e.g. `cowatch join: cannot reach the relay at 127.0.0.1:1`.
  let description: String

  /// `cowatch COMMAND: message`.
  init(_ command: String, _ message: String) {
    description = "cowatch \(command): \(message)"
  }

  /// A line that already says everything (e.g. a terminal error suggesting --headless).
  init(line: String) {
    description = line
  }
}
