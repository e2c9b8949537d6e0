import Narration
import PlaybackCoordination

/// Keeps this participant's player with the group, and turns what the player shows into
/// requests to the group: ready once an item is loaded, a suspension while it stalls or
/// cannot play, the end of the item. It also reports the link's and the player's figures,
/// so that coordinated starts allow for this participant's delays.
///
/// A participant without a player (a remote control, a test) is ready whenever it is in
/// a session.
struct PlayerFollowing: Sendable {
  /// What following asks of the core.
  enum Action: Sendable {
    case player(PlayerCommand)
    /// A request of the core's own (never the person's).
    case request(GroupCommand, OutboxRequest.Origin)
    /// Something the person should know about their player.
    case notice(Notice)
  }

  let hasPlayer: Bool
  private let configuration: ParticipantConfiguration
  /// How far this person's player runs ahead of the group on purpose, seconds (see
  /// ``Participant/personalOffset``): the player follows the group's line shifted by it.
  var personalOffset: Double
  private var coordinator: PlaybackCoordinator?
  private(set) var nextCorrection: LocalInstant?
  private(set) var nextReport: LocalInstant?
  /// The session last reported to, so that joining a new one reports at once.
  private var reportedSession: UInt64?
  private var readyRequested = false
  private var stalled = false
  private var advanceSentFor: ItemID?
  /// The player's problem last reported (it stepped away for it).
  private var playerProblem: String?
  /// The item whose file was found to differ in duration from the group's (told once).
  private var durationWarnedFor: ItemID?

  /// A file within this many seconds of the group's duration is the same episode.
  static let durationTolerance = 1.0
  static let pausedCorrectionInterval = 0.25

  init(configuration: ParticipantConfiguration, hasPlayer: Bool) {
    self.configuration = configuration
    self.hasPlayer = hasPlayer
    personalOffset = configuration.personalOffset
  }

  /// True while the player follows the group (joined, not stepped away).
  var isFollowing: Bool { coordinator?.isFollowing == true }
  /// The start-up latency coordinated starts allow for.
  private var leadLatency: Double { hasPlayer ? (coordinator?.leadLatency ?? 0.3) : 0 }

  /// When a player check or a report is next due.
  var nextDeadline: LocalInstant? {
    [nextReport, hasPlayer ? nextCorrection : nil].compactMap { $0 }.min()
  }

  /// How often the player is checked against the group: often while the group plays or
  /// waits (drift, scheduled starts); a paused or finished group's player only needs to
  /// be seen settling (readiness), and with nothing watched it is idle. A front that
  /// wakes 20 times a second for a paused group costs a laptop's battery for nothing.
  func correctionInterval(in state: GroupState) -> Double {
    switch state.session?.status {
    case .playing, .waiting: configuration.correctionInterval
    case .paused, .finished: max(configuration.correctionInterval, Self.pausedCorrectionInterval)
    case nil: max(configuration.correctionInterval, 1)
    }
  }

  /// A welcome: checks and reports start again, and a readiness refused before may be
  /// asked for again.
  mutating func welcomed(as participant: ParticipantID, at now: LocalInstant) {
    if coordinator == nil || coordinator?.participant != participant {
      coordinator = PlaybackCoordinator(participant: participant, configuration: configuration.sync)
    }
    nextReport = now.advanced(bySeconds: configuration.reportInterval)
    nextCorrection = now
    readyRequested = false
  }

  /// The relay refused this participant's readiness: it may be asked for again.
  mutating func readinessRefused() { readyRequested = false }

  /// The room's state changed: the player takes it (once a clock estimate exists).
  mutating func adopt(
    _ state: GroupState, as participant: ParticipantID?, clock: ClockOffsetEstimate?,
    at now: LocalInstant
  ) -> [Action] {
    // Back to playing: the player is checked at the quick pace at once, not after a
    // paused group's slower one.
    if let due = nextCorrection {
      nextCorrection = min(due, now.advanced(bySeconds: correctionInterval(in: state)))
    }
    let followed = state.shifted(by: personalOffset)
    var actions = drive(clock) { coordinator, clock in
      coordinator.adopt(followed, at: now, clock: clock)
    }
    if !hasPlayer, let participant, let mine = state.participant(participant),
      state.session != nil
    {
      actions += readinessIfNeeded(mine)
    }
    return actions
  }

  /// The first clock estimate: the player waited for it, since group times mean nothing
  /// locally before it.
  mutating func clockArrived(_ clock: ClockOffsetEstimate, state: GroupState, at now: LocalInstant)
    -> [Action]
  {
    let followed = state.shifted(by: personalOffset)
    return drive(clock) { coordinator, clock in
      coordinator.adopt(followed, at: now, clock: clock)
    }
  }

  /// Whether the periodic report is due; if so, the next one is scheduled.
  mutating func reportDue(at now: LocalInstant) -> Bool {
    guard let due = nextReport, due <= now else { return false }
    nextReport = now.advanced(bySeconds: configuration.reportInterval)
    return true
  }

