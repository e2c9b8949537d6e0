/// The commands: room membership, sessions, playback, suspensions and reports.
extension GroupTransition {
  // MARK: - Room

  mutating func enter(_ id: ParticipantID, name: String, origin: ParticipantOrigin)
    throws(Rejection)
  {
    guard index(of: id) == nil else { throw .alreadyInRoom(id) }
    guard Self.isValidName(name) else { throw .invalidName(name) }
    state.participants.append(Participant(id: id, name: name, origin: origin))
    claimOwnershipIfVacant(id)
    emit(.entered)
  }

  /// Leaves the room. The session stays while anyone is in the room (they may join it);
  /// it ends when the room is empty.
  mutating func exit(_ index: Int, reason: ExitReason) {
    let id = state.participants[index].id
    state.participants.remove(at: index)
    forget(id)
    forgetLender(id)
    emit(.exited(reason))
    passOwnershipIfVacant()
    if state.participants.isEmpty, state.session != nil {
      state.session = nil
      emit(.sessionEnded)
    } else {
      startIfReady()
    }
  }

  mutating func setConnected(_ index: Int, _ connected: Bool) {
    guard state.participants[index].isConnected != connected else { return }
    state.participants[index].isConnected = connected
    emit(.connectionChanged(connected: connected))
    // Someone cut off cannot answer the offer: the group does not hold for their answer.
    let id = state.participants[index].id
    if !connected, let current = state.session, current.invited.contains(id) {
      session.invited.removeAll { $0 == id }
      reconsider(id)
    }
  }

  // MARK: - Sessions

  /// A new session replaces any current one: only the originator is joined, and the group
  /// waits for its first load, meaning to play at rate 1 — and for the answer of everyone
  /// else in the room who can give one (connected, on Cowatch), so that those who join
  /// start together from the beginning instead of coming in mid-scene. Syncplay clients
  /// are never asked: their program has no such question.
  mutating func start(_ index: Int, series: SeriesInfo, item: ItemID) throws(Rejection) {
    try requirePlaybackControl(index)
    let info = try validate(series, item: item)
    let id = state.participants[index].id
    state.sessionCounter += 1
    for other in state.participants.indices {
      let isOriginator = other == index
      state.participants[other].isJoined = isOriginator
      state.participants[other].readiness = isOriginator ? .loading : .ready
      state.participants[other].suspensions = []
    }
    let invited = state.participants.filter {
      $0.id != id && $0.isConnected && $0.origin == .cowatch
    }.map(\.id)
    var waits = [
      GroupWait(
        participant: id, cause: .loading, since: now,
        deadline: now.advanced(bySeconds: configuration.firstLoadTimeout))
    ]
    waits += invited.map {
      GroupWait(
        participant: $0, cause: .answering, since: now,
        deadline: now.advanced(bySeconds: configuration.answerTimeout))
    }
    state.session = WatchSession(
      id: state.sessionCounter, series: series, item: info,
      timeline: Timeline(itemTime: 0, groupTime: now, rate: 0), intendedRate: 1, waits: waits,
      playbackRate: 1, startedBy: state.participants[index].name, invited: invited)
    emit(.sessionStarted(item: item))
  }

  /// A late joiner loads on its own and starts where the group is; the group goes on. One
  /// the group still holds for (offered the session, not yet started) is waited for
  /// instead, as the originator is: they start together.
  mutating func join(_ index: Int) throws(Rejection) {
    guard state.session != nil else { throw .noSession }
    guard !state.participants[index].isJoined else { throw .alreadyJoined }
    let id = state.participants[index].id
    state.participants[index].isJoined = true
    state.participants[index].readiness = .loading
    state.participants[index].suspensions = []
    if session.invited.contains(id) {
      session.invited.removeAll { $0 == id }
      // A load gets the load's own time, not what was left of the answer's.
      session.waits.removeAll { $0.participant == id }
      emit(.joined)
      hold(id, cause: .loading)
    } else {
      session.catchingUp.append(id)
      emit(.joined)
    }
  }

  /// "Not now": the group stops holding for this participant's answer.
  mutating func decline(_ index: Int) throws(Rejection) {
    guard let current = state.session else { throw .noSession }
    let id = state.participants[index].id
    guard !state.participants[index].isJoined else { throw .alreadyJoined }
    guard current.invited.contains(id) else { throw .invalidValue("not asked to answer") }
    session.invited.removeAll { $0 == id }
    emit(.declined)
    reconsider(id)
  }

  mutating func leave(_ index: Int) throws(Rejection) {
    _ = try requireJoined(index)
    unjoin(index)
    forget(state.participants[index].id)
    emit(.left)
    startIfReady()
  }

  /// Ends the session for everyone; any joined participant may.
  mutating func end(_ index: Int) throws(Rejection) {
    _ = try requireJoined(index)
    try requirePlaybackControl(index)
    state.session = nil
    for other in state.participants.indices { unjoin(other) }
    emit(.sessionEnded)
  }

