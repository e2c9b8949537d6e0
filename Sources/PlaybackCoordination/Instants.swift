/// A point on the group clock: the relay's monotonic clock, in nanoseconds.
///
/// Kept distinct from ``LocalInstant`` so that group and local times cannot be mixed up
/// by accident; ``ClockOffsetEstimate`` converts between them.
public struct GroupInstant: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
  public var nanoseconds: Int64

  public init(nanoseconds: Int64) { self.nanoseconds = nanoseconds }
  public init(seconds: Double) { self.nanoseconds = Int64((seconds * 1e9).rounded()) }

  public var seconds: Double { Double(nanoseconds) / 1e9 }
  public func advanced(bySeconds s: Double) -> GroupInstant {
    GroupInstant(nanoseconds: nanoseconds &+ Int64((s * 1e9).rounded()))
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
  public init(seconds: Double) { self.nanoseconds = Int64((seconds * 1e9).rounded()) }

  public var seconds: Double { Double(nanoseconds) / 1e9 }
  public func advanced(bySeconds s: Double) -> LocalInstant {
    LocalInstant(nanoseconds: nanoseconds &+ Int64((s * 1e9).rounded()))
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
