import Testing

@testable import PlaybackCoordination

/// A simulated pair of clocks: the local clock is the reference; the group clock runs at
/// `1 + drift` of it and starts `initialOffset` ahead. Produces exchanges with chosen
/// one-way delays (in local seconds).
struct SyncClockPair {
  var initialOffset: Double
  var drift: Double

  /// The true `group − local` at local time `local` (seconds).
  func trueOffset(atLocal local: Double) -> Double { initialOffset + drift * local }

  func group(atLocal local: Double) -> GroupInstant {
    GroupInstant(seconds: local + trueOffset(atLocal: local))
  }

  /// An exchange sent at local `sentAt`, with the given delays and relay processing time.
  func exchange(sentAt: Double, outbound: Double, processing: Double, inbound: Double)
    -> ClockSample
  {
    let received = sentAt + outbound
    let answered = received + processing
    let back = answered + inbound
    return ClockSample(
      t0: LocalInstant(seconds: sentAt), t1: group(atLocal: received),
      t2: group(atLocal: answered), t3: LocalInstant(seconds: back))
  }
}

/// Rounding every timestamp to whole nanoseconds costs at most a few of them.
private let syncNanosecondSlack = 1e-8

@Suite("ClockOffsetEstimator")
struct ClockOffsetEstimatorTests {
  @Test("offset and round-trip follow the NTP four-timestamp formulas")
  func clockOffsetSampleArithmetic() {
    // Local sends at 10, relay (offset +100) receives at 110.02, answers at 110.03,
    // reply arrives at local 10.05: 20 ms out, 10 ms processing, 20 ms back.
    let sample = ClockSample(
      t0: LocalInstant(seconds: 10), t1: GroupInstant(seconds: 110.02),
      t2: GroupInstant(seconds: 110.03), t3: LocalInstant(seconds: 10.05))
    #expect(abs(sample.offset - 100) < 1e-9)
    #expect(abs(sample.roundTrip - 0.04) < 1e-9)
    // Asymmetric: 30 ms out, 10 ms back: the offset is off by half the difference.
    let skewed = ClockSample(
      t0: LocalInstant(seconds: 10), t1: GroupInstant(seconds: 110.03),
      t2: GroupInstant(seconds: 110.04), t3: LocalInstant(seconds: 10.05))
    #expect(abs(skewed.offset - 100.01) < 1e-9)
    #expect(abs(skewed.roundTrip - 0.04) < 1e-9)
  }

  @Test("the estimate converts between local and group time both ways")
  func clockOffsetEstimateConversions() {
    let estimate = ClockOffsetEstimate(offset: -2.5, roundTrip: 0.01, uncertainty: 0.005)
    let local = LocalInstant(seconds: 1000)
    #expect(estimate.groupTime(at: local) == GroupInstant(seconds: 997.5))
    #expect(estimate.localTime(at: estimate.groupTime(at: local)) == local)
  }

  @Test("no samples, no estimate")
  func clockOffsetEmptyEstimator() {
    let estimator = ClockOffsetEstimator()
    #expect(estimator.estimate(at: LocalInstant(seconds: 1)) == nil)
    #expect(estimator.bestSample == nil)
  }

  @Test("the minimum round-trip sample of the window wins")
  func clockOffsetMinimumDelaySelection() throws {
    let clocks = SyncClockPair(initialOffset: 50, drift: 0)
    var estimator = ClockOffsetEstimator(windowSize: 8, driftAllowance: 0)
    // Round-trips 30, 12, 40, 4 (asymmetric: 3 out, 1 back), 25 ms.
    let delays: [(Double, Double)] = [
      (0.015, 0.015), (0.006, 0.006), (0.030, 0.010), (0.003, 0.001), (0.005, 0.020),
    ]
    var last: ClockOffsetEstimate?
    for (i, d) in delays.enumerated() {
      last = estimator.add(
        clocks.exchange(sentAt: Double(i), outbound: d.0, processing: 0.001, inbound: d.1))
    }
    let estimate = try #require(last)
    #expect(abs(estimate.roundTrip - 0.004) < syncNanosecondSlack)
    // Half the asymmetry: (3 − 1) / 2 = 1 ms off, within the 2 ms uncertainty.
    #expect(abs(estimate.offset - 50.001) < syncNanosecondSlack)
    #expect(abs(estimate.uncertainty - 0.002) < syncNanosecondSlack)
    #expect(estimator.bestSample?.t0 == LocalInstant(seconds: 3))
  }

