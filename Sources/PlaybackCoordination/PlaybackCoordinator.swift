/// How the participant-side coordinator keeps its player on the group timeline.
///
/// Small gaps are closed by a proportional controller on the player's rate, on top of a
/// learned compensation of the player's own rate error (its clock runs a few hundred ppm
/// fast or slow); large gaps by a restart scheduled far enough ahead for the player to
/// seek and preroll. Limits (the defaults): a gap under ``largeGap`` (20 ms) moves the rate
/// by `proportionalGain × gap` (1 %/s: a 1 ms gap closes with a time constant of 1 s) but
/// never more than ``smallGapNudge`` (0.5 %), too little to hear with pitch correction off;
/// larger gaps by up to ``maximumNudge`` (5 %); a gap of ``seekThreshold`` (100 ms) or more
/// is a restart. The controller is stable for correction intervals well under
/// `1 / proportionalGain` (it runs every 50 ms).
public struct SyncConfiguration: Hashable, Sendable, Codable {
  /// A paused player this close to the pause point is left alone, seconds.
  public var tolerance: Double
  /// A playing player this close to the timeline is not nudged (its rate error is still
  /// compensated), seconds: fewer commands for a player whose position reads are noisy.
  public var deadband: Double
  /// Gaps at or above this are fixed with a restart (seek), seconds. 100 ms: past
  /// lip-sync level, a restart scheduled by the player's known latency is cheaper than a
  /// second or more of nudging.
  public var seekThreshold: Double
  /// Rate nudge per second of gap (1: a 2 ms gap plays 0.2 % faster or slower).
  public var proportionalGain: Double
  /// The most a gap under ``largeGap`` moves the rate, as a fraction.
  public var smallGapNudge: Double
  /// Gaps above this get ``largeGapGain`` more per second beyond it, seconds.
  public var largeGap: Double
  /// Extra nudge per second of gap beyond ``largeGap``.
  public var largeGapGain: Double
  /// The most the rate is nudged, as a fraction (0.05 = ±5 %).
  public var maximumNudge: Double
  /// How fast the player's rate error is learned: each interval between observations
  /// weighs `interval / rateLearningTime` (at most 1), seconds.
  public var rateLearningTime: Double
  /// Largest rate error believed of a player, as a fraction (a larger apparent error is a
  /// jump, not drift).
  public var maximumRateError: Double
  /// After a load, play, pause or seek, observations are ignored until the player reports
  /// it is no longer busy and then this many more seconds have passed, so that start-up
  /// and seek latency is never mistaken for drift, seconds.
  public var settleTime: Double
  /// How far ahead a corrective restart is scheduled while the player's start-up latency is
  /// unknown, seconds. Once measured, the lead is the latency plus ``settleTime`` (at least
  /// this, at most ``maximumRestartLead``), so the player prerolls and starts on time.
  public var restartLead: Double
  /// Upper bound on the lead of a corrective restart, seconds.
  public var maximumRestartLead: Double
  /// How many recent start-up latencies are kept; the slowest of them counts.
  public var latencyWindow: Int
  /// Margin on the slowest known latency when it sizes a lead (0.25: 25 % more), since the
  /// next seek may well be a little slower than any seen.
  public var latencyMargin: Double

  public init(
    tolerance: Double = 0.0005, deadband: Double = 0.0001, seekThreshold: Double = 0.1,
    proportionalGain: Double = 1,
    smallGapNudge: Double = 0.005, largeGap: Double = 0.02, largeGapGain: Double = 1,
    maximumNudge: Double = 0.05,
    rateLearningTime: Double = 2, maximumRateError: Double = 0.005, settleTime: Double = 0.05,
    restartLead: Double = 0.25, maximumRestartLead: Double = 2, latencyWindow: Int = 8,
    latencyMargin: Double = 0.25
  ) {
    self.tolerance = tolerance
    self.deadband = deadband
    self.seekThreshold = seekThreshold
    self.proportionalGain = proportionalGain
    self.smallGapNudge = smallGapNudge
    self.largeGap = largeGap
    self.largeGapGain = largeGapGain
    self.maximumNudge = maximumNudge
    self.rateLearningTime = rateLearningTime
    self.maximumRateError = maximumRateError
    self.settleTime = settleTime
    self.restartLead = restartLead
    self.maximumRestartLead = maximumRestartLead
    self.latencyWindow = latencyWindow
    self.latencyMargin = latencyMargin
  }

