import Dispatch
import Synchronization

/// The one serial executor every task of a simulated system runs on, so that a driver of
/// virtual time knows, by events rather than by watching, when nothing in the system can
/// run: a woken sleeper, a resumed reader or an actor's next message is a job enqueued
/// here, and the executor tells its waiters each time its last job is done.
///
/// A runtime puts its tasks here by asking its clock (``SessionClock/taskExecutor``): a
/// ``ManualClock`` made with a simulation hands this executor out, every other clock
/// none, so production tasks run where Swift puts them. Work that happens elsewhere
/// (a TCP relay's event loops, a connection being opened) tells the executor it moved
/// with ``nudge()``; its driver decides from its own counts whether that work is done.
public final class SimulationExecutor: TaskExecutor {
  private struct Waiter {
    var deadline: Int64
    var continuation: CheckedContinuation<Void, Never>
  }
  private struct State {
    /// Jobs enqueued and not yet finished (the one running included).
    var pending = 0
    /// Changes whenever the executor falls idle or someone nudges it.
    var generation: UInt64 = 0
    var waiters: [UInt64: Waiter] = [:]
    var nextWaiter: UInt64 = 0
    /// Whether a deadline watchdog is scheduled.
    var watching = false
  }
  private let state = Mutex(State())
  /// Serial, on the width-limited global pool: a serial queue of its own would target the
  /// overcommitting one, a thread for each busy simulation, and two dozen simulated
  /// systems in one test run would then starve every other thread of the process (the
  /// event loops finishing a TLS handshake, the tasks of everything else).
  private let queue = DispatchQueue(label: "cowatch.simulation", target: .global())

  public init() {}

  public func enqueue(_ job: consuming ExecutorJob) {
    state.withLock { $0.pending += 1 }
    let job = UnownedJob(job)
    queue.async {
      job.runSynchronously(on: self.asUnownedTaskExecutor())
      self.finished()
    }
  }

  private func finished() {
    let woken = state.withLock { s -> [Waiter] in
      s.pending -= 1
      guard s.pending == 0 else { return [] }
      return Self.bump(&s)
    }
    for waiter in woken { waiter.continuation.resume() }
  }

  /// Wakes whoever waits for a change: something outside the executor moved.
  public func nudge() {
    let woken = state.withLock { Self.bump(&$0) }
    for waiter in woken { waiter.continuation.resume() }
  }

  private static func bump(_ s: inout State) -> [Waiter] {
    s.generation &+= 1
    let woken = Array(s.waiters.values)
    s.waiters.removeAll()
    return woken
  }

  /// Whether no job is queued or running.
  public var isIdle: Bool { state.withLock { $0.pending == 0 } }

  /// A count that changes at every idle moment and every nudge: read it before looking at
  /// the system, then ``change(after:deadline:)`` waits for whatever comes next.
  public var generation: UInt64 { state.withLock { $0.generation } }

  /// Returns once ``generation`` differs from `generation` — at once if it already does —
  /// or once the monotonic clock passes `deadline` (nanoseconds), whichever comes first.
  public func change(after generation: UInt64, deadline: Int64) async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let (resumeNow, watch) = state.withLock { s -> (Bool, Bool) in
        guard s.generation == generation,
          MonotonicClock.monotonicNanoseconds() < deadline
        else { return (true, false) }
        s.nextWaiter &+= 1
        s.waiters[s.nextWaiter] = Waiter(deadline: deadline, continuation: continuation)
        defer { s.watching = true }
        return (false, !s.watching)
      }
      if resumeNow { continuation.resume() }
      if watch { scheduleWatchdog() }
    }
  }

  /// Resumes waiters whose deadline passed; one watchdog at a time, at the earliest
  /// deadline, for as long as anyone waits.
  private func scheduleWatchdog() {
    let earliest = state.withLock { s in s.waiters.values.lazy.map(\.deadline).min() }
    guard let earliest else {
      state.withLock { $0.watching = false }
      return
    }
    let delay = max(0, earliest - MonotonicClock.monotonicNanoseconds())
    DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(delay))) {
      let now = MonotonicClock.monotonicNanoseconds()
      let (expired, again) = self.state.withLock { s -> ([Waiter], Bool) in
        let expired = s.waiters.filter { $0.value.deadline <= now }
        for key in expired.keys { s.waiters.removeValue(forKey: key) }
        s.watching = !s.waiters.isEmpty
        return (Array(expired.values), s.watching)
      }
      for waiter in expired { waiter.continuation.resume() }
      if again { self.scheduleWatchdog() }
    }
  }
}
