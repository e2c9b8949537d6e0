import Dispatch
import Foundation
import Synchronization

/// SIGINT and SIGTERM turned into one call, once, instead of ending the process where it
/// stands.
enum StopSignals {
  /// Starts watching; `stop` runs on the first of the signals, and a second one ends the
  /// process at once (someone pressing ctrl-c again does not want to wait). Cancel to stop
  /// watching.
  static func watch(including more: [Int32] = [], _ stop: @escaping @Sendable () -> Void)
    -> Watch
  {
    let received = Count()
    let sources = ([SIGINT, SIGTERM] + more).map { number in
      signal(number, SIG_IGN)
      let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
      source.setEventHandler {
        let count = received.value.add(1, ordering: .relaxed).newValue
        if count == 1 { stop() } else { exit(128 + number) }
      }
      source.resume()
      return source
    }
    return Watch(sources: sources)
  }

  final class Count: Sendable {
    let value = Atomic<Int>(0)
  }

  /// Unchecked: dispatch sources may be cancelled from any thread.
  struct Watch: @unchecked Sendable {
    let sources: [any DispatchSourceSignal]
    func cancel() {
      for source in sources { source.cancel() }
    }
  }
}
