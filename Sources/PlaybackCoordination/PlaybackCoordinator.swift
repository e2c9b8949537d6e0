/// Thresholds of the participant-side coordinator's drift correction.
public struct SyncConfiguration: Hashable, Sendable, Codable {
  /// Gaps smaller than this are left alone, seconds.
  public var tolerance: Double
  /// Gaps at or above this are fixed with a seek; between `tolerance` and this the
  /// player's rate is nudged, seconds. 100 ms: past lip-sync level, a restart scheduled by
  /// the player's known latency is cheaper than a second or more of nudging.
  public var seekThreshold: Double
  /// The most the rate is nudged, as a fraction (0.1 = ±10 %).
  public var maximumNudge: Double
  /// Aim to close a nudged gap over this many seconds.
  public var nudgeHorizon: Double
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

  public init(
    tolerance: Double = 0.004, seekThreshold: Double = 0.1, maximumNudge: Double = 0.1,
    nudgeHorizon: Double = 1, settleTime: Double = 0.05, restartLead: Double = 0.25,
    maximumRestartLead: Double = 2
  ) {
    self.tolerance = tolerance
    self.seekThreshold = seekThreshold
    self.maximumNudge = maximumNudge
    self.nudgeHorizon = nudgeHorizon
    self.settleTime = settleTime
    self.restartLead = restartLead
    self.maximumRestartLead = maximumRestartLead
  }
}

