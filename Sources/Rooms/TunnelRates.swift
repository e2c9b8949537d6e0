/// The bytes a second a relay's tunnels may carry, in all and per room: token buckets that
/// may go into debt, so that a read already made is never held back in memory — the
/// reader is paused instead, for as long as the debt takes to pay (``charge(_:room:at:)``).
/// Also counts what was carried, for the metrics.
public struct TunnelRates: Sendable {
  public let policy: TunnelPolicy
  private var total: Bucket
  private var rooms: [String: Bucket] = [:]
  /// Bytes carried since the relay started.
  public private(set) var carried: Int64 = 0

  struct Bucket: Sendable {
    var tokens: Double
    var at: Int64

    /// Takes `amount` (into debt if need be) after refilling at `rate` up to `burst`;
    /// returns the seconds until the bucket is out of debt.
    mutating func take(_ amount: Double, at now: Int64, rate: Double, burst: Double) -> Double {
      let elapsed = Double(max(0, now &- at)) / 1e9
      tokens = min(burst, tokens + elapsed * rate)
      at = now
      tokens -= amount
      return tokens >= 0 ? 0 : -tokens / rate
    }
  }

  public init(policy: TunnelPolicy, at now: Int64) {
    self.policy = policy
    total = Bucket(tokens: Self.burst(policy.bytesPerSecond), at: now)
  }

  /// A quarter of a second at the rate, and at least a large read (64 KiB).
  static func burst(_ rate: Double) -> Double { max(65_536, rate / 4) }

  /// `bytes` read from one half of a tunnel of `room` at `now` (nanoseconds): how many
  /// seconds that half should stop reading (0: none).
  public mutating func charge(_ bytes: Int, room: String, at now: Int64) -> Double {
    carried += Int64(bytes)
    let amount = Double(bytes)
    let all = total.take(
      amount, at: now, rate: policy.bytesPerSecond, burst: Self.burst(policy.bytesPerSecond))
    let perRoom = policy.bytesPerSecondPerRoom
    var bucket = rooms[room] ?? Bucket(tokens: Self.burst(perRoom), at: now)
    let own = bucket.take(amount, at: now, rate: perRoom, burst: Self.burst(perRoom))
    rooms[room] = bucket
    return max(all, own)
  }

  /// The room has no tunnel left: its bucket goes, unless it is in debt (closing and
  /// reopening tunnels must not pay a room's debt off).
  public mutating func forget(room: String, at now: Int64) {
    guard var bucket = rooms[room] else { return }
    let perRoom = policy.bytesPerSecondPerRoom
    if bucket.take(0, at: now, rate: perRoom, burst: Self.burst(perRoom)) == 0 { rooms[room] = nil }
  }

  /// Rooms with a bucket (bounded by the rooms with tunnels).
  public var roomCount: Int { rooms.count }
}
