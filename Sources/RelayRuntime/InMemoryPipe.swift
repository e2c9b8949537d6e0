import Synchronization

/// The relay-to-participant direction of an in-memory connection: lines queued by the
/// relay, taken by the participant's reader. It counts the bytes not yet taken, so the
/// relay's slow-reader policy applies in memory exactly as over TCP.
final class InMemoryPipe: RelayOutlet {
  private struct State {
    var lines: [[UInt8]] = []
    var head = 0
    var bytes = 0
    var waiter: CheckedContinuation<[UInt8]?, Never>?
    var finished = false
    /// The reader closed its end: what is queued will not be read.
    var readerGone = false
  }
  private let state = Mutex(State())

  func write(_ line: [UInt8]) -> Int {
    let (waiter, queued) = state.withLock { s -> (CheckedContinuation<[UInt8]?, Never>?, Int) in
      guard !s.finished else { return (nil, 0) }
      if let waiter = s.waiter {
        s.waiter = nil
        return (waiter, s.bytes)
      }
      s.lines.append(line)
      s.bytes += line.count
      return (nil, s.bytes)
    }
    waiter?.resume(returning: line)
    return queued
  }

  func close(flush: Bool) {
    let waiter = state.withLock { s -> CheckedContinuation<[UInt8]?, Never>? in
      s.finished = true
      if !flush {
        s.lines = []
        s.head = 0
        s.bytes = 0
      }
      defer { s.waiter = nil }
      return s.waiter
    }
    waiter?.resume(returning: nil)
  }

  /// Whether the relay (or the reader) closed it.
  var isClosed: Bool { state.withLock { $0.finished } }

  /// The reader closed its end (nothing queued will be read).
  func readerClosed() { state.withLock { $0.readerGone = true } }

  /// Nothing is on its way: every line was taken and the reader waits for the next (or
  /// will read no more). A line taken is being handled until the reader asks again.
  var isSettled: Bool {
    state.withLock { s in
      s.readerGone || (s.head == s.lines.count && (s.waiter != nil || s.finished))
    }
  }

  /// The next line, or nil once the pipe is closed and drained (or the task cancelled).
  func next() async -> [UInt8]? {
    await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<[UInt8]?, Never>) in
        let ready = state.withLock { s -> [UInt8]?? in
          if s.head < s.lines.count {
            let line = s.lines[s.head]
            s.head += 1
            s.bytes -= line.count
            if s.head > 64, s.head * 2 > s.lines.count {
              s.lines.removeFirst(s.head)
              s.head = 0
            }
            return .some(line)
          }
          if s.finished || Task.isCancelled { return .some(nil) }
          s.waiter = continuation
          return nil
        }
        if let ready { continuation.resume(returning: ready) }
      }
    } onCancel: {
      close(flush: false)
    }
  }
}
