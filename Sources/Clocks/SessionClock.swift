import PlaybackCoordination

/// The time source of every runtime (relay and participant), injected so that tests run
/// on virtual time (``ManualClock``) and the demo runs faster (``MonotonicClock/speed``).
public protocol SessionClock: Sendable {
  /// Now, in nanoseconds of this clock.
  func nanoseconds() -> Int64
  /// Returns once the clock reads at least `deadline`, or at once when the task is
  /// cancelled.
  func sleep(untilNanoseconds deadline: Int64) async
  /// Where the tasks of a runtime on this clock run: the executor of a simulation driven on
  /// virtual time (``SimulationExecutor``), or `nil`, where Swift puts them.
  var taskExecutor: (any TaskExecutor)? { get }
}

extension SessionClock {
  public var taskExecutor: (any TaskExecutor)? { nil }

  public func groupNow() -> GroupInstant { GroupInstant(nanoseconds: nanoseconds()) }
  public func localNow() -> LocalInstant { LocalInstant(nanoseconds: nanoseconds()) }

  /// Sleeps for `seconds` of this clock's time.
  public func sleep(seconds: Double) async {
    guard seconds > 0 else { return }
    let step = seconds * 1e9
    let delta = step >= Double(Int64.max) ? Int64.max : Int64(step)
    await sleep(untilNanoseconds: nanoseconds().addingReportingOverflow(delta).partialValue)
  }

  /// Sleeps for `duration` of this clock's time.
  public func sleep(for duration: Duration) async {
    let (seconds, attoseconds) = duration.components
    await sleep(seconds: Double(seconds) + Double(attoseconds) / 1e18)
  }

  /// Nanoseconds of this clock since `start` (a reading of the same clock), in seconds.
  public func seconds(since start: Int64) -> Double { Double(nanoseconds() &- start) / 1e9 }
}
