import PlaybackCoordination

/// A sustained rate with a burst: each message takes a token; tokens come back at
/// ``rate`` a second, up to ``burst``. A connection whose bucket is empty sends faster
/// than the relay serves anyone.
struct TokenBucket: Sendable {
  private(set) var tokens: Double
  private var at: GroupInstant

  /// A full bucket at `now`.
  init(burst: Double, at now: GroupInstant) {
    tokens = burst
    at = now
  }

  /// Takes a token at `now` if there is one (after refilling at `rate` up to `burst`).
  mutating func take(
    _ amount: Double = 1, at now: GroupInstant, rate: Double, burst: Double
  ) -> Bool {
    let elapsed = max(0, now.seconds(since: at))
    tokens = min(burst, tokens + elapsed * rate)
    at = now
    guard tokens >= amount else { return false }
    tokens -= amount
    return true
  }
}
