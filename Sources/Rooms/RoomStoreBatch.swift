import PlaybackCoordination
import WireProtocol

/// What changed in the rooms since the last write, as ``RelayCore/takeStoreChanges()``
/// exports it: rooms whose state changed (with the members that changed in them, and
/// those that left), and rooms that are gone. One batch is written in one transaction.
public struct RoomStoreBatch: Sendable, Hashable {
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

extension RoomChange {
  /// The state a store writes: every change the relay takes for its store has one (only a
  /// successor's feed leaves it out).
  public func storedState() throws(RoomStoreError) -> GroupState {
    guard let state else { throw RoomStoreError("a change of room \(name) without its state") }
    return state
  }
}
