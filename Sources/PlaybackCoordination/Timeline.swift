/// The group timeline anchor: at group time ``groupTime`` the item is at ``itemTime``,
/// moving at ``rate`` (0 = paused).
///
/// A change that every player must make at one instant — a start, a seek while playing, a
/// rate change — puts ``groupTime`` slightly in the future. Until then the position follows
/// the *lead-in*: the line the group was on, which at ``groupTime`` would reach
/// ``priorItemTime`` moving at ``priorRate``. A start from pause holds (`priorRate` 0 at
/// ``itemTime``), so the position never runs backwards; a seek while playing keeps playing
/// the old spot until the switch, so nobody is expected at the new spot before anyone
/// else; a rate change continues the old line and bends at ``groupTime``.
public struct Timeline: Hashable, Sendable {
  /// Item time P, in seconds.
  public var itemTime: Double
  /// Group time T.
  public var groupTime: GroupInstant
  /// Playback rate; 0 when paused.
  public var rate: Double
  /// Where the lead-in line would be at ``groupTime``, seconds.
  public var priorItemTime: Double
  /// The lead-in line's rate (0: held).
  public var priorRate: Double

  /// A timeline that holds at `itemTime` until `groupTime` (no moving lead-in).
  public init(itemTime: Double, groupTime: GroupInstant, rate: Double) {
    self.init(
      itemTime: itemTime, groupTime: groupTime, rate: rate, priorItemTime: itemTime, priorRate: 0)
  }

  public init(
    itemTime: Double, groupTime: GroupInstant, rate: Double, priorItemTime: Double,
    priorRate: Double
  ) {
    self.itemTime = itemTime
    self.groupTime = groupTime
    self.rate = rate
    self.priorItemTime = priorItemTime
    self.priorRate = priorRate
  }

  /// A change at future group time `at` to `itemTime` and `rate`, led in by this timeline:
  /// until `at` the position goes on as it does now (exactly, from `now` on, unless this
  /// timeline itself has a change between `now` and `at`).
  public func changing(
    at: GroupInstant, to itemTime: Double, rate: Double, now: GroupInstant
  ) -> Timeline {
    let current = position(at: now)
    let currentRate = now >= groupTime ? self.rate : priorRate
    return Timeline(
      itemTime: itemTime, groupTime: at, rate: rate,
      priorItemTime: current + currentRate * at.seconds(since: now), priorRate: currentRate)
  }

  /// True when the lead-in holds still (a start from pause, or no change pending).
  public var holdsBefore: Bool { priorRate == 0 && priorItemTime == itemTime }

  /// `P + rate × (t − T)` from `T` on; before `T`, the lead-in line
  /// `priorItemTime + priorRate × (t − T)`. Not clamped to the item's duration.
  public func position(at t: GroupInstant) -> Double {
    if t >= groupTime {
      guard rate != 0 else { return itemTime }
      return itemTime + rate * t.seconds(since: groupTime)
    }
    guard priorRate != 0 else { return priorItemTime }
    return priorItemTime + priorRate * t.seconds(since: groupTime)
  }

  /// The rate the position moves at, at group time `t`.
  public func rate(at t: GroupInstant) -> Double { t >= groupTime ? rate : priorRate }

  /// The group time at which the timeline reaches `itemTime`, if it moves forward to it
  /// (after ``groupTime``; the lead-in is not searched).
  public func groupTime(reaching target: Double) -> GroupInstant? {
    guard rate > 0 else { return nil }
    if target <= itemTime { return groupTime }
    return groupTime.advanced(bySeconds: (target - itemTime) / rate)
  }
}
