/// The group timeline anchor: at group time ``groupTime`` the item is at ``itemTime``,
/// moving at ``rate`` (0 = paused).
///
/// A start is scheduled by putting ``groupTime`` slightly in the future; until then the
/// position holds at ``itemTime`` so that it never runs backwards.
public struct Timeline: Hashable, Sendable {
  /// Item time P, in seconds.
  public var itemTime: Double
  /// Group time T.
  public var groupTime: GroupInstant
  /// Playback rate; 0 when paused.
  public var rate: Double

  public init(itemTime: Double, groupTime: GroupInstant, rate: Double) {
    self.itemTime = itemTime
    self.groupTime = groupTime
    self.rate = rate
  }

  /// `P + rate × (t − T)`, held at `P` before `T`. Not clamped to the item's duration.
  public func position(at t: GroupInstant) -> Double {
    guard rate != 0, t > groupTime else { return itemTime }
    return itemTime + rate * t.seconds(since: groupTime)
  }

  /// The group time at which the timeline reaches `itemTime`, if it moves forward to it.
  public func groupTime(reaching target: Double) -> GroupInstant? {
    guard rate > 0 else { return nil }
    if target <= itemTime { return groupTime }
    return groupTime.advanced(bySeconds: (target - itemTime) / rate)
  }
}
