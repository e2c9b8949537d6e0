/// Identifies one participant (one terminal) for the lifetime of its membership in a room,
/// across reconnections. Assigned by the relay.
public struct ParticipantID: Hashable, Comparable, Sendable, Codable, CustomStringConvertible,
  ExpressibleByStringLiteral
{
  public var rawValue: String
  public init(_ rawValue: String) { self.rawValue = rawValue }
  public init(stringLiteral value: String) { self.rawValue = value }
  public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
  public var description: String { rawValue }
  public init(from decoder: any Decoder) throws {
    rawValue = try decoder.singleValueContainer().decode(String.self)
  }
  public func encode(to encoder: any Encoder) throws {
    var c = encoder.singleValueContainer()
    try c.encode(rawValue)
  }
}

/// Identifies a playable item as `SERIES/EPISODE`, e.g. `harbour/s1e2`.
public struct ItemID: Hashable, Comparable, Sendable, Codable, CustomStringConvertible,
  ExpressibleByStringLiteral
{
  public var rawValue: String
  public init(_ rawValue: String) { self.rawValue = rawValue }
  public init(stringLiteral value: String) { self.rawValue = value }
  public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
  public var description: String { rawValue }
  public init(from decoder: any Decoder) throws {
    rawValue = try decoder.singleValueContainer().decode(String.self)
  }
  public func encode(to encoder: any Encoder) throws {
    var c = encoder.singleValueContainer()
    try c.encode(rawValue)
  }
}