  /// The rate nudge, as a fraction, for a gap (positive = ahead: slower).
  public func nudge(forGap gap: Double) -> Double {
    let size = abs(gap)
    let raw =
      min(proportionalGain * size, smallGapNudge) + largeGapGain * max(0, size - largeGap)
    let bounded = min(raw, abs(maximumNudge))
    return gap < 0 ? -bounded : bounded
  }
}

/// The participant-side coordinator (AVDelegatingPlaybackCoordinator's role): turns the
/// group state into commands for this participant's player and keeps a drifting player in
/// sync. Pure: the caller passes local time, the clock estimate and what the player shows.
///
/// Two inputs drive it. ``adopt(_:at:clock:)`` reacts to changes of the group state: it
/// loads, unloads, plays or pauses, and only when the part of the state that matters to
/// the player (joined, item, timeline, suspension) actually changed. ``correct(_:at:clock:)``
/// is called periodically with what the player shows. It learns the player's own rate
/// error from successive observations and pre-compensates it in every rate it commands,
/// closes small gaps with a proportional nudge (see ``SyncConfiguration``), and large ones
/// by restarting at a near-future instant. After any command that moves the player,
/// observations are ignored until it has settled, so its latency is not taken for drift
/// (Jellyfin's complaint #11302).
public struct PlaybackCoordinator: Sendable {
  public let participant: ParticipantID
  public let configuration: SyncConfiguration

  /// How this participant's player relates to the group.
  private enum Link: Sendable {
    /// Nothing told yet.
    case unknown
    /// No session, or not joined: the player has been told to unload.
    case unloaded
    /// Joined and following the group timeline.
    case following
    /// Joined but suspended: paused where it was, not corrected.
    case detached
  }

  /// Whether observations may be trusted for correction.
  private enum Settle: Sendable {
    case settled
    /// A command was issued at `issuedAt`; waiting for the player to report not busy and
    /// for `notBefore` (a scheduled start). `measure`: time it as the start-up latency.
    case awaitingReady(issuedAt: LocalInstant, notBefore: LocalInstant, measure: Bool)
    /// Ready; trust observations from `until` on.
    case settling(until: LocalInstant)
  }

  /// An observation of the advancing player and the rate it was commanded from then on:
  /// the start of the next interval over which its rate error is measured.
  private struct RateBaseline: Sendable {
    var position: Double
    /// Local, so that a new clock estimate between two observations (a different offset)
    /// is not taken for the player's rate error: both ends are converted with the same one.
    var at: LocalInstant
    var commandedRate: Double
  }

  private var link: Link = .unknown
  /// The session as last adopted, while joined.
  private var session: WatchSession?
  /// The item the player was told to load.
  private var loadedItem: ItemID?
  /// The timeline the player was last told to follow (nil: tell it again).
  private var followedTimeline: Timeline?
  /// The rate the player was last set to while playing (compensated, nudged or not).
  private var commandedRate: Double?
  private var settle: Settle = .settled
  /// The last observation and when it was made, for the position to pause at on suspension.
  private var lastObservation: (observation: PlayerObservation, at: LocalInstant)?
  /// Detached while the player was stalled: pause it once the stall is over. Pausing a
  /// stalled player would cut its recovery short, so that a stall reported as a
  /// `stallRecovery` suspension would seem over as soon as the suspension took effect.
  private var pauseAfterStall = false
  /// Pauses re-issued since the group last paused.
  private var repauses = 0
  private static let maximumRepauses = 3
  /// A start was scheduled this far ahead: if the player still starts late, its start-up
  /// latency is that lead plus how late it was (a prerolled player reports busy until its
  /// start, so the busy time of a scheduled start says nothing about its latency).
  private var scheduledLead: Double?
  /// A play or seek whose preparation time is still to be learned (from the player's
  /// `preparedAt`), issued at this instant.
  private var preparing: LocalInstant?
  /// Recent start-up latencies, newest last.
  private var latencies: [Double] = []
  private var rateBaseline: RateBaseline?

  /// The player's last measured gap to the group (positive = ahead), seconds.
  public private(set) var lastGap: Double?
  /// The player's own rate error as learned (0.0002 = it plays 200 ppm fast): every rate
  /// commanded is divided by `1 + rateError`.
  public private(set) var rateError: Double = 0

  public init(participant: ParticipantID, configuration: SyncConfiguration = .init()) {
    self.participant = participant
    self.configuration = configuration
  }

  /// The slowest recent start-up latency of the player for a play or seek, seconds; nil
  /// until one was measured.
  public var startupLatency: Double? { latencies.max() }

