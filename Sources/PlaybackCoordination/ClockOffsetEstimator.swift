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
public struct ClockOffsetEstimator: Sendable {
  public init(windowSize: Int = 8, driftAllowance: Double = 100e-6) {
    fatalError("implemented by the engine work")
  }

  /// Adds a sample taken now; returns the updated estimate. Samples with a negative
  /// round-trip or non-monotonic timestamps are ignored.
  @discardableResult
  public mutating func add(_ sample: ClockSample) -> ClockOffsetEstimate? {
    fatalError("implemented by the engine work")
  }

  /// The estimate as of local time `now` (uncertainty grows with the age of the sample).
  public func estimate(at now: LocalInstant) -> ClockOffsetEstimate? {
    fatalError("implemented by the engine work")
  }
}
