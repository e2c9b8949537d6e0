/// A point on the group clock: the relay's monotonic clock, in nanoseconds.
///
/// Kept distinct from ``LocalInstant`` so that group and local times cannot be mixed up
/// by accident; ``ClockOffsetEstimate`` converts between them.
public struct GroupInstant: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
  public var nanoseconds: Int64

  public init(nanoseconds: Int64) { self.nanoseconds = nanoseconds }
  public init(seconds: Double) { self.nanoseconds = InstantArithmetic.nanoseconds(seconds) }

  public var seconds: Double { Double(nanoseconds) / 1e9 }
  /// Saturates at the ends of the clock instead of trapping: a far-off or non-finite
  /// offset (from a hostile peer, say) gives the farthest instant, never a crash.
  public func advanced(bySeconds s: Double) -> GroupInstant {
    GroupInstant(
      nanoseconds: InstantArithmetic.adding(nanoseconds, InstantArithmetic.nanoseconds(s)))
  }
  /// `self − other` in seconds.
  public func seconds(since other: GroupInstant) -> Double {
    Double(nanoseconds &- other.nanoseconds) / 1e9
  }
  public static func < (a: GroupInstant, b: GroupInstant) -> Bool { a.nanoseconds < b.nanoseconds }
  public var description: String { "g\(Double(nanoseconds / 1_000_000) / 1000)" }

  public init(from decoder: any Decoder) throws {
    nanoseconds = try decoder.singleValueContainer().decode(Int64.self)
  }
  public func encode(to encoder: any Encoder) throws {
    var c = encoder.singleValueContainer()
    try c.encode(nanoseconds)
  }
}

/// A point on a participant's own monotonic clock, in nanoseconds.
public struct LocalInstant: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
  public var nanoseconds: Int64

  public init(nanoseconds: Int64) { self.nanoseconds = nanoseconds }
  public init(seconds: Double) { self.nanoseconds = InstantArithmetic.nanoseconds(seconds) }

  public var seconds: Double { Double(nanoseconds) / 1e9 }
  /// Saturates at the ends of the clock instead of trapping: a far-off or non-finite
  /// offset (from a hostile peer, say) gives the farthest instant, never a crash.
  public func advanced(bySeconds s: Double) -> LocalInstant {
    LocalInstant(
      nanoseconds: InstantArithmetic.adding(nanoseconds, InstantArithmetic.nanoseconds(s)))
  }
  /// `self − other` in seconds.
  public func seconds(since other: LocalInstant) -> Double {
    Double(nanoseconds &- other.nanoseconds) / 1e9
  }
  public static func < (a: LocalInstant, b: LocalInstant) -> Bool { a.nanoseconds < b.nanoseconds }
  public var description: String { "l\(Double(nanoseconds / 1_000_000) / 1000)" }

  public init(from decoder: any Decoder) throws {
    nanoseconds = try decoder.singleValueContainer().decode(Int64.self)
  }
  public func encode(to encoder: any Encoder) throws {
    var c = encoder.singleValueContainer()
    try c.encode(nanoseconds)
  }
}

/// Conversions between seconds and nanoseconds that cannot trap.
enum InstantArithmetic {
  /// `seconds` in whole nanoseconds, clamped to `Int64`'s range; NaN counts as 0.
  static func nanoseconds(_ seconds: Double) -> Int64 {
    guard !seconds.isNaN else { return 0 }
    let value = (seconds * 1e9).rounded()
    if value >= 9.2e18 { return Int64.max }
    if value <= -9.2e18 { return Int64.min }
    return Int64(value)
  }

  static func adding(_ a: Int64, _ b: Int64) -> Int64 {
    let (sum, overflow) = a.addingReportingOverflow(b)
    guard overflow else { return sum }
    return b > 0 ? Int64.max : Int64.min
  }
}
