import Foundation
import Synchronization

/// One thread of its own that runs a store's work in order: encoding and SQLite
/// transactions never take a thread from the pool the relay's tasks run on. (At its normal
/// priority: a thread at a lower one starves while the cores are busy, and the window of
/// changes a `kill -9` can lose would grow with the load.)
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