  @Test("old samples leave the window even if they were the best")
  func clockOffsetWindowSlides() throws {
    let clocks = SyncClockPair(initialOffset: 7, drift: 0)
    var estimator = ClockOffsetEstimator(windowSize: 3, driftAllowance: 0)
    estimator.add(clocks.exchange(sentAt: 0, outbound: 0.001, processing: 0, inbound: 0.001))
    for i in 1...3 {
      estimator.add(
        clocks.exchange(sentAt: Double(i), outbound: 0.01, processing: 0, inbound: 0.01))
    }
    #expect(estimator.sampleCount == 3)
    let estimate = try #require(estimator.estimate(at: LocalInstant(seconds: 4)))
    #expect(abs(estimate.roundTrip - 0.02) < syncNanosecondSlack)
  }

  @Test("the uncertainty grows with the age of the sample")
  func clockOffsetUncertaintyGrowsWithAge() throws {
    let clocks = SyncClockPair(initialOffset: 1, drift: 0)
    var estimator = ClockOffsetEstimator(windowSize: 8, driftAllowance: 100e-6)
    estimator.add(clocks.exchange(sentAt: 10, outbound: 0.002, processing: 0, inbound: 0.002))
    let fresh = try #require(estimator.estimate(at: LocalInstant(seconds: 10.004)))
    let old = try #require(estimator.estimate(at: LocalInstant(seconds: 110.004)))
    #expect(abs(fresh.uncertainty - (0.002 + 100e-6 * 0.004)) < syncNanosecondSlack)
    #expect(abs(old.uncertainty - fresh.uncertainty - 100e-6 * 100) < syncNanosecondSlack)
    #expect(old.offset == fresh.offset)
  }

  @Test("invalid samples are ignored")
  func clockOffsetIgnoresInvalidSamples() {
    let clocks = SyncClockPair(initialOffset: 3, drift: 0)
    var estimator = ClockOffsetEstimator()
    let good = clocks.exchange(sentAt: 1, outbound: 0.01, processing: 0.001, inbound: 0.01)
    estimator.add(good)
    // Reply before request.
    var backwards = good
    backwards.t3 = LocalInstant(seconds: 0.5)
    // Relay answered before it received.
    var answeredEarly = good
    answeredEarly.t2 = good.t1.advanced(bySeconds: -0.001)
    // Processing longer than the whole exchange: negative round-trip.
    var negative = good
    negative.t2 = good.t1.advanced(bySeconds: 1)
    for bad in [backwards, answeredEarly, negative] {
      #expect(!ClockOffsetEstimator.isValid(bad))
      let estimate = estimator.add(bad)
      #expect(estimate?.offset == good.offset)
    }
    #expect(estimator.sampleCount == 1)
    #expect(estimator.bestSample == good)

    var empty = ClockOffsetEstimator()
    #expect(empty.add(negative) == nil)
    #expect(empty.sampleCount == 0)
  }

