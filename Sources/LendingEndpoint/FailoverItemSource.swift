import Clocks
import NIOCore

/// A borrowed item whose lender may change under the player: reads go to the current
/// lender's copy; when a read of it fails (the lender left, stopped lending, or its copy
/// broke), `failed` is told once — the borrower asks the room for another lender — and the
/// read waits, at most ``handoverWait``, for the next copy. The player sees a slow read (a
/// stall the group waits for), not the end of the file.
///
/// Only a copy of the same size takes over: byte offsets mean the same in both. Another
/// cut of the same episode is refused (``replace(with:)``), and the borrower reopens the
/// player on it instead.
public actor FailoverItemSource: ItemSource {
  public nonisolated let size: Int64
  /// How long a read waits for the next lender's copy, seconds.
  public nonisolated let handoverWait: Double
  private var current: (any ItemSource)?
  /// Counts the copies taken over, so that only the first read to fail a copy reports it.
  private var generation = 0
  private var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
  private var nextWaiter = 0
  private var closed = false
  private let failed: @Sendable (String) -> Void
  private let clock: any SessionClock

  /// Reads `first`; `failed(why)` when a copy stops being readable. `clock` times the
  /// wait for the next copy.
  public init(
    _ first: any ItemSource, clock: any SessionClock, handoverWait: Double = 20,
    failed: @escaping @Sendable (String) -> Void
  ) {
    self.clock = clock
    size = first.size
    current = first
    self.handoverWait = min(max(handoverWait, 0.01), 120)
    self.failed = failed
  }

  public func read(from offset: Int64, maximum: Int) async throws -> ByteBuffer {
    // A copy that fails is given up; its successor gets the read. A few at most, so that
    // copies failing one after another end the read rather than loop.
    var lastError: (any Error)?
    for _ in 0..<3 {
      let (source, taken) = try await copy()
      do {
        return try await source.read(from: offset, maximum: maximum)
      } catch {
        lastError = error
        if taken == generation, current != nil {
          current = nil
          failed((error as? ItemSourceError)?.description ?? "\(error)")
        }
      }
    }
    throw lastError ?? ItemSourceError("no lender's copy could be read")
  }

  /// The next lender's copy takes over, if it is the same size.
  public func replace(with source: any ItemSource) throws(ItemSourceError) {
    guard !closed else { throw ItemSourceError("the borrowed item was closed") }
    guard source.size == size else {
      throw ItemSourceError("the new copy is \(source.size) bytes, the one played \(size)")
    }
    current = source
    generation += 1
    wakeAll()
  }

  /// Lets go of the copy read now (its lender left): reads wait for the next one.
  public func release() {
    current = nil
    generation += 1
  }

  /// Nobody lends it any more: waiting reads fail, and every later one.
  public func close() {
    closed = true
    current = nil
    wakeAll()
  }

  /// The copy to read and its generation; waits for one while there is none.
  private func copy() async throws -> (any ItemSource, Int) {
    if let current { return (current, generation) }
    guard !closed else { throw ItemSourceError("nobody lends the item any more") }
    let id = nextWaiter
    nextWaiter += 1
    let wait = handoverWait
    let clock = clock
    let timer = Task(executorPreference: clock.taskExecutor) {
      await clock.sleep(seconds: wait)
      await self.wake(id)
    }
    await withCheckedContinuation { waiters[id] = $0 }
    timer.cancel()
    guard let current else {
      throw ItemSourceError(
        closed
          ? "nobody lends the item any more"
          : "no other lender's copy came within \(Int(wait)) s")
    }
    return (current, generation)
  }

  private func wake(_ id: Int) { waiters.removeValue(forKey: id)?.resume() }

  private func wakeAll() {
    let all = waiters
    waiters = [:]
    for waiter in all.values { waiter.resume() }
  }
}
