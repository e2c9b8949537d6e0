import PlaybackCoordination

/// The relay's group clock and the wall clock read at the same moment.
///
/// Stored instants (the timeline's anchor, wait deadlines) are on the group clock: the
/// monotonic clock of the relay that wrote them. A later run on the same boot has the same
/// monotonic clock and uses them as they are; after a reboot, or on another machine, its
/// monotonic clock counts from elsewhere, and the wall clock says how far: the new group
/// clock is offset so that it continues the old one.
public struct ClockReading: Sendable, Hashable, Codable {
  public var group: GroupInstant
  /// Nanoseconds since 1970 (`CLOCK_REALTIME`).
  public var wallNanoseconds: Int64

  public init(group: GroupInstant, wallNanoseconds: Int64) {
    self.group = group
    self.wallNanoseconds = wallNanoseconds
  }

  /// Below this, a disagreement between the two clocks is taken for wall-clock corrections
  /// (NTP slews and steps) on the same monotonic clock, not a different one: a reboot or
  /// another machine differs by the whole uptime.
  public static let sameClockTolerance: Int64 = 2_000_000_000

  /// Nanoseconds to add to the monotonic clock now (`current`) so that it continues the
  /// group clock of `stored`: zero when both are the same clock.
  public static func continuation(of stored: ClockReading, now current: ClockReading) -> Int64 {
    let elapsedWall = current.wallNanoseconds &- stored.wallNanoseconds
    let elapsedGroup = current.group.nanoseconds &- stored.group.nanoseconds
    let drift = elapsedWall &- elapsedGroup
    return abs(drift) < sameClockTolerance ? 0 : drift
  }
}
