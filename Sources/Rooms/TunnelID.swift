/// Names one tunnel between two members in the relay's actions and logs (never its secret,
/// which would let whoever reads a log open it).
public struct TunnelID: Hashable, Comparable, Sendable, CustomStringConvertible {
  public let value: UInt64
  public init(_ value: UInt64) { self.value = value }
  public static func < (a: TunnelID, b: TunnelID) -> Bool { a.value < b.value }
  public var description: String { "t\(value)" }
}