  @Test(
    "the true offset stays within the reported uncertainty under jitter and outliers",
    arguments: [UInt64(1), 2, 3, 42])
  func clockOffsetBoundHoldsUnderJitter(seed: UInt64) throws {
    var rng = SeededGenerator(seed: seed)
    let clocks = SyncClockPair(initialOffset: rng.uniform(-1000...1000), drift: 0)
    var estimator = ClockOffsetEstimator(windowSize: 8, driftAllowance: 100e-6)
    var local = 5.0
    var worstError = 0.0
    for i in 0..<5000 {
      let base = 0.0005
      var outbound = base + rng.uniform(0...0.003)
      var inbound = base + rng.uniform(0...0.003)
      switch i % 3 {
      case 1: outbound += rng.uniform(0...0.02)  // asymmetric: slow uplink
      case 2: inbound += rng.uniform(0...0.02)  // asymmetric: slow downlink
      default: break  // symmetric jitter
      }
      if rng.chance(0.1) {
        // An outlier: one direction queued for a long time.
        if rng.chance(0.5) {
          outbound += rng.uniform(0.05...0.5)
        } else {
          inbound += rng.uniform(0.05...0.5)
        }
      }
      let sample = clocks.exchange(
        sentAt: local, outbound: outbound, processing: rng.uniform(0...0.002), inbound: inbound)
      let added = estimator.add(sample)
      let estimate = try #require(added)
      let at = sample.t3.seconds
      let error = abs(estimate.offset - clocks.trueOffset(atLocal: at))
      #expect(error <= estimate.uncertainty + syncNanosecondSlack)
      // Later, before the next sample, the bound still holds.
      let later = at + rng.uniform(0...2)
      let aged = try #require(estimator.estimate(at: LocalInstant(seconds: later)))
      #expect(
        abs(aged.offset - clocks.trueOffset(atLocal: later))
          <= aged.uncertainty + syncNanosecondSlack)
      if i >= 8 {
        // Once the window is full, outliers never win: the chosen sample is a quick one.
        #expect(estimate.roundTrip < 0.05)
        worstError = max(worstError, error)
      }
      local = later + rng.uniform(0.01...1)
    }
    // Outliers are not steps.
    #expect(estimator.steps == 0)
    // And the estimate is actually good, not just honestly bounded.
    #expect(worstError < 0.012)
  }

  @Test("a clock drifting at 50 ppm is tracked within the bound", arguments: [50e-6, -50e-6])
  func clockOffsetTracksDrift(drift: Double) {
    var rng = SeededGenerator(seed: 7)
    let clocks = SyncClockPair(initialOffset: 12.5, drift: drift)
    var estimator = ClockOffsetEstimator(windowSize: 8, driftAllowance: 100e-6)
    var schedule = ClockSyncSchedule(fastInterval: 0.25, steadyInterval: 5, samplesForSteady: 8)
    var local = 0.0
    var checks = 0
    // Two hours: the offset moves by 360 ms in that time.
    while local < 7200 {
      if schedule.poll(at: LocalInstant(seconds: local)) {
        var outbound = 0.001 + rng.uniform(0...0.002)
        let inbound = 0.001 + rng.uniform(0...0.002)
        if rng.chance(0.1) { outbound += rng.uniform(0.05...0.3) }
        let sample = clocks.exchange(
          sentAt: local, outbound: outbound, processing: 0.0005, inbound: inbound)
        if estimator.add(sample) != nil {
          schedule.sampleReceived(at: sample.t3)
        }
      }
      if let estimate = estimator.estimate(at: LocalInstant(seconds: local)) {
        let error = abs(estimate.offset - clocks.trueOffset(atLocal: local))
        #expect(error <= estimate.uncertainty + syncNanosecondSlack)
        // Follows the drift: never more than a few ms behind it.
        #expect(error < 0.005)
        checks += 1
      }
      local += 0.25
    }
    #expect(checks > 28000)
    #expect(abs(clocks.trueOffset(atLocal: local) - 12.5) > 0.35)
  }
}

@Suite("ClockOffsetEstimator on jittery links, drifting clocks and steps")
struct ClockOffsetFilterTests {
  /// The 99th percentile of `values`.
  static func p99(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted[min(sorted.count - 1, Int((Double(sorted.count) * 0.99).rounded(.up)) - 1)]
  }