  private mutating func unjoin(_ index: Int) {
    state.participants[index].isJoined = false
    state.participants[index].readiness = .ready
    state.participants[index].suspensions = []
  }

  // MARK: - Playback

  /// Plays at `rate` (or the group's playback rate). A stopped group starts together a
  /// start delay ahead, or holds (status waiting) while anyone is not ready; a moving group
  /// only changes rate, continuously.
  mutating func play(_ index: Int, item: ItemID?, rate: Double?) throws(Rejection) {
    let current = try requireMover(index, item: item)
    if let rate { try validateRate(rate) }
    guard !current.reachedEnd, current.position(at: now) < current.item.duration else {
      throw .invalidValue("at the end; seek back or switch item")
    }
    if playAsReadiness(index, current) { return }
    // Playing says ready (and pausing takes it back), as Syncplay's readiness does.
    state.participants[index].readyToWatch = true
    let newRate = rate ?? current.playbackRate
    let holds = current.intendedRate > 0 ? [] : pendingHolds()
    session.playbackRate = newRate
    session.intendedRate = newRate
    let timeline = current.timeline
    if timeline.rate > 0 {
      changeRate(to: newRate)
      let anchor = session.timeline
      emit(.played(at: anchor.itemTime, rate: newRate, startsAt: anchor.groupTime))
      return
    }
    let position = current.position(at: now)
    if current.waits.isEmpty && holds.isEmpty {
      let startsAt = startTogether(at: position)
      emit(.played(at: position, rate: newRate, startsAt: startsAt))
    } else {
      // Held: the start is announced by `waitEnded` once nobody is waited for.
      emit(.played(at: position, rate: newRate, startsAt: now))
      for (id, cause) in holds { hold(id, cause: cause) }
    }
  }

  /// Pauses everyone at the item time the originator saw.
  mutating func pause(_ index: Int, item: ItemID?, at position: Double) throws(Rejection) {
    let current = try requireMover(index, item: item)
    try validatePosition(position, in: current)
    session.timeline = Timeline(itemTime: position, groupTime: now, rate: 0)
    session.intendedRate = 0
    session.reachedEnd = current.reachedEnd && position >= current.item.duration
    state.participants[index].readyToWatch = false
    emit(.paused(at: position))
  }

  mutating func seek(_ index: Int, item: ItemID?, to position: Double) throws(Rejection) {
    let current = try requireMover(index, item: item)
    try validatePosition(position, in: current)
    place(at: position)
    emit(.seeked(to: position))
  }

  /// Moves the group to `position`: a playing group starts there together, a paused or
  /// waiting one holds there.
  mutating func place(at position: Double) {
    session.reachedEnd = false
    if session.intendedRate > 0 && session.waits.isEmpty {
      _ = startTogether(at: position)
    } else {
      session.timeline = Timeline(itemTime: position, groupTime: now, rate: 0)
    }
  }

  /// Changes the rate: a moving group re-anchors where it is (no start delay, the change is
  /// continuous); a paused group remembers it for the next play.
  mutating func setRate(_ index: Int, item: ItemID?, rate: Double) throws(Rejection) {
    let current = try requireMover(index, item: item)
    try validateRate(rate)
    session.playbackRate = rate
    if current.intendedRate > 0 {
      session.intendedRate = rate
      if current.timeline.rate > 0 { changeRate(to: rate) }
    }
    emit(.rateChanged(rate: rate))
  }

  /// A confirmed manual switch of everyone to another item.
  mutating func replace(
    _ index: Int, series: SeriesInfo, item: ItemID, confirmed: Bool
  ) throws(Rejection) {
    let current = try requireMover(index, item: nil)
    let info = try validate(series, item: item)
    guard confirmed else { throw .needsConfirmation(item) }
    // After the end of an episode, switching to another one is going on watching (as
    // auto-advance would): it plays, where a switch while paused stays paused.
    // (Not while a ready check holds the group: it starts when the check ends.)
    if current.reachedEnd && current.readyCheck == nil {
      session.intendedRate = session.playbackRate
    }
    switchItem(to: info, of: series)
    emit(.replaced(from: current.item.id, to: item))
    startIfReady()
  }

  /// A player reached the end of `endedItem`. Only the first request for the current item
  /// near its end counts; later ones find the item changed (or the group stopped at the
  /// end) and are rejected.
  mutating func advance(_ index: Int, endedItem: ItemID) throws(Rejection) {
    let current = try requireMover(index, item: nil, byPlayer: true)
    guard endedItem == current.item.id, !current.reachedEnd,
      current.item.duration - current.position(at: now) <= configuration.endTolerance
    else { throw .advanceNotApplicable(endedItem) }
    finishItem()
  }

  // MARK: - Suspensions and readiness

