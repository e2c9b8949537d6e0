/// One entry of a room's shared queue: what the group watches next, and who put it there.
/// Entries are named by a number the room gives them, never by their place, so that two
/// people editing the queue at once each change the entry they saw.
public struct QueueEntry: Hashable, Sendable {
  public var id: UInt64
  /// The series the item belongs to: after it, auto-advance goes on to its next episode
  /// when the queue is empty.
  public var series: SeriesInfo
  public var item: ItemID
  public var addedBy: ParticipantID
  /// Their name when they added it, so that "added by" survives their leaving.
  public var addedByName: String

  public init(
    id: UInt64, series: SeriesInfo, item: ItemID, addedBy: ParticipantID, addedByName: String
  ) {
    self.id = id
    self.series = series
    self.item = item
    self.addedBy = addedBy
    self.addedByName = addedByName
  }

  /// The entry's item, as its series describes it.
  public var info: ItemInfo? { series.item(item) }

  /// About how many bytes the entry takes on the wire: the queue is part of every welcome
  /// and every whole state, so its size is bounded (``GroupState/maximumQueueBytes``).
  public var estimatedBytes: Int {
    64 + series.id.utf8.count + series.title.utf8.count + item.rawValue.utf8.count
      + addedByName.utf8.count
      + series.items.reduce(0) { $0 + 48 + $1.id.rawValue.utf8.count + $1.title.utf8.count }
  }
}
