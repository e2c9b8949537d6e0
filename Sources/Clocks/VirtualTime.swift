import Synchronization

/// Drives a ``ManualClock`` for a whole system of relay and participants in one process,
/// as a discrete-event simulation: the clock jumps to the next deadline anyone sleeps
/// until, but only once everything that the last jump woke has run and every message it
/// caused has been handled. A busy machine makes a run take longer in real time; it does
/// not change what happens at which instant of virtual time.
///
/// "Settled" is decided by events, not by watching the system for a while: every task of
/// the system runs on the clock's ``SimulationExecutor`` (its runtimes ask the clock where
/// to start them), so nothing in it can run once that executor has no job and no sleeper
/// the clock woke is still to run; ``settledWhen`` adds what happens outside it (lines on
/// their way through a real socket, say), and whatever moves there nudges the executor.
/// A run that never settles (a task that spins) moves on after ``settleBound`` seconds of
/// real time.
public struct VirtualTime: Sendable {
  public let clock: ManualClock
  /// The longest jump of virtual time, seconds: what a task that was runnable but not
  /// seen at a jump can be late by, at most.
  public var maximumStep: Double
  /// How long to wait for the system to settle before moving on anyway, seconds of real time.
  public var settleBound: Double
  private let simulation: SimulationExecutor
  private let settledWhen: @Sendable () -> Bool

  /// - Parameters:
  ///   - clock: a clock made with a ``SimulationExecutor``, the one the system's tasks run on.
  ///   - settledWhen: whether nothing is on its way outside the executor (the system's
  ///     own counts of lines sent and handled, connections being opened); whatever changes
  ///     it from outside the executor calls ``SimulationExecutor/nudge()``.
  public init(
    clock: ManualClock, maximumStep: Double = 0.02, settleBound: Double = 10,
    settledWhen: @escaping @Sendable () -> Bool = { true }
  ) {
    guard let simulation = clock.simulation else {
      preconditionFailure("VirtualTime drives a ManualClock made with a SimulationExecutor")
    }
    self.clock = clock
    self.maximumStep = maximumStep
    self.settleBound = settleBound
    self.simulation = simulation
    self.settledWhen = settledWhen
  }

  /// Waits (in real time) until everything woken so far has run and settled.
  public func settle() async {
    // Never on the simulation itself, which would then never be idle.
    await withTaskExecutorPreference(globalConcurrentExecutor) {
      let bound = MonotonicClock.monotonicNanoseconds() + Int64(settleBound * 1e9)
      while true {
        let generation = simulation.generation
        if simulation.isIdle, clock.wakingCount == 0, settledWhen() { return }
        guard MonotonicClock.monotonicNanoseconds() < bound else { return }
        await simulation.change(after: generation, deadline: bound)
      }
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
    // Both on the simulation: the operation's end is then a job there, seen before the
    // next jump.
    let task = Task(executorPreference: simulation) { await operation() }
    let done = Flag()
    let watcher = Task(executorPreference: simulation) {
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
