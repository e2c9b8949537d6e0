/// When to send the next clock-sync ping: quickly until the estimator's window is full (a
/// good estimate soon after connecting), then at a slow steady pace that only has to keep
/// up with drift. Jellyfin polls every 1 s and then every 60 s; the defaults here are
/// faster because pings are tiny and a fresher sample narrows the uncertainty.
///
/// Pure: the caller passes the local time and sends the ping itself.
public struct ClockSyncSchedule: Hashable, Sendable {
  /// Interval between pings until ``samplesForSteady`` samples have arrived, seconds.
  public var fastInterval: Double
  /// Interval between pings afterwards, seconds.
  public var steadyInterval: Double
  /// Samples needed before slowing down (the estimator's window size).
  public var samplesForSteady: Int
  /// Valid samples received since the start (or the last ``restart()``).
  public private(set) var samplesReceived: Int = 0
  /// When the last ping was sent; nil before the first.
  public private(set) var lastPingAt: LocalInstant?

  public init(fastInterval: Double = 0.25, steadyInterval: Double = 5, samplesForSteady: Int = 8) {
    self.fastInterval = fastInterval
    self.steadyInterval = steadyInterval
    self.samplesForSteady = samplesForSteady
  }

  /// True once enough samples have arrived to poll at the steady pace.
  public var isSteady: Bool { samplesReceived >= samplesForSteady }

  /// The current interval between pings, seconds.
  public var interval: Double { isSteady ? steadyInterval : fastInterval }

  /// When the next ping is due; nil if one is due at once (nothing sent yet).
  public var nextPing: LocalInstant? { lastPingAt?.advanced(bySeconds: interval) }

  public func isDue(at now: LocalInstant) -> Bool {
    guard let next = nextPing else { return true }
    return now >= next
  }

  /// Records that a ping was sent at `now`.
  public mutating func pingSent(at now: LocalInstant) {
    lastPingAt = now
  }

  /// Records that a valid sample (an answered ping) arrived at `now`. A lost ping needs no
  /// call: the next one is simply sent an interval later.
  public mutating func sampleReceived(at now: LocalInstant) {
    samplesReceived += 1
  }

  /// If a ping is due at `now`, records it as sent and returns true: the caller sends it.
  public mutating func poll(at now: LocalInstant) -> Bool {
    guard isDue(at: now) else { return false }
    pingSent(at: now)
    return true
  }

  /// Starts over at the fast pace, e.g. after a reconnection (the estimator is reset too).
  public mutating func restart() {
    samplesReceived = 0
    lastPingAt = nil
  }
}
