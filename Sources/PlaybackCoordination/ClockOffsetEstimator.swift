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

/// The best current knowledge of `group − local`, as of local time ``reference``, and how
/// it changes from there (``skew``), so that it stays right between clock samples.
public struct ClockOffsetEstimate: Hashable, Sendable, Codable {
  /// `group − local` at ``reference``, seconds.
  public var offset: Double
  /// Round-trip of the quickest sample the estimate rests on, seconds.
  public var roundTrip: Double
  /// Bound on |offset − true offset| at ``reference``, seconds: half the quickest
  /// round-trip (path asymmetry), how far the estimate strays from that sample, and an
  /// allowance for drift since it was taken.
  public var uncertainty: Double
  /// How fast `group − local` changes, seconds per local second (the two clocks' frequency
  /// difference; 1e-4 = 100 ppm).
  public var skew: Double
  /// The local instant ``offset`` and ``uncertainty`` refer to.
  public var reference: LocalInstant

  public init(
    offset: Double, roundTrip: Double, uncertainty: Double, skew: Double = 0,
    reference: LocalInstant = LocalInstant(nanoseconds: 0)
  ) {
    self.offset = offset
    self.roundTrip = roundTrip
    self.uncertainty = uncertainty
    self.skew = skew
    self.reference = reference
  }

  /// `group − local` at local time `local`, seconds.
  public func offset(at local: LocalInstant) -> Double {
    guard skew != 0 else { return offset }
    return offset + skew * local.seconds(since: reference)
  }

  public func groupTime(at local: LocalInstant) -> GroupInstant {
    GroupInstant(nanoseconds: local.nanoseconds &+ Int64((offset(at: local) * 1e9).rounded()))
  }

  public func localTime(at group: GroupInstant) -> LocalInstant {
    guard skew != 0 else {
      return LocalInstant(nanoseconds: group.nanoseconds &- Int64((offset * 1e9).rounded()))
    }
    // group = local + offset + skew × (local − reference), solved for local.
    let guess = LocalInstant(nanoseconds: group.nanoseconds &- Int64((offset * 1e9).rounded()))
    let correction = skew * guess.seconds(since: reference) / (1 + skew)
    return guess.advanced(bySeconds: -correction)
  }
}

/// Estimates `group − local` from four-timestamp samples, robustly on jittery links.
///
/// NTP's clock filter trusts the quickest sample of the last eight: its offset is off by at
/// most half its round-trip, and on a quiet link that is tiny. Behind a jittery link even
/// the quickest of eight is often off by several milliseconds. This estimator keeps every
/// sample of the last ``windowSeconds`` and averages the quickest quarter of them, whose
/// path asymmetries mostly cancel; delayed samples (outliers) have long round-trips and
/// never count. Averaging over a minute would lag a drifting clock, so it also tracks the
/// clocks' frequency difference (``ClockOffsetEstimate/skew``): a line through one
/// filtered point per ``skewBlockSeconds`` over the last few minutes, shrunk towards zero
/// by its own standard error so that jitter does not pass for drift. The estimate is
/// extrapolated along it, and stays right between pings.
///
/// A sample whose offset interval (offset ± round-trip/2, where the truth must lie when
/// one-way delays are non-negative) does not meet the current estimate's bound proves that
/// a clock stepped (a relay restart, a machine resumed from sleep): the window is cleared
/// at once and the estimate starts over from that sample (``steps`` counts these).
///
/// The reported uncertainty is a true bound whenever each one-way delay is non-negative
/// and the clocks drift apart by at most ``driftAllowance``: for the quickest sample `b` of
/// the window, `|estimate(b) − b.offset| + b.roundTrip / 2 + driftAllowance × (|now − b.t3|
/// + (b.t3 − b.t0)) + |skew| × |now − b.t3|`.
public struct ClockOffsetEstimator: Sendable {
  /// Most samples kept, whatever their age.
  public let windowSize: Int
  /// Samples older than this are dropped, seconds.
  public let windowSeconds: Double
  /// Largest rate difference assumed between the two clocks, seconds per second.
  public let driftAllowance: Double
  /// Largest skew believed; real clocks differ by a few hundred ppm at most.
  public let maximumSkew: Double
  /// One filtered point for the skew line per this many seconds.
  public let skewBlockSeconds: Double
  /// How many such points the skew line goes through (the newest).
  public let skewBlocks: Int
  /// The valid samples in the window, oldest first.
  public private(set) var samples: [ClockSample] = []
  /// How many clock steps were detected (each cleared the window).
  public private(set) var steps = 0
  /// Filtered `(time, offset)` points for the skew line, oldest first.
  private var blocks: [(at: LocalInstant, offset: Double)] = []
  private var skew = 0.0
  private var fit: Fit?

