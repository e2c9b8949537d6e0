import Synchronization

/// Drives a ``ManualClock`` for a whole system of relay and participants in one process,
/// as a discrete-event simulation: the clock jumps to the next deadline anyone sleeps
/// until, but only once everything that the last jump woke has run and every message it
/// caused has been handled. A busy machine makes a run take longer in real time; it does
/// not change what happens at which instant of virtual time.
///
/// "Settled" is what ``settledWhen`` says (an ``InMemoryRelay/isSettled``, say, and a
/// consumer's own queues) while no sleeper the clock woke is still to run, and nothing
/// moved for a few polls in a row: the polls catch the short moment between a task's
/// wake-up and the messages it then sends. A run that never settles (a task that spins)
/// moves on after ``settleBound`` seconds of real time.
public struct VirtualTime: Sendable {
  public let clock: ManualClock
  /// The longest jump of virtual time, seconds: what a task that was runnable but not
  /// seen at a jump can be late by, at most.
  public var maximumStep: Double
  /// How long to wait for the system to settle before moving on anyway, seconds of real time.
  public var settleBound: Double
  private let settledWhen: @Sendable () -> Bool
  private let activity: @Sendable () -> Int

  /// - Parameters:
  ///   - settledWhen: whether the system's own queues are empty and its readers waiting.
  ///   - activity: a count that changes whenever anything moves in the system.
  public init(
    clock: ManualClock, maximumStep: Double = 0.02, settleBound: Double = 10,
    settledWhen: @escaping @Sendable () -> Bool, activity: @escaping @Sendable () -> Int
  ) {
    self.clock = clock
    self.maximumStep = maximumStep
    self.settleBound = settleBound
    self.settledWhen = settledWhen
    self.activity = activity
  }

  /// Waits (in real time) until everything woken so far has run and settled.
  public func settle() async {
    let bound = MonotonicClock.monotonicNanoseconds() + Int64(settleBound * 1e9)
    var quietPolls = 0
    var last: Int?
    while quietPolls < 3, MonotonicClock.monotonicNanoseconds() < bound {
      await Task.yield()
      let now = activity() &+ Int(truncatingIfNeeded: clock.sleepCount)
      if clock.wakingCount == 0, settledWhen(), now == last {
        quietPolls += 1
      } else {
        quietPolls = 0
      }
      last = now
      // Not much shorter: tests run several virtual clocks at once on two cores, and
      // every poll is a wake-up the tests' real-time parts pay for.
      try? await Task.sleep(nanoseconds: 200_000)
    }
  }

  /// Settles, then moves the clock to the next deadline (or `limit`, or one
  /// ``maximumStep``, whichever comes first), and settles again.
  public func step(notPast limit: Int64? = nil) async {
    await settle()
    jump(notPast: limit)
    await settle()
  }

  private func jump(notPast limit: Int64?) {
    let now = clock.nanoseconds()
    var target = now + Int64(maximumStep * 1e9)
    if let next = clock.nextDeadline { target = min(target, max(next, now)) }
    if let limit { target = min(target, limit) }
    clock.advance(toNanoseconds: max(target, now + 1))
  }

  /// Moves virtual time to `target`, letting everything due on the way happen.
  public func advance(toNanoseconds target: Int64) async {
    while clock.nanoseconds() < target {
      await settle()
      jump(notPast: target)
    }
    await settle()
  }

  public func advance(bySeconds seconds: Double) async {
    await advance(toNanoseconds: clock.nanoseconds() + Int64(seconds * 1e9))
  }

  /// Runs `operation` while virtual time moves on whenever the system settles with it
  /// still waiting (an answer that needs time to pass, a timeout); returns its result.
  public func run<T: Sendable>(_ operation: @escaping @Sendable () async -> T) async -> T {
    let task = Task { await operation() }
    let done = Flag()
    let watcher = Task {
      _ = await task.value
      done.set()
    }
    while true {
      await settle()
      if done.isSet { break }
      jump(notPast: nil)
    }
    _ = await watcher.value
    return await task.value
  }
}

private final class Flag: Sendable {
  private let value = Atomic<Bool>(false)
  func set() { value.store(true, ordering: .releasing) }
  var isSet: Bool { value.load(ordering: .acquiring) }
}
