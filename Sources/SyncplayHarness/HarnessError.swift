import Foundation

/// Why a harness could not do what a test or benchmark asked.
public struct HarnessError: Error, CustomStringConvertible, Sendable {
  public let description: String
  public init(_ description: String) { self.description = description }
}

/// The monotonic clock, nanoseconds (what mpv readings and Cowatch samples are stamped with).
@inline(__always) func monoNow() -> Int64 {
  var ts = timespec()
  clock_gettime(CLOCK_MONOTONIC, &ts)
  return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
}