  /// The report of link and player figures for the session this participant is joined to
  /// (nil: not joined, no estimate yet, or — with `onlyIfNew` — reported to already).
  /// One report is in flight at a time: a newer one says all an older one would.
  mutating func report(
    in state: GroupState, as participant: ParticipantID?, clock: ClockOffsetEstimate?,
    reportInFlight: Bool, onlyIfNew: Bool = false
  ) -> GroupCommand? {
    guard let clock, let participant, state.participant(participant)?.isJoined == true,
      let session = state.session, !onlyIfNew || session.id != reportedSession
    else { return nil }
    reportedSession = session.id
    guard !reportInFlight else { return nil }
    return .report(
      roundTrip: clock.roundTrip, startupLatency: leadLatency, playerOffset: coordinator?.lastGap)
  }

  /// Checks the player when a check is due: drift corrections, and what it shows turned
  /// into requests.
  mutating func tick(
    seen: PlayerObservation?, state: GroupState, as participant: ParticipantID?,
    clock: ClockOffsetEstimate?, at now: LocalInstant
  ) -> [Action] {
    guard hasPlayer, let due = nextCorrection, due <= now else { return [] }
    nextCorrection = now.advanced(bySeconds: correctionInterval(in: state))
    guard let seen, let participant else { return [] }
    return observe(seen, state: state, as: participant, clock: clock, at: now)
  }

  private mutating func observe(
    _ seen: PlayerObservation, state: GroupState, as participant: ParticipantID,
    clock: ClockOffsetEstimate?, at now: LocalInstant
  ) -> [Action] {
    var actions = drive(clock) { coordinator, clock in
      coordinator.correct(seen, at: now, clock: clock)
    }
    guard let session = state.session, let mine = state.participant(participant), mine.isJoined
    else { return actions }
    if seen.problem != playerProblem {
      actions += problemChanged(
        seen, session: session, mine: mine, state: state, clock: clock, at: now)
    }
    if seen.item == session.item.id, !seen.isBusy, !seen.isStalled {
      actions += readinessIfNeeded(mine)
    }
    if seen.item == session.item.id, durationWarnedFor != session.item.id,
      let length = seen.fileDuration,
      abs(length - session.item.duration) > Self.durationTolerance
    {
      durationWarnedFor = session.item.id
      let item = session.item
      actions.append(
        .notice(
          .otherCut(
            series: session.series.title, item: item.title, fileLength: length,
            groupLength: item.duration)))
    }
    if seen.isStalled != stalled {
      stalled = seen.isStalled
      if stalled {
        actions.append(.request(.beginSuspension(.stallRecovery), .automatic))
      } else if mine.suspensions.contains(.stallRecovery) {
        actions.append(.request(.endSuspension(.stallRecovery, proposing: nil), .automatic))
      }
    }
    // A player running ahead on purpose reaches the end before the group does: the
    // group's own timeline ends the item then.
    if seen.item == session.item.id, session.status == .playing, personalOffset <= 0,
      seen.position >= session.item.duration - 0.05, advanceSentFor != session.item.id
    {
      advanceSentFor = session.item.id
      actions.append(.request(.advance(endedItem: session.item.id), .automatic))
    }
    return actions
  }

  /// A player that cannot follow steps away with the reason rather than hold the group;
  /// once it can again, it comes back.
  private mutating func problemChanged(
    _ seen: PlayerObservation, session: WatchSession, mine: Participant, state: GroupState,
    clock: ClockOffsetEstimate?, at now: LocalInstant
  ) -> [Action] {
    var actions: [Action] = []
    if let problem = seen.problem {
      let item = session.item
      let notice: Notice
      if problem == PlayerObservation.noFile(for: item.id) {
        notice = .missingFile(
          series: session.series.title, item: item.title, duration: item.duration)
      } else if let why = PlayerObservation.heldLinkReason(problem) {
        notice = .linkHeld(why)
      } else if let why = PlayerObservation.borrowingReason(problem) {
        notice = .borrowing(
          series: session.series.title, item: item.title, duration: item.duration, why)
      } else {
        notice = .playerCannotFollow(problem)
      }
      actions.append(.notice(notice))
      if playerProblem == nil, !mine.suspensions.contains(.playerUnavailable) {
        actions.append(.request(.beginSuspension(.playerUnavailable), .automatic))
      }
    } else if mine.suspensions.contains(.playerUnavailable) {
      actions.append(.request(.endSuspension(.playerUnavailable, proposing: nil), .automatic))
    }
    if seen.problem == nil, seen.item == nil {
      // The player came back empty (a restarted mpv): load the item into it again.
      let followed = state.shifted(by: personalOffset)
      actions += drive(clock) { coordinator, clock in
        coordinator.playerReplaced()
        return coordinator.adopt(followed, at: now, clock: clock)
      }
    }
    playerProblem = seen.problem
    return actions
  }

  /// Tells the group this participant is ready, once per time it is shown as not ready.
  private mutating func readinessIfNeeded(_ mine: Participant) -> [Action] {
    if mine.readiness == .ready || !mine.isJoined {
      readyRequested = false
      return []
    }
    guard !readyRequested else { return [] }
    readyRequested = true
    return [.request(.setReadiness(.ready), .ready)]
  }

  private mutating func drive(
    _ clock: ClockOffsetEstimate?,
    _ body: (inout PlaybackCoordinator, ClockOffsetEstimate) -> [PlayerCommand]
  ) -> [Action] {
    guard hasPlayer, var coordinator, let clock else { return [] }
    let commands = body(&coordinator, clock)
    self.coordinator = coordinator
    return commands.map { .player($0) }
  }
}
