/// Another clock read with a fixed offset: the clock of "another machine" in tests and
/// benchmarks, where the relay's time must differ from the participants' by a known
/// amount while both move together (a ``ManualClock`` advanced once moves both).
public struct OffsetClock<Base: SessionClock>: SessionClock {
  public let base: Base
  public let offsetNanoseconds: Int64

  public init(_ base: Base, offsetNanoseconds: Int64) {
    self.base = base
    self.offsetNanoseconds = offsetNanoseconds
  }

  public func nanoseconds() -> Int64 { base.nanoseconds() &+ offsetNanoseconds }

  public var taskExecutor: (any TaskExecutor)? { base.taskExecutor }

  public func sleep(untilNanoseconds deadline: Int64) async {
    // Saturating: "sleep until the end of time" stays that on the base clock.
    let (shifted, overflow) = deadline.subtractingReportingOverflow(offsetNanoseconds)
    let target = overflow ? (offsetNanoseconds < 0 ? Int64.max : Int64.min) : shifted
    await base.sleep(untilNanoseconds: target)
  }
}