  /// Behind 40 ± 10 ms each way (as scripts/multihost.sh's proxy), pinging every
  /// `interval` seconds for fifteen minutes: the errors of this estimator after its first
  /// minute, and those of NTP's filter (the quickest of the last eight) on the same samples.
  static func jitteryErrors(seed: UInt64, interval: Double) -> (ours: [Double], ntp: [Double]) {
    var rng = SeededGenerator(seed: seed)
    let clocks = SyncClockPair(initialOffset: rng.uniform(-100...100), drift: 0)
    var estimator = ClockOffsetEstimator()
    var recent: [ClockSample] = []
    var ours: [Double] = []
    var ntp: [Double] = []
    for i in 0..<Int(900 / interval) {
      let sample = clocks.exchange(
        sentAt: Double(i) * interval, outbound: 0.04 + rng.uniform(-0.01...0.01),
        processing: 0.0001, inbound: 0.04 + rng.uniform(-0.01...0.01))
      let estimate = estimator.add(sample)
      recent = Array((recent + [sample]).suffix(8))
      let truth = clocks.trueOffset(atLocal: sample.t3.seconds)
      if sample.t0.seconds >= 60, let estimate {
        ours.append(abs(estimate.offset - truth))
        #expect(abs(estimate.offset - truth) <= estimate.uncertainty + syncNanosecondSlack)
        let quickest = recent.min { $0.roundTrip < $1.roundTrip }!
        ntp.append(abs(quickest.offset - truth))
      }
    }
    #expect(estimator.steps == 0)
    return (ours, ntp)
  }

  @Test(
    "behind a 40 ± 10 ms link pinged every 250 ms the offset is within 1.5 ms at p99",
    arguments: [UInt64(1), 2, 3])
  func jitteryLink(seed: UInt64) {
    let (ours, ntp) = Self.jitteryErrors(seed: seed, interval: 0.25)
    #expect(Self.p99(ours) <= 0.0015, "p99 \(Self.p99(ours) * 1000) ms")
    // NTP's filter on the same samples does several times worse.
    #expect(Self.p99(ntp) > 3 * Self.p99(ours), "NTP p99 \(Self.p99(ntp) * 1000) ms")
  }

  @Test("pinged once a second on the same link it is still within 3 ms at p99")
  func jitteryLinkSlowPings() {
    let (ours, ntp) = Self.jitteryErrors(seed: 4, interval: 1)
    #expect(Self.p99(ours) <= 0.003, "p99 \(Self.p99(ours) * 1000) ms")
    #expect(Self.p99(ntp) > 2 * Self.p99(ours), "NTP p99 \(Self.p99(ntp) * 1000) ms")
  }

  @Test("the clocks' frequency difference is learned and the estimate stays right between pings")
  func tracksSkew() throws {
    var rng = SeededGenerator(seed: 11)
    let clocks = SyncClockPair(initialOffset: 3, drift: 80e-6)
    var estimator = ClockOffsetEstimator()
    var worst = 0.0
    // A ping every 5 s for fifteen minutes on a quiet link; checked at random instants
    // between, once a few skew blocks are in.
    for i in 0..<180 {
      let sentAt = Double(i) * 5
      let sample = clocks.exchange(
        sentAt: sentAt, outbound: 0.0002 + rng.uniform(0...0.0002), processing: 0.00005,
        inbound: 0.0002 + rng.uniform(0...0.0002))
      let added = estimator.add(sample)
      let estimate = try #require(added)
      let later = sample.t3.seconds + rng.uniform(0...5)
      let error = abs(
        estimate.offset(at: LocalInstant(seconds: later)) - clocks.trueOffset(atLocal: later))
      if i >= 60 { worst = max(worst, error) }
      let converted = estimate.groupTime(at: LocalInstant(seconds: later))
      #expect(abs(estimate.localTime(at: converted).seconds - later) < 1e-6)
    }
    let last = try #require(estimator.estimate(at: LocalInstant(seconds: 900)))
    #expect(abs(last.skew - 80e-6) < 3e-6, "skew \(last.skew)")
    // Without the skew, 5 s between pings would leave up to 0.4 ms.
    #expect(worst < 0.00015, "worst \(worst * 1000) ms")
  }

