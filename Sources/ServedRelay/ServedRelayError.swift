/// Why a relay could not start: its store would not open, its port was taken… In words an
/// operator can act on.
public struct ServedRelayError: Error, Hashable, Sendable, CustomStringConvertible {
  public let description: String

  public init(_ description: String) { self.description = description }
}
