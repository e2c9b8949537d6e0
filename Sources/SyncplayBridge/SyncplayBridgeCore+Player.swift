import Narration
import Participation
import PlaybackCoordination
import SyncplayProtocol

/// The client's player as the coordinator's `PlayerDriver` sees it: commands become forced
/// states, the client's reports an observation.
extension SyncplayBridgeCore {
  // MARK: - The player

  /// Where the coordinator's commands go: they become forced states for the client.
  public mutating func perform(_ command: PlayerCommand, at now: LocalInstant)
    -> [SyncplayBridgeEffect]
  {
    switch command {
    case .load(let item, let at):
      awaitingGroupSince = nil
      return change(to: .paused(item: item, at: at), doSeek: true, at: now)
    case .pause(let at):
      awaitingGroupSince = nil
      guard let item = target.item ?? state.session?.item.id else { return [] }
      let next = Target.paused(item: item, at: at)
      if next == target, !correctionAllowed(at: now) { return [] }
      return change(to: next, doSeek: false, at: now)
    case .seek(let to):
      awaitingGroupSince = nil
      switch target {
      case .idle: return []
      case .paused(let item, _):
        return change(to: .paused(item: item, at: to), doSeek: true, at: now)
      case .playing(let item, _, _):
        return start(.playing(item: item, itemTime: to, startAt: now), doSeek: true, at: now)
      }
    case .play(let itemTime, let startAt, let rate):
      awaitingGroupSince = nil
      guard let item = target.item ?? state.session?.item.id else { return [] }
      if abs(rate - 1) > 1e-9 {
        // Syncplay plays at 1× only: the client waits, paused, for the group to be back.
        let here = Target.paused(item: item, at: target.position(at: now))
        guard here != target else { return [] }
        // Cowatch pauses it, not whoever changed the speed.
        speaker = Self.narrator
        return change(to: here, doSeek: false, at: now)
      }
      let next = Target.playing(item: item, itemTime: itemTime, startAt: startAt)
      if case .playing(let oldItem, _, _) = target, oldItem == item,
        abs(target.position(at: startAt) - itemTime) < 1.0, !groupMovedSinceChange
      {
        // The coordinator restarting a player that drifted: a seek for a Syncplay client.
        guard correctionAllowed(at: now) else { return [] }
        lastCorrection = now
        return start(next, doSeek: true, at: now)
      }
      let wasAt = report.map { $0.paused ? $0.position : nil } ?? nil
      let needsSeek =
        target.isPaused
        ? abs((wasAt ?? target.position(at: now)) - itemTime) > Self.frameTolerance : true
      return start(next, doSeek: needsSeek, at: now)
    case .setRate:
      // Syncplay has no way to bend a client's speed: drift is closed with a seek.
      return []
    case .unload:
      target = .idle
      pending = nil
      return []
    }
  }

  /// Whether the group's timeline moved since the last change sent (then a play is the
  /// group's, not a correction).
  var groupMovedSinceChange: Bool { changeSequence != state.session?.lastPlaybackChange?.sequence }

  func correctionAllowed(at now: LocalInstant) -> Bool {
    guard let last = lastCorrection else { return true }
    return now.seconds(since: last) >= configuration.driftSeekInterval
  }

  /// Schedules a start so that it lands on time: sent early by the forward delay and by
  /// what the client's player was learned to need.
  mutating func start(_ next: Target, doSeek: Bool, at now: LocalInstant)
    -> [SyncplayBridgeEffect]
  {
    guard case .playing(_, _, let startAt) = next else { return [] }
    beforeStart = target
    target = next
    changeSequence = state.session?.lastPlaybackChange?.sequence
    offsets = []
    let lead = doSeek ? seekLead : startLead
    lastChangeKind = doSeek ? .seek : .start
    let sendAt = startAt.advanced(bySeconds: -(forwardDelay + lead))
    pending = PendingSend(at: sendAt, doSeek: doSeek, lead: lead)
    if sendAt <= now { return sendPending(at: now) }
    return []
  }

