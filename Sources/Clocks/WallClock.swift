#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Reads `CLOCK_REALTIME`: only for what must be compared across runs or machines (a room
/// store's timestamps), never for timing, which is the monotonic clock's job.
public enum WallClock {
  /// Nanoseconds since 1970.
  public static func nanoseconds() -> Int64 {
    var ts = timespec()
    clock_gettime(CLOCK_REALTIME, &ts)
    return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
  }
}
