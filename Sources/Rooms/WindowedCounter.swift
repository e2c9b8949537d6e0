import PlaybackCoordination

/// Counts events per key (an address, a room) in fixed windows: the first event of a key
/// opens its window, and a window older than ``window`` seconds starts again from zero.
///
/// The relay's guards against guessing (wrong resume secrets, wrong passwords) use it: a
/// key past its limit waits out its window. ``forgetExpired(at:)`` drops the keys whose
/// window has passed, so the table holds only the keys that are counting now.
struct WindowedCounter<Key: Hashable & Sendable>: Sendable {
  private struct Count: Sendable {
    var count: Int
    var since: GroupInstant
  }

  /// Seconds a window lasts.
  let window: Double
  private var counts: [Key: Count] = [:]
  init(window: Double) { self.window = window }

  /// Counts one event for `key` at `now`; returns the count in its window, this one
  /// included.
  mutating func record(_ key: Key, at now: GroupInstant) -> Int {
    var entry = counts[key] ?? Count(count: 0, since: now)
    if now.seconds(since: entry.since) > window { entry = Count(count: 0, since: now) }
    entry.count += 1
    counts[key] = entry
    return entry.count
  }

  /// Drops the keys whose window has passed.
  mutating func forgetExpired(at now: GroupInstant) {
    guard !counts.isEmpty else { return }
    counts = counts.filter { now.seconds(since: $0.value.since) <= window }
  }

  /// The count for `key` in its window at `now` (0 once the window has passed).
  func count(_ key: Key, at now: GroupInstant) -> Int {
    guard let entry = counts[key], now.seconds(since: entry.since) <= window else { return 0 }
    return entry.count
  }
}
