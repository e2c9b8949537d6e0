import Clocks
import Logging
import PlaybackCoordination
import Rooms
import Synchronization
import WireProtocol

/// Writing rooms to a ``RoomStore``: the core notes which rooms and members changed with
/// each step; a writer task takes them every few milliseconds, outside the lock that
/// steps are forwarded under, and writes them as one batch. Forwarding never waits for the
/// store; a slow store only makes batches larger (at most every room once), never a queue.
extension RelayRuntime {
  /// The writer's bookkeeping: one write at a time, and what it has done.
  struct StoreWriter {
    var writing = false
    var batches = 0
    var rows = 0
    var failures = 0
    var failing: String?
    /// Time spent in successful writes, in all and the longest (nanoseconds).
    var writeNanoseconds: Int64 = 0
    var longestWrite: Int64 = 0
  }

  /// Milliseconds between writes while rooms change: at most this much of the latest
  /// changes is lost when the relay is killed.
  public static let storeWriteInterval = 0.005
  /// The wait before writing again after a failed write.
  public static let storeRetryInterval = 0.5

  /// Writes what changed until cancelled, then once more. Each write runs in a task of its
  /// own, which the writer's cancellation does not reach: a store may give up work in a
  /// cancelled task, and a write begun, or the last one, must happen.
  public func runStoreWriter(interval: Double = RelayRuntime.storeWriteInterval) async {
    while !Task.isCancelled {
      let wrote = await Task(executorPreference: clock.taskExecutor) { await self.flushStore() }
        .value
      let pause = wrote ? interval : Self.storeRetryInterval
      await outsideClock.sleep(seconds: pause)
    }
    _ = await Task(executorPreference: clock.taskExecutor) {
      await self.flushStore(retryingBusy: true)
    }.value
  }

  /// Takes what changed since the last write and writes it. Returns false when the write
  /// failed (the changes are kept for the next one) or another write was under way.
  @discardableResult
  public func flushStore() async -> Bool { await flushStore(retryingBusy: false) }

  /// `retryingBusy`: when another write is under way, wait for it (bounded) and write after.
  func flushStore(retryingBusy: Bool) async -> Bool {
    guard let store, !state.withLock({ $0.abandoned }) else { return true }
    var free = false
    for _ in 0..<(retryingBusy ? 1000 : 1) {
      free = storeWriter.withLock { w in
        guard !w.writing else { return false }
        w.writing = true
        return true
      }
      if free || !retryingBusy { break }
      await outsideClock.sleep(seconds: 0.005)
    }
    guard free else { return false }
    defer { storeWriter.withLock { $0.writing = false } }
    let batch: RoomStoreBatch? = state.withLock { s in
      guard s.core.hasStoreChanges else { return nil }
      return s.core.takeStoreChanges(
        clock: ClockReading(group: clock.groupNow(), wallNanoseconds: wallClock()))
    }
    guard let batch else { return true }
    let started = MonotonicClock.monotonicNanoseconds()
    do throws(RoomStoreError) {
      try await store.write(batch)
    } catch {
      state.withLock { s in
        s.core.requeue(batch)
        // Shared rooms: what cannot be stored is not taken (another relay may take the
        // room over from what is stored).
        if directory != nil {
          s.core.refusingChanges =
            "not applied: the relay cannot store changes now (\(error.description))"
        }
      }
      let first = storeWriter.withLock { w in
        defer {
          w.failures += 1
          w.failing = error.description
        }
        return w.failing == nil
      }
      if first {
        logger.warning(
          "cannot write rooms to the store: \(RelayRuntime.loggable(error.description)); keeping them and retrying"
        )
      }
      return false
    }
    let took = MonotonicClock.monotonicNanoseconds() - started
    let recovered = storeWriter.withLock { w in
      defer {
        w.batches += 1
        w.rows += batch.rowCount
        w.failing = nil
        w.writeNanoseconds += took
        w.longestWrite = max(w.longestWrite, took)
      }
      return w.failing != nil
    }
    if recovered { logger.notice("writing rooms to the store again") }
    if let directory {
      state.withLock { s in
        if s.core.refusingChanges != nil, s.leasesRenewedAt != nil {
          s.core.refusingChanges = nil
        }
      }
      if !batch.removed.isEmpty { try? await directory.release(batch.removed) }
    }
    return true
  }

  /// Batches and rows written so far, and failed writes.
  public var storeWrites: (batches: Int, rows: Int, failures: Int) {
    storeWriter.withLock { ($0.batches, $0.rows, $0.failures) }
  }

  /// Starts the longest write over (for a measurement that begins now).
  public func resetLongestStoreWrite() { storeWriter.withLock { $0.longestWrite = 0 } }

  /// Seconds spent writing batches, in all and the longest one.
  public var storeWriteTime: (total: Double, longest: Double) {
    storeWriter.withLock { (Double($0.writeNanoseconds) / 1e9, Double($0.longestWrite) / 1e9) }
  }

  /// Every room as the store would hold it now (for tests and status).
  public func storedRooms() -> [StoredRoom] { state.withLock { $0.core.storedRooms() } }

  /// What a relay about to start takes from `store`: rooms last written more than
  /// `retention` seconds ago are removed; the rest come back, with the offset to give the
  /// monotonic clock so that it continues the group clock they were written on (zero on the
  /// same boot; see ``ClockReading/continuation(of:now:)``).
  public static func loadRooms(
    from store: any RoomStore, retention: Double, now: ClockReading
  ) async throws(RoomStoreError) -> (rooms: [StoredRoom], clockOffset: Int64, expired: Int) {
    let cutoff = now.wallNanoseconds &- Int64(max(0, min(retention, 1e9)) * 1e9)
    let expired = try await store.removeRooms(writtenBefore: cutoff)
    let (rooms, written) = try await store.load()
    let offset = written.map { ClockReading.continuation(of: $0, now: now) } ?? 0
    return (rooms, offset, expired)
  }
}
