import PlaybackCoordination

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Reads `CLOCK_MONOTONIC`, optionally shifted by a fixed offset and sped up.
///
/// The offset lets in-process tests give the relay a clock that differs from the
/// participants' (as separate machines' clocks do) and check the offset estimation
/// against the known truth. The speed lets `cowatch demo --speed X` run a whole scenario —
/// relay, players, timeouts and every sleep — X times faster, consistently.
public struct MonotonicClock: SessionClock {
  public var offsetNanoseconds: Int64
  /// Clock seconds per real second.
  public var speed: Double
  /// The real instant from which a sped-up clock counts.
  public var origin: Int64

  public init(offsetNanoseconds: Int64 = 0, speed: Double = 1, origin: Int64? = nil) {
    precondition(speed > 0 && speed.isFinite, "clock speed must be positive")
    self.offsetNanoseconds = offsetNanoseconds
    self.speed = speed
    self.origin = origin ?? Self.monotonicNanoseconds()
  }

  /// Raw `CLOCK_MONOTONIC` in nanoseconds (what headless samples report as `mono_ns`).
  public static func monotonicNanoseconds() -> Int64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
  }

  public func nanoseconds() -> Int64 {
    let real = Self.monotonicNanoseconds()
    if speed == 1 { return real &+ offsetNanoseconds }
    return origin &+ Int64((Double(real &- origin) * speed).rounded()) &+ offsetNanoseconds
  }

  public func sleep(untilNanoseconds deadline: Int64) async {
    let remaining = deadline &- nanoseconds()
    guard remaining > 0 else { return }
    try? await Task.sleep(nanoseconds: UInt64(min(Double(remaining) / speed, 1e17)))
  }
}
