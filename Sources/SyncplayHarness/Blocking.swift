import Foundation

/// Runs blocking work (waiting for a process, a socket read, `usleep`) on a thread of its
/// own, not on Swift concurrency's cooperative pool: that pool has a thread per core, and a
/// test that sleeps on one of two starves every other test running beside it.
public func blocking<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
  try await withCheckedThrowingContinuation { continuation in
    Thread.detachNewThread {
      do {
        continuation.resume(returning: try body())
      } catch {
        continuation.resume(throwing: error)
      }
    }
  }
}
