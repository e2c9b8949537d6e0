import PlaybackCoordination

/// A room as a ``RoomStore`` keeps it: enough to bring it back after the relay that ran it
/// stopped, with the same state, sequence, members and pending messages.
///
/// Connections are not part of it: a restored room has every member away, keeping its place
/// for the reconnect grace, as after a network cut.
public struct StoredRoom: Sendable, Hashable, Codable {
  public var name: String
  /// The engine's whole state, its sequence number included.
  public var state: GroupState
  /// The number the next new member's id takes (`p1`, `p2`, …), so that ids are never reused.
  public var nextNumber: UInt64
  public var members: [StoredMember]
  /// The password verifier, for a room that has one.
  public var protection: RoomProtection?

  public init(
    name: String, state: GroupState, nextNumber: UInt64, members: [StoredMember],
    protection: RoomProtection? = nil
  ) {
    self.name = name
    self.state = state
    self.nextNumber = nextNumber
    self.members = members
    self.protection = protection
  }
}