  @Test("a step of the relay's clock is caught by the first sample after it")
  func catchesSteps() throws {
    var rng = SeededGenerator(seed: 5)
    var clocks = SyncClockPair(initialOffset: 10, drift: 0)
    var estimator = ClockOffsetEstimator()
    for i in 0..<40 {
      estimator.add(
        clocks.exchange(
          sentAt: Double(i), outbound: 0.001 + rng.uniform(0...0.002), processing: 0,
          inbound: 0.001 + rng.uniform(0...0.002)))
    }
    #expect(estimator.steps == 0)
    // The relay restarts: its clock is 0.8 s behind where it was.
    clocks.initialOffset -= 0.8
    let added = estimator.add(
      clocks.exchange(sentAt: 40, outbound: 0.002, processing: 0, inbound: 0.002))
    let estimate = try #require(added)
    #expect(estimator.steps == 1)
    #expect(estimator.sampleCount == 1)
    #expect(abs(estimate.offset - clocks.trueOffset(atLocal: 40.004)) <= estimate.uncertainty)
    #expect(estimate.uncertainty < 0.003)
  }
}

@Suite("ClockSyncSchedule")
struct ClockSyncScheduleTests {
  @Test("pings fast until the window is full, then at the steady pace")
  func clockSyncFastThenSteady() {
    var schedule = ClockSyncSchedule(fastInterval: 0.25, steadyInterval: 5, samplesForSteady: 8)
    var pings: [Double] = []
    var t = 0.0
    while t <= 30 {
      let now = LocalInstant(seconds: t)
      if schedule.poll(at: now) {
        pings.append(t)
        // Every ping answered 10 ms later.
        schedule.sampleReceived(at: now.advanced(bySeconds: 0.01))
      }
      t = ((t + 0.05) * 100).rounded() / 100
    }
    let gaps = zip(pings.dropFirst(), pings).map { (($0 - $1) * 100).rounded() / 100 }
    #expect(pings.first == 0)
    #expect(Array(gaps.prefix(7)) == Array(repeating: 0.25, count: 7))
    #expect(gaps.dropFirst(7).allSatisfy { $0 == 5 })
    #expect(pings.count == 8 + 5)
    #expect(schedule.isSteady)
  }

  @Test("a lost ping is retried an interval later; restart goes back to fast")
  func clockSyncLostPingAndRestart() {
    var schedule = ClockSyncSchedule(fastInterval: 1, steadyInterval: 60, samplesForSteady: 2)
    let t0 = LocalInstant(seconds: 100)
    #expect(schedule.isDue(at: t0))
    let first = schedule.poll(at: t0)
    let early = schedule.poll(at: t0.advanced(bySeconds: 0.5))
    #expect(first)
    #expect(!early)
    #expect(schedule.nextPing == t0.advanced(bySeconds: 1))
    // Unanswered: the next is due one fast interval later anyway.
    let retried = schedule.poll(at: t0.advanced(bySeconds: 1))
    #expect(retried)
    schedule.sampleReceived(at: t0.advanced(bySeconds: 1.01))
    let second = schedule.poll(at: t0.advanced(bySeconds: 2))
    #expect(second)
    schedule.sampleReceived(at: t0.advanced(bySeconds: 2.01))
    #expect(schedule.isSteady)
    #expect(schedule.nextPing == t0.advanced(bySeconds: 62))
    #expect(!schedule.isDue(at: t0.advanced(bySeconds: 61)))
    schedule.restart()
    #expect(!schedule.isSteady)
    #expect(schedule.isDue(at: t0.advanced(bySeconds: 3)))
  }
}
