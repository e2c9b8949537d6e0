import PlaybackCoordination
import WireProtocol

/// What changed in the rooms since the last write, as ``RelayCore/takeStoreChanges()``
/// exports it: rooms whose state changed (with the members that changed in them, and
/// those that left), and rooms that are gone. One batch is written in one transaction.
public struct RoomStoreBatch: Sendable, Hashable {
  public struct RoomChange: Sendable, Hashable {
    public var name: String
    public var state: GroupState
    public var nextNumber: UInt64
    /// Members that are new or changed.
    public var members: [StoredMember]
    /// Members that left.
    public var departed: [ParticipantID]
    /// The password verifier, for a room that has one.
    public var protection: RoomProtection?

    public init(
      name: String, state: GroupState, nextNumber: UInt64, members: [StoredMember],
      departed: [ParticipantID], protection: RoomProtection? = nil
    ) {
      self.name = name
      self.state = state
      self.nextNumber = nextNumber
      self.members = members
      self.departed = departed
      self.protection = protection
    }
  }

  public var changed: [RoomChange]
  public var removed: [String]
  /// The relay's clocks when the batch was taken: the group clock the stored instants are
  /// on, and the wall clock that lets a later run translate them (see ``ClockReading``).
  public var clock: ClockReading

  public init(changed: [RoomChange] = [], removed: [String] = [], clock: ClockReading) {
    self.changed = changed
    self.removed = removed
    self.clock = clock
  }

  public var isEmpty: Bool { changed.isEmpty && removed.isEmpty }
  /// Rows the batch writes (rooms, members, departures, removals): what "store writes"
  /// counts.
  public var rowCount: Int {
    changed.reduce(removed.count) { $0 + 1 + $1.members.count + $1.departed.count }
  }
}
