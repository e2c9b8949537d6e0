import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// One thread of its own, at the lowest scheduling priority, that runs a store's work in
/// order: encoding and SQLite transactions never take a thread from the pool the relay's
/// tasks run on, and when the cores are busy the system runs the relay's threads (those
/// that forward steps) first. The relay only loses the few milliseconds of durability a
/// late write costs.
final class StoreThread: Sendable {
  private struct Queue {
    var jobs: [@Sendable () -> Void] = []
    var stopping = false
  }
  /// What the thread and its callers share.
  private final class Shared: Sendable {
    let queue = Mutex(Queue())
    let ready = DispatchSemaphore(value: 0)
  }
  private let shared = Shared()

  init(name: String) {
    let shared = self.shared
    let thread = Thread {
      #if canImport(Glibc)
        // Niceness is per thread on Linux: `who` 0 with PRIO_PROCESS is this thread only.
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 19)
      #endif
      while true {
        shared.ready.wait()
        let (jobs, stopping) = shared.queue.withLock { q in
          defer { q.jobs = [] }
          return (q.jobs, q.stopping)
        }
        for job in jobs { job() }
        if stopping { return }
      }
    }
    thread.name = name
    thread.start()
  }

  /// Runs `body` on the thread and returns what it returns.
  func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
      shared.queue.withLock {
        $0.jobs.append { continuation.resume(with: Result { try body() }) }
      }
      shared.ready.signal()
    }
  }

  /// Ends the thread once the jobs given so far are done.
  func stop() {
    shared.queue.withLock { $0.stopping = true }
    shared.ready.signal()
  }
}
