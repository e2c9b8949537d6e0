import PlaybackCoordination

/// What the driver learns of this mpv's timing as it plays: how long a seek takes, how
/// late an unpause starts, how long a speed change takes to reach the picture, and how
/// quick an exchange over its socket is (a slow one gives a reading believed in part).
///
/// Online estimators, each cautious in its own way: the seek latency rises at once and
/// falls slowly (a late switch costs a restart), the others move by a fraction of what
/// each measurement says and only within bounds that a measurement can be trusted for.
struct MpvTiming: Sendable {
  /// A seek's preparation time, seconds.
  private(set) var seekLatency: Double
  /// How early `pause=false` is sent before a scheduled start, seconds.
  private(set) var unpauseLead: Double
  /// How long mpv takes to follow a speed change, seconds.
  private(set) var speedDelay: Double
  /// The quickest recent exchange with mpv (rises slowly when they all slow down), seconds.
  private var quickestExchange: Double?
  private let trustedExchange: Double

  init(configuration: MpvPlaybackMachine.Configuration) {
    seekLatency = configuration.defaultSeekLatency
    unpauseLead = configuration.unpauseLead
    speedDelay = configuration.speedDelay
    trustedExchange = configuration.trustedExchange
  }

  /// A seek took `measured` seconds to land.
  mutating func seekTook(_ measured: Double) {
    let measured = min(max(0, measured), 5)
    seekLatency = max(measured, 0.8 * seekLatency + 0.2 * measured)
  }

  /// A scheduled start began `delay` seconds after its `pause=false` went out. Only a
  /// plausible delay teaches the lead (a loaded machine's misses are not mpv's).
  mutating func unpauseTook(_ delay: Double) {
    guard delay > -0.01, delay < 0.05 else { return }
    unpauseLead = min(max(0, 0.7 * unpauseLead + 0.3 * delay), 0.05)
  }

  /// A speed change reached the picture `error` (a fraction of the delay) later than
  /// assumed.
  mutating func speedDelayWasOff(by error: Double) {
    guard abs(error) < 0.5 else { return }
    speedDelay = min(max(speedDelay + 0.3 * error, 0), 1)
  }

  /// An exchange with mpv took `exchange` seconds: how much its reading is believed, 1 in
  /// full. One this quick, or at most twice the quickest lately, is; a slower one by
  /// `(trusted / exchange)²`.
  mutating func exchanged(in exchange: Double) -> Double {
    let quickest = min(exchange, quickestExchange.map { $0 + 0.05 * (exchange - $0) } ?? exchange)
    quickestExchange = quickest
    let trusted = max(2 * quickest, trustedExchange)
    return exchange <= trusted ? 1 : (trusted / exchange) * (trusted / exchange)
  }

  /// How much of a reading's `deviation` from the model to take: what lies within half
  /// its exchange (where the midpoint may be off) at `weight`, anything beyond in full — a
  /// gap larger than the reading's own uncertainty is real however slow the exchange, and
  /// a loaded machine, all of whose exchanges are slow, must still follow mpv.
  static func believable(_ deviation: Double, weight: Double, exchange: Double) -> Double {
    let uncertainty = exchange / 2
    let within = min(max(deviation, -uncertainty), uncertainty)
    return weight * within + (deviation - within)
  }
}
