/// A value that is a string on the wire and in messages (participant and item ids,
/// suspension reasons), typed so that one kind cannot be passed for another. Conforming
/// types get their ordering, description, literal and Codable (a plain JSON string) here.
public protocol StringIdentifier: Hashable, Comparable, Sendable, Codable,
  CustomStringConvertible, ExpressibleByStringLiteral
{
  var rawValue: String { get }
  init(_ rawValue: String)
}

extension StringIdentifier {
  public init(stringLiteral value: String) { self.init(value) }
  public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
  public var description: String { rawValue }
  public init(from decoder: any Decoder) throws {
    self.init(try decoder.singleValueContainer().decode(String.self))
  }
  public func encode(to encoder: any Encoder) throws {
    var c = encoder.singleValueContainer()
    try c.encode(rawValue)
  }
}
