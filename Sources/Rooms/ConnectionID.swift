/// Identifies one transport connection to the relay (a participant may come back on a new
/// one after a drop).
public struct ConnectionID: Hashable, Comparable, Sendable, CustomStringConvertible {
  public var rawValue: UInt64
  public init(_ rawValue: UInt64) { self.rawValue = rawValue }
  public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
  public var description: String { "c\(rawValue)" }
}
