/// One NTP-style exchange: the participant sends at local `t0`, the relay receives at group
/// `t1` and answers at group `t2`, the participant receives at local `t3`.
public struct ClockSample: Hashable, Sendable, Codable {
  public var t0: LocalInstant
  public var t1: GroupInstant
  public var t2: GroupInstant
  public var t3: LocalInstant
  public init(t0: LocalInstant, t1: GroupInstant, t2: GroupInstant, t3: LocalInstant) {
    self.t0 = t0
    self.t1 = t1
    self.t2 = t2
    self.t3 = t3
  }
  /// `group − local`, seconds: ((t1 − t0) + (t2 − t3)) / 2.
  public var offset: Double {
    (Double(t1.nanoseconds &- t0.nanoseconds) + Double(t2.nanoseconds &- t3.nanoseconds)) / 2e9
  }
  /// Network round-trip, seconds: (t3 − t0) − (t2 − t1).
  public var roundTrip: Double {
    (Double(t3.nanoseconds &- t0.nanoseconds) - Double(t2.nanoseconds &- t1.nanoseconds)) / 1e9
  }
}

/// The best current knowledge of `group − local`.
public struct ClockOffsetEstimate: Hashable, Sendable, Codable {
  /// `group − local`, seconds.
  public var offset: Double
  /// Round-trip of the sample the offset came from, seconds.
  public var roundTrip: Double
  /// Bound on |offset − true offset|, seconds: half the round-trip (asymmetry) plus an
  /// allowance for drift since the sample was taken.
  public var uncertainty: Double

  public init(offset: Double, roundTrip: Double, uncertainty: Double) {
    self.offset = offset
    self.roundTrip = roundTrip
    self.uncertainty = uncertainty
  }

  public func groupTime(at local: LocalInstant) -> GroupInstant {
    GroupInstant(nanoseconds: local.nanoseconds &+ Int64((offset * 1e9).rounded()))
  }
  public func localTime(at group: GroupInstant) -> LocalInstant {
    LocalInstant(nanoseconds: group.nanoseconds &- Int64((offset * 1e9).rounded()))
  }
}

/// Estimates `group − local` from four-timestamp samples: keeps a sliding window of the
/// most recent samples and trusts the one with the smallest round-trip (least room for
/// queueing asymmetry), as NTP and Jellyfin's TimeSync do.
///
/// A delayed sample (an outlier) has a large round-trip, so it never wins; a drifting clock
/// is followed because old samples leave the window. The reported uncertainty is a true
/// bound whenever each one-way delay is non-negative (always so physically) and the two
/// clocks drift apart by at most ``driftAllowance`` (seconds per second):
///
///     uncertainty = roundTrip / 2 + driftAllowance × (|now − t3| + (t3 − t0))
///
/// The first term bounds the path asymmetry; the second the drift since the sample was
/// taken, plus the drift during the exchange itself (the sample's offset is the clocks'
/// offset somewhere between `t0` and `t3`, not at `t3`).
public struct ClockOffsetEstimator: Sendable {
  /// How many recent samples are kept.
  public let windowSize: Int
  /// Largest rate difference assumed between the two clocks, seconds per second.
  public let driftAllowance: Double
  /// The valid samples in the window, oldest first.
  public private(set) var samples: [ClockSample] = []

  public init(windowSize: Int = 8, driftAllowance: Double = 100e-6) {
    self.windowSize = max(1, windowSize)
    self.driftAllowance = max(0, driftAllowance)
  }

  /// True when the sample can come from a real exchange: the reply was received after the
  /// request was sent, the relay answered after it received, and the round-trip is not
  /// negative.
  public static func isValid(_ sample: ClockSample) -> Bool {
    sample.t3 >= sample.t0 && sample.t2 >= sample.t1 && sample.roundTrip >= 0
      && sample.roundTrip.isFinite && sample.offset.isFinite
  }

  /// Adds a sample taken now; returns the updated estimate. Samples with a negative
  /// round-trip or non-monotonic timestamps are ignored (the estimate is returned as it
  /// stands, as of the newest valid sample).
  @discardableResult
  public mutating func add(_ sample: ClockSample) -> ClockOffsetEstimate? {
    guard Self.isValid(sample) else {
      return samples.last.flatMap { estimate(at: $0.t3) }
    }
    samples.append(sample)
    if samples.count > windowSize {
      samples.removeFirst(samples.count - windowSize)
    }
    return estimate(at: sample.t3)
  }

  /// The sample the estimate comes from: the smallest round-trip in the window, the newest
  /// of equals.
  public var bestSample: ClockSample? {
    var best: ClockSample?
    for sample in samples {
      if let current = best, current.roundTrip < sample.roundTrip { continue }
      best = sample
    }
    return best
  }

  /// How many valid samples the window holds.
  public var sampleCount: Int { samples.count }

  /// The estimate as of local time `now` (uncertainty grows with the age of the sample).
  public func estimate(at now: LocalInstant) -> ClockOffsetEstimate? {
    guard let best = bestSample else { return nil }
    let age = abs(now.seconds(since: best.t3))
    let exchange = best.t3.seconds(since: best.t0)
    let uncertainty = best.roundTrip / 2 + driftAllowance * (age + exchange)
    return ClockOffsetEstimate(
      offset: best.offset, roundTrip: best.roundTrip, uncertainty: uncertainty)
  }

  /// Forgets every sample, e.g. after reconnecting to another relay.
  public mutating func reset() {
    samples.removeAll()
  }
}
