/// Identifies one participant (one terminal) for the lifetime of its membership in a room,
/// across reconnections. Assigned by the relay.
public struct ParticipantID: StringIdentifier {
  public var rawValue: String
  public init(_ rawValue: String) { self.rawValue = rawValue }
}

/// Identifies a playable item as `SERIES/EPISODE`, e.g. `harbour/s1e2`.
public struct ItemID: StringIdentifier {
  public var rawValue: String
  public init(_ rawValue: String) { self.rawValue = rawValue }
}