  /// How long to allow this player to prepare a start: the slowest recent latency with a
  /// margin. Worth reporting to the group, which schedules coordinated starts with it.
  public var leadLatency: Double? {
    startupLatency.map { $0 * (1 + max(0, configuration.latencyMargin)) }
  }

  /// True while the player follows the group timeline (joined, not suspended).
  public var isFollowing: Bool { link == .following }

  /// True while this participant is suspended and its player detached from the group.
  public var isDetached: Bool { link == .detached }

  /// True when the player's rate is currently nudged to close a gap (beyond the
  /// compensation of its own rate error).
  public var isNudged: Bool {
    guard let commandedRate, let session, session.timeline.rate > 0 else { return false }
    return abs(commandedRate - compensated(session.timeline.rate)) > 1e-9
  }

  /// The rate to command for the player to advance at `rate` in group time.
  private func compensated(_ rate: Double) -> Double { rate / (1 + rateError) }

  /// The player was replaced by a fresh one (a restarted mpv) that holds nothing: the
  /// next ``adopt(_:at:clock:)`` loads the item again and follows from scratch. Its learned
  /// latencies and rate error stay: it is the same program on the same machine.
  public mutating func playerReplaced() {
    link = .unknown
    loadedItem = nil
    followedTimeline = nil
    commandedRate = nil
    settle = .settled
    lastObservation = nil
    lastGap = nil
    rateBaseline = nil
    preparing = nil
    pauseAfterStall = false
  }

  // MARK: - Group state

  /// Adopts a new group state (any change, or the full state on join/reconnect).
  public mutating func adopt(
    _ state: GroupState, at now: LocalInstant, clock: ClockOffsetEstimate
  ) -> [PlayerCommand] {
    guard let session = state.session, let me = state.participant(participant), me.isJoined
    else {
      session = nil
      guard link != .unloaded else { return [] }
      link = .unloaded
      pauseAfterStall = false
      loadedItem = nil
      followedTimeline = nil
      commandedRate = nil
      settle = .settled
      lastObservation = nil
      lastGap = nil
      rateBaseline = nil
      preparing = nil
      return [.unload]
    }
    self.session = session
    let groupNow = clock.groupTime(at: now)
    var commands: [PlayerCommand] = []
    var loaded = false

    if loadedItem != session.item.id {
      commands.append(.load(item: session.item.id, at: session.position(at: groupNow)))
      loadedItem = session.item.id
      followedTimeline = nil
      commandedRate = nil
      lastObservation = nil
      lastGap = nil
      loaded = true
    }

    if me.isSuspended {
      if link != .detached {
        link = .detached
        followedTimeline = nil
        commandedRate = nil
        lastGap = nil
        // A fresh load already leaves the player paused at the group's position; a stalled
        // one is paused once it has recovered (see `correct`).
        if loaded {
          pauseAfterStall = false
        } else if lastObservation?.observation.isStalled == true {
          pauseAfterStall = true
        } else {
          commands.append(.pause(at: playerPosition(at: now) ?? session.position(at: groupNow)))
        }
      }
      if !commands.isEmpty { awaitReady(issuedAt: now, notBefore: now, measure: false) }
      return commands
    }

    let wasFollowing = link == .following && !loaded
    link = .following
    pauseAfterStall = false
    if let followed = followedTimeline,
      Self.equivalent(followed, session.timeline, at: groupNow)
    {
      followedTimeline = session.timeline
    } else {
      let seamless =
        wasFollowing
        && followedTimeline.map {
          Self.continues($0, into: session.timeline)
        } == true
      followedTimeline = session.timeline
      commands.append(follow(session, at: now, clock: clock, seamless: seamless, loaded: loaded))
      return commands
    }
    if !commands.isEmpty { awaitReady(issuedAt: now, notBefore: now, measure: false) }
    return commands
  }