  mutating func sendPending(at now: LocalInstant) -> [SyncplayBridgeEffect] {
    guard let pending else { return [] }
    self.pending = nil
    // The client adds its own estimate of the forward delay to a playing position: the
    // position sent is where the group is when the line arrives, less that estimate.
    let position =
      target.position(at: now.advanced(bySeconds: forwardDelay + pending.lead))
      - clientForwardDelay
    // Ask for a report soon (the client answers every state), to learn how late it was.
    nextPush = now.advanced(bySeconds: Self.learningDelay + 0.1)
    return forced(position: position, paused: false, doSeek: pending.doSeek, at: now)
  }

  mutating func change(to next: Target, doSeek: Bool, at now: LocalInstant)
    -> [SyncplayBridgeEffect]
  {
    target = next
    beforeStart = next
    pending = nil
    changeSequence = state.session?.lastPlaybackChange?.sequence
    offsets = []
    lastChangeKind = nil
    pauseMended = false
    return forced(position: next.position(at: now), paused: next.isPaused, doSeek: doSeek, at: now)
  }

  mutating func forced(position: Double, paused: Bool, doSeek: Bool, at now: LocalInstant)
    -> [SyncplayBridgeEffect]
  {
    guard phase == .inRoom else { return [] }
    serverIgnoring += 1
    changedAt = now
    return [
      .send(
        .state(
          stateMessage(position: position, paused: paused, doSeek: doSeek, forced: true, at: now)))
    ]
  }

  mutating func stateMessage(
    position: Double, paused: Bool, doSeek: Bool, forced: Bool, at now: LocalInstant
  ) -> SyncplayServerState {
    var echo: Double?
    if let (value, arrived) = clientTimestamp {
      echo = value + now.seconds(since: arrived)
      clientTimestamp = nil
    }
    // Syncplay's client ignores a seek or a correction said to be its own: those carry
    // "Cowatch"; its own pause or play keeps its name.
    let setBy: String
    if let speaker {
      setBy = speaker
    } else if lastOriginator == hello?.username, doSeek || !forced {
      setBy = Self.narrator
    } else {
      setBy = lastOriginator ?? Self.narrator
    }
    speaker = nil
    let message = SyncplayServerState(
      position: max(0, position), paused: paused, doSeek: doSeek, setBy: setBy,
      latencyCalculation: now.seconds, serverRtt: roundTrip ?? 0, clientLatencyCalculation: echo,
      ignoringServer: serverIgnoring == 0 ? nil : serverIgnoring, ignoringClient: clientIgnoringEcho
    )
    clientIgnoringEcho = nil
    return message
  }

  /// What the client's player shows now, by its reports.
  public func observe(at now: LocalInstant) -> PlayerObservation {
    let sessionItem = state.session?.item
    var problem: String?
    var item = target.item
    if let session = state.session {
      let settling = file == nil && (enteredAt.map { now.seconds(since: $0) < 3 } ?? true)
      if !settling,
        file.map({ SyncplayItemMatch.matches($0, session.item, in: session.series) }) != true
      {
        problem = PlayerObservation.noFile(for: session.item.id)
        item = nil
      } else if let rate = speedProblem {
        problem =
          "Syncplay plays at 1× only and the group plays at \(RateFormat.text(rate)): paused until it is back at 1×"
      }
    }
    let busy =
      serverIgnoring != 0 || pending != nil || awaitingGroupSince != nil || report == nil
      || file == nil
      || (!target.isPaused && offsets.count < 3)
      || (changedAt.map { now.seconds(since: $0) < configuration.settleTime } ?? false)
    let position: Double
    if let report, report.paused {
      // Where a paused player stopped is exact (and a pause of its own snaps there).
      position = report.position
    } else if !target.isPaused, offsets.count >= 3 {
      position = target.position(at: now) + median(offsets)
    } else if let report {
      position = report.paused ? report.position : report.position + now.seconds(since: report.at)
    } else {
      position = target.position(at: now)
    }
    return PlayerObservation(
      item: item, position: position,
      rate: (report?.paused ?? target.isPaused) ? 0 : 1, isBusy: busy, isStalled: false,
      preparedAt: busy ? nil : acknowledgedAt, problem: problem,
      fileDuration: item != nil && sessionItem != nil ? file?.duration : nil)
  }

  /// What the person did in their Syncplay player, to become group commands.
  public mutating func takeUserActions() -> [PlayerUserAction] {
    defer { userActions = [] }
    return userActions
  }
}