  private struct Fit: Sendable {
    /// The mean offset of the quickest samples at their mean (midpoint) time.
    var offset: Double
    var at: LocalInstant
    /// The quickest sample of the window.
    var best: ClockSample
  }

  public init(
    windowSize: Int = 512, windowSeconds: Double = 64, driftAllowance: Double = 100e-6,
    maximumSkew: Double = 500e-6, skewBlockSeconds: Double = 16, skewBlocks: Int = 16
  ) {
    self.windowSize = max(1, windowSize)
    self.windowSeconds = max(0, windowSeconds)
    self.driftAllowance = max(0, driftAllowance)
    self.maximumSkew = max(0, maximumSkew)
    self.skewBlockSeconds = max(0.001, skewBlockSeconds)
    self.skewBlocks = max(2, skewBlocks)
  }

  /// True when the sample can come from a real exchange: the reply was received after the
  /// request was sent, the relay answered after it received, and the round-trip is not
  /// negative.
  public static func isValid(_ sample: ClockSample) -> Bool {
    sample.t3 >= sample.t0 && sample.t2 >= sample.t1 && sample.roundTrip >= 0
      && sample.roundTrip.isFinite && sample.offset.isFinite
  }

  /// Adds a sample taken now; returns the updated estimate as of the sample's arrival.
  /// Samples with a negative round-trip or non-monotonic timestamps are ignored (the
  /// estimate is returned as it stands, as of the newest valid sample).
  @discardableResult
  public mutating func add(_ sample: ClockSample) -> ClockOffsetEstimate? {
    guard Self.isValid(sample) else {
      return samples.last.flatMap { estimate(at: $0.t3) }
    }
    if let current = estimate(at: sample.t3) {
      // The truth lies within the sample's interval and within the estimate's bound: if
      // the two do not meet, a clock stepped.
      let predicted = current.offset(at: Self.midpoint(sample))
      let slack = driftAllowance * sample.t3.seconds(since: sample.t0) + 1e-6
      if abs(sample.offset - predicted) > sample.roundTrip / 2 + current.uncertainty + slack {
        samples.removeAll()
        blocks.removeAll()
        skew = 0
        steps += 1
      }
    }
    samples.append(sample)
    let oldest = sample.t3.advanced(bySeconds: -windowSeconds)
    if let keep = samples.firstIndex(where: { $0.t3 >= oldest }), keep > 0 {
      samples.removeFirst(keep)
    }
    if samples.count > windowSize { samples.removeFirst(samples.count - windowSize) }
    fit = Self.filter(samples)
    updateSkew(at: sample.t3)
    return estimate(at: sample.t3)
  }

  /// The quickest sample of the window: the smallest round-trip, the newest of equals.
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

  /// How much slower than the quickest a typical exchange is (median − minimum round-trip),
  /// seconds: a jittery link needs more samples for the same precision.
  public var roundTripSpread: Double? {
    guard !samples.isEmpty else { return nil }
    let trips = samples.map { $0.roundTrip }.sorted()
    return trips[trips.count / 2] - trips[0]
  }