  /// The command that makes the player follow the session's timeline from wherever it is.
  ///
  /// A start whose anchor is already past — or too close for this player's known start-up
  /// latency — is moved later along the same timeline line, so
  /// the player starts in step instead of late by its latency (a late joiner, a slow
  /// player, a short start delay). A `seamless` change (the new line continues the one the
  /// player plays: a rate change) needs no preparation and keeps its instant.
  private mutating func follow(
    _ session: WatchSession, at now: LocalInstant, clock: ClockOffsetEstimate, seamless: Bool,
    loaded: Bool
  ) -> PlayerCommand {
    let timeline = session.timeline
    rateBaseline = nil
    guard timeline.rate > 0 else {
      commandedRate = nil
      repauses = 0
      preparing = nil
      awaitReady(issuedAt: now, notBefore: now, measure: false)
      return .pause(at: timeline.itemTime)
    }
    let rate = compensated(timeline.rate)
    commandedRate = rate
    var startAt = clock.localTime(at: timeline.groupTime)
    var itemTime = timeline.itemTime
    // How long this player needs: the slowest it was lately (the group's lead already
    // allows a margin on that, so only a start it surely cannot make moves), or — for a
    // start already past, which it would otherwise join late — the default restart lead
    // until measured.
    let needed =
      seamless
      ? 0 : (startupLatency ?? (startAt < now ? configuration.restartLead : 0))
    let earliest = now.advanced(bySeconds: needed)
    if startAt < earliest {
      startAt = earliest
      itemTime = min(timeline.position(at: clock.groupTime(at: earliest)), session.item.duration)
    }
    // Starting at once, the busy time is the start-up latency; a scheduled start is checked
    // for lateness once it has happened, and its preparation timed by the player.
    let immediate = startAt <= now
    scheduledLead = immediate || seamless ? nil : startAt.seconds(since: now)
    preparing = seamless || loaded ? nil : now
    awaitReady(issuedAt: now, notBefore: max(now, startAt), measure: immediate && !seamless)
    return .play(itemTime: itemTime, startAt: startAt, rate: rate)
  }

  /// Whether following `b` instead of `a` would change nothing for the player from group
  /// time `now` on: the same rate and, paused, the same item time; playing, the same line
  /// with both anchors already past (a re-anchored but unchanged timeline).
  private static func equivalent(_ a: Timeline, _ b: Timeline, at now: GroupInstant) -> Bool {
    if a == b { return true }
    guard a.rate == b.rate else { return false }
    if a.rate == 0 { return abs(a.itemTime - b.itemTime) < 1e-9 }
    guard a.groupTime <= now, b.groupTime <= now else { return false }
    return abs(a.position(at: now) - b.position(at: now)) < 1e-6
  }

  /// Whether `next` only bends the moving line the player follows (`followed`) at its
  /// anchor, without a jump: a rate change.
  private static func continues(_ followed: Timeline, into next: Timeline) -> Bool {
    guard followed.rate > 0, next.rate > 0 else { return false }
    return abs(followed.position(at: next.groupTime) - next.itemTime) < 1e-6
  }

  /// Where the player is now, extrapolated from the last observation of the loaded item.
  private func playerPosition(at now: LocalInstant) -> Double? {
    guard let last = lastObservation, last.observation.item == loadedItem,
      !last.observation.isBusy, !last.observation.isStalled
    else { return nil }
    return last.observation.position + last.observation.rate * max(0, now.seconds(since: last.at))
  }

  private mutating func awaitReady(issuedAt: LocalInstant, notBefore: LocalInstant, measure: Bool) {
    settle = .awaitingReady(issuedAt: issuedAt, notBefore: notBefore, measure: measure)
    rateBaseline = nil
  }

  // MARK: - Drift correction

  /// Called periodically (e.g. every 50 ms) with what the player shows: learns its rate
  /// error, nudges or restarts it back onto the group timeline.
  public mutating func correct(
    _ observation: PlayerObservation, at now: LocalInstant, clock: ClockOffsetEstimate
  ) -> [PlayerCommand] {
    lastObservation = (observation, now)
    if let issued = preparing, let prepared = observation.preparedAt, prepared >= issued {
      preparing = nil
      recordStartupLatency(prepared.seconds(since: issued))
    }
    if link == .detached, pauseAfterStall, !observation.isStalled {
      pauseAfterStall = false
      return [.pause(at: observation.position)]
    }
    guard link == .following, let session, loadedItem == session.item.id,
      observation.item == session.item.id
    else {
      rateBaseline = nil
      return []
    }
    // A stalled player is recovering; its gap is fixed once it plays again.
    guard !observation.isStalled else {
      rateBaseline = nil
      return []
    }

    switch settle {
    case .awaitingReady(let issuedAt, let notBefore, let measure):
      guard !observation.isBusy else { return [] }
      if measure { recordStartupLatency(now.seconds(since: issuedAt)) }
      settle = .settling(until: max(now, notBefore).advanced(bySeconds: configuration.settleTime))
      return []
    case .settling(let until):
      guard now >= until else { return [] }
      settle = .settled
    case .settled:
      break
    }
    guard !observation.isBusy else {
      rateBaseline = nil
      return []
    }

    let timeline = session.timeline
    let groupNow = clock.groupTime(at: now)
    let groupPosition = session.position(at: groupNow)
    let gap = observation.position - groupPosition

    guard timeline.rate > 0 else {
      lastGap = gap
      rateBaseline = nil
      // Paused: the player must stand exactly where the group paused. A player that cannot
      // (e.g. one that only stops on frame boundaries) is asked a few times, not forever.
      guard abs(gap) > configuration.tolerance || observation.rate != 0,
        repauses < Self.maximumRepauses
      else { return [] }
      repauses += 1
      commandedRate = nil
      awaitReady(issuedAt: now, notBefore: now, measure: false)
      return [.pause(at: groupPosition)]
    }
    // A coordinated change is still ahead: the player prerolls or plays the lead-in.
    guard groupNow >= timeline.groupTime else {
      rateBaseline = nil
      return []
    }
    lastGap = gap
    if let lead = scheduledLead {
      scheduledLead = nil
      // Late by more than the clock could explain: the player was slower than the lead.
      if gap < -(2 * configuration.tolerance + clock.uncertainty) {
        recordStartupLatency(lead - gap)
      }
    }
    let duration = session.item.duration
    // At the end of the item, whoever is there first waits for the group to move on.
    if groupPosition >= duration || (observation.position >= duration && gap >= 0) {
      rateBaseline = nil
      return []
    }
    if abs(gap) >= configuration.seekThreshold || observation.rate <= 0 {
      return [restart(session, at: now, clock: clock)]
    }
    learnRateError(from: observation.position, at: now, clock: clock)
    let commands = nudge(gap: gap, groupRate: timeline.rate)
    if let commandedRate {
      rateBaseline = RateBaseline(
        position: observation.position, at: now, commandedRate: commandedRate)
    }
    return commands
  }

