#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif
import PlaybackCoordination

/// Reads `CLOCK_MONOTONIC`, optionally shifted by a fixed offset, so that in-process tests
/// can give the relay a clock that differs from the participants' (as separate machines'
/// clocks do) and check the offset estimation against the known truth.
public struct MonotonicClock: Sendable {
  public var offsetNanoseconds: Int64

  public init(offsetNanoseconds: Int64 = 0) { self.offsetNanoseconds = offsetNanoseconds }

  /// Raw `CLOCK_MONOTONIC` in nanoseconds (what headless samples report as `mono_ns`).
  public static func monotonicNanoseconds() -> Int64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
  }

  public func nanoseconds() -> Int64 { Self.monotonicNanoseconds() &+ offsetNanoseconds }
  public func groupNow() -> GroupInstant { GroupInstant(nanoseconds: nanoseconds()) }
  public func localNow() -> LocalInstant { LocalInstant(nanoseconds: nanoseconds()) }
}