  mutating func beginSuspension(_ index: Int, _ reason: SuspensionReason) throws(Rejection) {
    _ = try requireJoined(index)
    try DisplayText.check(
      reason.rawValue, as: "a suspension reason", maximumBytes: DisplayText.maximumReasonBytes)
    guard !state.participants[index].suspensions.contains(reason) else { return }
    guard state.participants[index].suspensions.count < DisplayText.maximumSuspensions else {
      throw .invalidValue("at most \(DisplayText.maximumSuspensions) suspensions at once")
    }
    state.participants[index].suspensions.append(reason)
    emit(.suspended(reason))
    reconsider(state.participants[index].id)
  }

  /// Ends one suspension (or all). With `proposing`, the participant must then be free of
  /// suspensions, and the group moves to the proposed time as on a seek by it.
  mutating func endSuspension(
    _ index: Int, _ reason: SuspensionReason?, proposing: Double?
  ) throws(Rejection) {
    let current = try requireJoined(index)
    let suspensions = state.participants[index].suspensions
    let remaining: [SuspensionReason]
    if let reason {
      guard suspensions.contains(reason) else { throw .notSuspended }
      remaining = suspensions.filter { $0 != reason }
    } else {
      guard !suspensions.isEmpty else { throw .notSuspended }
      remaining = []
    }
    if let proposing {
      try requirePlaybackControl(index)
      guard remaining.isEmpty else { throw .suspended(remaining) }
      try validatePosition(proposing, in: current)
    }
    let id = state.participants[index].id
    state.participants[index].suspensions = remaining
    if let proposing {
      emit(.resumedProposing(time: proposing))
      reconsider(id, startIfDone: false)
      place(at: proposing)
    } else {
      emit(.resumed(reason))
      reconsider(id)
    }
  }

  /// Records readiness. A load or re-buffer makes the group wait while it means to play
  /// (not for late joiners catching up); ready ends the wait and any excuse.
  mutating func setReadiness(_ index: Int, _ readiness: Readiness) throws(Rejection) {
    _ = try requireJoined(index)
    if state.participants[index].readiness != readiness {
      state.participants[index].readiness = readiness
      emit(.readinessChanged(readiness))
    }
    reconsider(state.participants[index].id)
  }

  mutating func setPersonalOffset(_ index: Int, _ seconds: Double) throws(Rejection) {
    let limit = Participant.maximumPersonalOffset
    guard seconds.isFinite, abs(seconds) <= limit else {
      throw .invalidValue("a personal offset is at most \(Int(limit)) s either way")
    }
    guard state.participants[index].personalOffset != seconds else { return }
    state.participants[index].personalOffset = seconds
    emit(.personalOffsetChanged(seconds))
  }

  /// A quiet change: the key is read where a private message is sealed.
  mutating func announceSealingKey(_ index: Int, _ key: String) throws(Rejection) {
    guard Participant.isSealingKey(key) else {
      throw .invalidValue("a sealing key is 64 lower-case hex digits")
    }
    guard state.participants[index].sealingKey != key else { return }
    state.participants[index].sealingKey = key
    emit(.sealingKeyAnnounced)
  }

  /// Those who read `id`'s copy read nothing of theirs once they are out of the room
  /// (each says what it reads next).
  mutating func forgetLender(_ id: ParticipantID) {
    for i in state.participants.indices where state.participants[i].lender == id {
      state.participants[i].lender = nil
    }
  }

  /// Only another member of the room lends: a copy is read from someone who is here.
  mutating func watchFrom(_ index: Int, _ lender: ParticipantID?) throws(Rejection) {
    if let lender {
      guard let lenderIndex = self.index(of: lender) else { throw .unknownParticipant(lender) }
      guard lenderIndex != index else {
        throw .invalidValue("you watch from your own copy: say so with no lender")
      }
    }
    guard state.participants[index].lender != lender else { return }
    state.participants[index].lender = lender
    emit(.watchingFrom(lender))
  }

  mutating func setAutoAdvance(_ index: Int, _ on: Bool) {
    state.participants[index].autoAdvance = on
    emit(.autoAdvanceChanged(on))
  }

  /// Link and player figures. A change like any other (kind `.reported`) so that replicas
  /// stay identical, sequence numbers included.
  mutating func report(
    _ index: Int, roundTrip: Double, startupLatency: Double, playerOffset: Double?
  ) throws(Rejection) {
    guard roundTrip.isFinite, (0...60).contains(roundTrip), startupLatency.isFinite,
      (0...60).contains(startupLatency),
      playerOffset.map({ $0.isFinite && abs($0) <= 86_400 }) ?? true
    else {
      throw .invalidValue(
        "reported figures: round-trip and start-up latency 0–60 s, player offset within a day")
    }
    state.participants[index].roundTrip = roundTrip
    state.participants[index].startupLatency = startupLatency
    state.participants[index].playerOffset = playerOffset
    emit(.reported)
  }
}
