import PlaybackCoordination
import WireProtocol

/// This participant's estimate of the relay's clock, and when to ping for it.
///
/// Pings go quickly until a window of samples fills (and again after a clock step: the
/// relay restarted, or this machine slept), then steadily; a jittery link is pinged more
/// often, since the estimate then rests on the few quick round trips among many.
struct ClockSync: Sendable {
  private var estimator = ClockOffsetEstimator()
  private(set) var estimate: ClockOffsetEstimate?
  private var schedule: ClockSyncSchedule
  private var nextPingID: UInt64 = 1
  private let pingInterval: Double
  private let jitteryPingInterval: Double
  private let jitterThreshold: Double

  init(pingInterval: Double, jitteryPingInterval: Double, jitterThreshold: Double) {
    self.pingInterval = pingInterval
    self.jitteryPingInterval = jitteryPingInterval
    self.jitterThreshold = jitterThreshold
    schedule = ClockSyncSchedule(
      fastInterval: 0.05, steadyInterval: pingInterval, samplesForSteady: 8)
  }

  /// When the next ping is due; nil: at once.
  var nextPing: LocalInstant? { schedule.nextPing }

  /// A new connection: ping at the quick pace again (the estimate stands meanwhile).
  mutating func restart() { schedule.restart() }

  /// The ping to send now, if one is due.
  mutating func ping(at now: LocalInstant) -> ClientMessage? {
    guard schedule.poll(at: now) else { return nil }
    defer { nextPingID += 1 }
    return .ping(id: nextPingID, t0: now)
  }

  /// A ping came back. Returns whether it gave the first estimate (group times mean
  /// something locally from then on).
  mutating func pong(t0: LocalInstant, t1: GroupInstant, t2: GroupInstant, at now: LocalInstant)
    -> Bool
  {
    let steps = estimator.steps
    estimator.add(ClockSample(t0: t0, t1: t1, t2: t2, t3: now))
    if estimator.steps != steps { schedule.restart() }
    schedule.sampleReceived(at: now)
    let jittery = (estimator.roundTripSpread ?? 0) > jitterThreshold
    schedule.steadyInterval = jittery ? min(jitteryPingInterval, pingInterval) : pingInterval
    let first = estimate == nil
    estimate = estimator.estimate(at: now)
    return first && estimate != nil
  }
}