/// The participant-side coordinator (AVDelegatingPlaybackCoordinator's role): turns the
/// group state into commands for this participant's player and keeps a drifting player in
/// sync. Pure: the caller passes local time, the clock estimate and what the player shows.
///
/// Two inputs drive it. ``adopt(_:at:clock:)`` reacts to changes of the group state: it
/// loads, unloads, plays or pauses, and only when the part of the state that matters to
/// the player (joined, item, timeline, suspension) actually changed. ``correct(_:at:clock:)``
/// is called periodically with what the player shows: small gaps are closed by nudging the
/// rate, large ones by restarting at a near-future instant. After any command that moves
/// the player, observations are ignored until it has settled, so its latency is not taken
/// for drift (Jellyfin's complaint #11302).
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

  private var link: Link = .unknown
  /// The session as last adopted, while joined.
  private var session: WatchSession?
  /// The item the player was told to load.
  private var loadedItem: ItemID?
  /// The timeline the player was last told to follow (nil: tell it again).
  private var followedTimeline: Timeline?
  /// The rate the player was last set to while playing (nominal or nudged).
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

  /// The player's last measured gap to the group (positive = ahead), seconds.
  public private(set) var lastGap: Double?
  /// The player's start-up latency for a play or seek, as last measured (smoothed), seconds.
  /// Worth reporting to the group, which schedules coordinated starts with it.
  public private(set) var startupLatency: Double?

  public init(participant: ParticipantID, configuration: SyncConfiguration = .init()) {
    self.participant = participant
    self.configuration = configuration
  }

  /// True while the player follows the group timeline (joined, not suspended).
  public var isFollowing: Bool { link == .following }

  /// True while this participant is suspended and its player detached from the group.
  public var isDetached: Bool { link == .detached }

  /// True when the player's rate is currently nudged away from the group's.
  public var isNudged: Bool {
    guard let commandedRate, let session, session.timeline.rate > 0 else { return false }
    return commandedRate != session.timeline.rate
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

    link = .following
    pauseAfterStall = false
    if let followed = followedTimeline,
      Self.equivalent(followed, session.timeline, at: groupNow)
    {
      followedTimeline = session.timeline
    } else {
      followedTimeline = session.timeline
      commands.append(follow(session, at: now, clock: clock))
      return commands
    }
    if !commands.isEmpty { awaitReady(issuedAt: now, notBefore: now, measure: false) }
    return commands
  }

  /// The command that makes the player follow the session's timeline from wherever it is.
  ///
  /// A start whose anchor is already past — or too close for this player's known start-up
  /// latency — is moved later along the same timeline line, so the player starts in step
  /// instead of late by its latency (a late joiner, a slow player, a short start delay).
  private mutating func follow(
    _ session: WatchSession, at now: LocalInstant, clock: ClockOffsetEstimate
  ) -> PlayerCommand {
    let timeline = session.timeline
    guard timeline.rate > 0 else {
      commandedRate = nil
      repauses = 0
      awaitReady(issuedAt: now, notBefore: now, measure: false)
      return .pause(at: timeline.itemTime)
    }
    commandedRate = timeline.rate
    var startAt = clock.localTime(at: timeline.groupTime)
    var itemTime = timeline.itemTime
    // How long this player needs: as measured, or — for a start already past, which it
    // would otherwise join late — the default restart lead until measured.
    let needed =
      startupLatency.map { $0 + configuration.settleTime }
      ?? (startAt < now ? configuration.restartLead : 0)
    if needed > 0 {
      let earliest = now.advanced(bySeconds: needed)
      if startAt < earliest {
        startAt = earliest
        itemTime = min(timeline.position(at: clock.groupTime(at: earliest)), session.item.duration)
      }
    }
    // Starting at once, the busy time is the start-up latency; a scheduled start is checked
    // for lateness once it has happened.
    let immediate = startAt <= now
    scheduledLead = immediate ? nil : startAt.seconds(since: now)
    awaitReady(issuedAt: now, notBefore: max(now, startAt), measure: immediate)
    return .play(itemTime: itemTime, startAt: startAt, rate: timeline.rate)
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

  /// Where the player is now, extrapolated from the last observation of the loaded item.
  private func playerPosition(at now: LocalInstant) -> Double? {
    guard let last = lastObservation, last.observation.item == loadedItem,
      !last.observation.isBusy, !last.observation.isStalled
    else { return nil }
    return last.observation.position + last.observation.rate * max(0, now.seconds(since: last.at))
  }

  private mutating func awaitReady(issuedAt: LocalInstant, notBefore: LocalInstant, measure: Bool) {
    settle = .awaitingReady(issuedAt: issuedAt, notBefore: notBefore, measure: measure)
  }

  // MARK: - Drift correction

  /// Called periodically (e.g. every 100 ms) with what the player shows: nudges or seeks
  /// the player back to the group timeline.
  public mutating func correct(
    _ observation: PlayerObservation, at now: LocalInstant, clock: ClockOffsetEstimate
  ) -> [PlayerCommand] {
    lastObservation = (observation, now)
    if link == .detached, pauseAfterStall, !observation.isStalled {
      pauseAfterStall = false
      return [.pause(at: observation.position)]
    }
    guard link == .following, let session, loadedItem == session.item.id,
      observation.item == session.item.id
    else { return [] }
    // A stalled player is recovering; its gap is fixed once it plays again.
    guard !observation.isStalled else { return [] }

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
    guard !observation.isBusy else { return [] }

    let timeline = session.timeline
    let groupNow = clock.groupTime(at: now)
    let groupPosition = session.position(at: groupNow)
    let gap = observation.position - groupPosition

    guard timeline.rate > 0 else {
      lastGap = gap
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
    // A coordinated start is still ahead: the player is prerolled, nothing to measure.
    guard groupNow >= timeline.groupTime else { return [] }
    lastGap = gap
    if let lead = scheduledLead {
      scheduledLead = nil
      if gap < -configuration.tolerance { recordStartupLatency(lead - gap) }
    }
    let duration = session.item.duration
    // At the end of the item, whoever is there first waits for the group to move on.
    if groupPosition >= duration || (observation.position >= duration && gap >= 0) {
      return []
    }
    if abs(gap) >= configuration.seekThreshold || observation.rate <= 0 {
      return [restart(session, at: now, clock: clock)]
    }
    return nudge(gap: gap, groupRate: timeline.rate)
  }

  /// Closes a small gap by playing a little slower (ahead) or faster (behind), or restores
  /// the group's rate once the gap is within tolerance.
  private mutating func nudge(gap: Double, groupRate: Double) -> [PlayerCommand] {
    let configuration = configuration
    if abs(gap) < configuration.tolerance {
      guard commandedRate != groupRate else { return [] }
      commandedRate = groupRate
      return [.setRate(groupRate)]
    }
    let limit = abs(configuration.maximumNudge)
    let horizon = configuration.nudgeHorizon > 0 ? configuration.nudgeHorizon : 1
    let fraction = min(max(gap / horizon, -limit), limit)
    let rate = groupRate * (1 - fraction)
    // Changes too small to matter are not worth a command.
    if let current = commandedRate, current != groupRate, abs(current - rate) <= groupRate * 1e-4 {
      return []
    }
    commandedRate = rate
    return [.setRate(rate)]
  }

  /// Restarts the player on the group timeline at a near-future instant, far enough ahead
  /// for it to seek and preroll, so it starts in step instead of late.
  private mutating func restart(
    _ session: WatchSession, at now: LocalInstant, clock: ClockOffsetEstimate
  ) -> PlayerCommand {
    let lead = restartLead
    let startAt = now.advanced(bySeconds: lead)
    let itemTime = session.position(at: clock.groupTime(at: startAt))
    commandedRate = session.timeline.rate
    scheduledLead = lead
    awaitReady(issuedAt: now, notBefore: startAt, measure: false)
    return .play(itemTime: itemTime, startAt: startAt, rate: session.timeline.rate)
  }

  /// How far ahead a corrective restart is scheduled, seconds.
  private var restartLead: Double {
    let c = configuration
    guard let latency = startupLatency else { return c.restartLead }
    return min(max(c.restartLead, latency + c.settleTime), max(c.restartLead, c.maximumRestartLead))
  }

  private mutating func recordStartupLatency(_ measured: Double) {
    let measured = max(0, measured)
    if let current = startupLatency {
      // Rise at once (a late start costs a gap), fall slowly.
      startupLatency = max(measured, 0.75 * current + 0.25 * measured)
    } else {
      startupLatency = measured
    }
  }
}