  /// Measures the player's rate error over the interval since the last baseline, during
  /// which it was commanded one rate, and folds it into ``rateError``.
  private mutating func learnRateError(
    from position: Double, at now: LocalInstant, clock: ClockOffsetEstimate
  ) {
    guard let baseline = rateBaseline, baseline.commandedRate > 0 else { return }
    let elapsed = clock.groupTime(at: now).seconds(since: clock.groupTime(at: baseline.at))
    guard elapsed > 0.01 else { return }
    let sample = (position - baseline.position) / (elapsed * baseline.commandedRate) - 1
    let c = configuration
    // A larger apparent error is a jump (a seek nobody asked for, a frozen picture).
    guard sample.isFinite, abs(sample) <= 4 * c.maximumRateError else { return }
    let weight = min(1, elapsed / max(c.rateLearningTime, 0.001))
    let learned = rateError + weight * (sample - rateError)
    rateError = min(max(learned, -c.maximumRateError), c.maximumRateError)
  }

  /// Closes a gap by playing a little slower (ahead) or faster (behind), in proportion to
  /// the gap, on top of the compensation of the player's own rate error.
  private mutating func nudge(gap: Double, groupRate: Double) -> [PlayerCommand] {
    let fraction = abs(gap) < configuration.deadband ? 0 : configuration.nudge(forGap: gap)
    let rate = compensated(groupRate) * (1 - fraction)
    // Changes too small to matter (a few ppm) are not worth a command.
    if let current = commandedRate, abs(current - rate) <= groupRate * 2e-6 { return [] }
    commandedRate = rate
    return [.setRate(rate)]
  }

  /// Restarts the player on the group timeline at a near-future instant, far enough ahead
  /// for it to seek and preroll, so it starts in step instead of late.
  private mutating func restart(
    _ session: WatchSession, at now: LocalInstant, clock: ClockOffsetEstimate
  ) -> PlayerCommand {
    let lead = restartLead(clock: clock)
    let startAt = now.advanced(bySeconds: lead)
    let itemTime = session.position(at: clock.groupTime(at: startAt))
    let rate = compensated(session.timeline.rate)
    commandedRate = rate
    scheduledLead = lead
    preparing = now
    awaitReady(issuedAt: now, notBefore: startAt, measure: false)
    return .play(itemTime: itemTime, startAt: startAt, rate: rate)
  }

  /// How far ahead a corrective restart is scheduled, seconds.
  private func restartLead(clock: ClockOffsetEstimate) -> Double {
    let c = configuration
    guard let latency = leadLatency else { return c.restartLead }
    let wanted = latency + c.settleTime + clock.uncertainty
    return min(max(c.restartLead, wanted), max(c.restartLead, c.maximumRestartLead))
  }

  private mutating func recordStartupLatency(_ measured: Double) {
    guard measured.isFinite else { return }
    latencies.append(max(0, measured))
    let window = max(1, configuration.latencyWindow)
    if latencies.count > window { latencies.removeFirst(latencies.count - window) }
  }
}