  /// The estimate as of local time `now` (its uncertainty grows with the age of the
  /// samples).
  public func estimate(at now: LocalInstant) -> ClockOffsetEstimate? {
    guard let fit else { return nil }
    let best = fit.best
    let age = abs(now.seconds(since: best.t3))
    let exchange = best.t3.seconds(since: best.t0)
    let atBest = fit.offset + skew * Self.midpoint(best).seconds(since: fit.at)
    let uncertainty =
      abs(atBest - best.offset) + best.roundTrip / 2 + driftAllowance * (age + exchange)
      + abs(skew) * age
    return ClockOffsetEstimate(
      offset: fit.offset + skew * now.seconds(since: fit.at), roundTrip: best.roundTrip,
      uncertainty: uncertainty, skew: skew, reference: now)
  }

  /// Forgets every sample, e.g. after reconnecting to another relay.
  public mutating func reset() {
    samples.removeAll()
    blocks.removeAll()
    skew = 0
    fit = nil
  }

  /// Adds a filtered point for the skew line once a block's time has passed, and refits.
  private mutating func updateSkew(at now: LocalInstant) {
    if let last = blocks.last, now.seconds(since: last.at) < skewBlockSeconds { return }
    let start = now.advanced(bySeconds: -skewBlockSeconds)
    guard let point = Self.filter(samples.filter { $0.t3 >= start }) else { return }
    if let last = blocks.last, point.at <= last.at { return }
    blocks.append((point.at, point.offset))
    if blocks.count > skewBlocks { blocks.removeFirst(blocks.count - skewBlocks) }
    guard blocks.count >= 4,
      let first = blocks.first, let last = blocks.last,
      last.at.seconds(since: first.at) >= 3 * skewBlockSeconds
    else {
      skew = 0
      return
    }
    let origin = first.at
    let points = blocks.map { ($0.at.seconds(since: origin), $0.offset) }
    let n = Double(points.count)
    let meanT = points.map { $0.0 }.reduce(0, +) / n
    let meanOffset = points.map { $0.1 }.reduce(0, +) / n
    var sxx = 0.0
    var sxy = 0.0
    for (t, o) in points {
      sxx += (t - meanT) * (t - meanT)
      sxy += (t - meanT) * (o - meanOffset)
    }
    guard sxx > 0 else { return }
    let slope = sxy / sxx
    var residuals = 0.0
    for (t, o) in points {
      let r = o - meanOffset - slope * (t - meanT)
      residuals += r * r
    }
    let variance = residuals / max(1, n - 2) / sxx
    // Shrunk by its own noise: a slope no larger than its standard error counts little.
    let shrunk = slope * slope * slope / (slope * slope + variance)
    skew = slope == 0 ? 0 : min(max(shrunk, -maximumSkew), maximumSkew)
  }

  private static func midpoint(_ s: ClockSample) -> LocalInstant {
    LocalInstant(nanoseconds: s.t0.nanoseconds + (s.t3.nanoseconds - s.t0.nanoseconds) / 2)
  }

  /// The mean offset and mean time of the quickest quarter (at least one) of `samples`.
  private static func filter(_ samples: [ClockSample]) -> Fit? {
    guard !samples.isEmpty else { return nil }
    let count = max(1, samples.count / 4)
    // Quickest first; of equal round-trips, the newest first.
    let order = samples.indices.sorted { a, b in
      samples[a].roundTrip != samples[b].roundTrip
        ? samples[a].roundTrip < samples[b].roundTrip : a > b
    }
    let chosen = order.prefix(count).map { samples[$0] }
    let best = chosen[0]
    let origin = midpoint(best)
    let n = Double(chosen.count)
    let meanT = chosen.map { midpoint($0).seconds(since: origin) }.reduce(0, +) / n
    let meanOffset = chosen.map { $0.offset }.reduce(0, +) / n
    return Fit(offset: meanOffset, at: origin.advanced(bySeconds: meanT), best: best)
  }
}
