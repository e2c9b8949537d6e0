/// Ready checks: asking the room whether it is ready, the answers, and the countdown start.
extension GroupTransition {
  var everyoneAskedIsReady: Bool { state.notReadyToWatch.isEmpty }

  /// Whether the participant at `index` may end the check under way: its asker or the owner.
  func mayEndReadyCheck(_ index: Int, _ check: ReadyCheck) -> Bool {
    let id = state.participants[index].id
    return id == check.askedBy || id == state.control.owner
  }

  mutating func askReady(_ index: Int) throws(Rejection) {
    let current = try requireMover(index, item: nil)
    if let check = current.readyCheck {
      throw .invalidValue("\(check.askedByName) already asked whether everyone is ready")
    }
    guard !current.reachedEnd, current.position(at: now) < current.item.duration else {
      throw .invalidValue("at the end; seek back or switch item first")
    }
    if current.intendedRate > 0 || current.timeline.rate(at: now) > 0 {
      // Nobody can get ready for a film that runs on.
      let position = current.position(at: now)
      session.timeline = Timeline(itemTime: position, groupTime: now, rate: 0)
      session.intendedRate = 0
      emit(.paused(at: position))
    }
    beginReadyCheck(index)
  }

  /// Opens a check asked by the participant at `index`, who counts as ready.
  mutating func beginReadyCheck(_ index: Int) {
    markReady(index, true)
    let deadline = now.advanced(bySeconds: configuration.readyCheckTimeout)
    session.readyCheck = ReadyCheck(
      askedBy: state.participants[index].id, askedByName: state.participants[index].name,
      since: now, deadline: deadline)
    emit(.readyCheckStarted(deadline: deadline))
  }

  mutating func setReadyToWatch(_ index: Int, _ ready: Bool) throws(Rejection) {
    markReady(index, ready)
  }

  /// Sets the participant's own answer, announcing it when it changes.
  mutating func markReady(_ index: Int, _ ready: Bool) {
    guard state.participants[index].readyToWatch != ready else { return }
    state.participants[index].readyToWatch = ready
    emit(.readyToWatchChanged(ready))
  }

  mutating func startAnyway(_ index: Int) throws(Rejection) {
    try requireReadyCheckEnder(index, to: "start anyway")
    // Whoever starts is ready, whatever they said before.
    state.participants[index].readyToWatch = true
    startCountingDown(.startedAnyway)
  }

  mutating func cancelReadyCheck(_ index: Int) throws(Rejection) {
    try requireReadyCheckEnder(index, to: "take it back")
    session.readyCheck = nil
    emit(.readyCheckEnded(.cancelled, startsAt: nil))
  }

  /// Throws unless a check is open and the participant at `index` may end it (the asker or
  /// the owner); `doing` says what it tried, for the refusal.
  func requireReadyCheckEnder(_ index: Int, to doing: String) throws(Rejection) {
    let current = try requireJoined(index)
    guard let check = current.readyCheck else { throw .invalidValue("no ready check is under way") }
    guard mayEndReadyCheck(index, check) else {
      throw .invalidValue("only \(check.askedByName), who asked, or the room's owner can \(doing)")
    }
  }

  mutating func setStartWhenAllReady(_ index: Int, _ on: Bool) throws(Rejection) {
    try requireOwner(index)
    guard state.control.startWhenAllReady != on else { return }
    state.control.startWhenAllReady = on
    emit(.startWhenAllReadyChanged(on))
  }

  /// A play while a check is under way, or in a room that starts only when all are ready.
  /// Returns true when it was handled here (the play itself must not go on).
  mutating func playAsReadiness(_ index: Int, _ current: WatchSession) -> Bool {
    if let check = current.readyCheck {
      if mayEndReadyCheck(index, check) {
        state.participants[index].readyToWatch = true
        startCountingDown(.startedAnyway)
      } else {
        // Anyone else pressing play says they are ready.
        markReady(index, true)
      }
      return true
    }
    guard state.control.startWhenAllReady, current.intendedRate == 0 else { return false }
    markReady(index, true)
    if everyoneAskedIsReady { return false }
    beginReadyCheck(index)
    return true
  }

  /// Ends the check and starts the group after the countdown; a player still loading is
  /// waited for first, as any start waits (the start then comes when it is ready).
  mutating func startCountingDown(_ end: ReadyCheckEnd) {
    session.readyCheck = nil
    let current = session
    let position = current.position(at: now)
    guard !current.reachedEnd, position < current.item.duration, current.timeline.rate == 0 else {
      emit(.readyCheckEnded(end, startsAt: nil))
      return
    }
    let holds = pendingHolds()
    session.intendedRate = session.playbackRate
    if current.waits.isEmpty && holds.isEmpty {
      let startsAt = now.advanced(bySeconds: max(configuration.readyCountdown, startDelay()))
      session.timeline = Timeline(
        itemTime: position, groupTime: startsAt, rate: session.playbackRate)
      emit(.readyCheckEnded(end, startsAt: startsAt))
      session.countdown = startsAt
    } else {
      emit(.readyCheckEnded(end, startsAt: nil))
      for (id, cause) in holds { hold(id, cause: cause) }
    }
  }

  /// After any change: a check whose every asked participant is ready starts the group; a
  /// check nobody is left to answer ends.
  mutating func settleReadyCheck() {
    guard let check = state.session?.readyCheck else { return }
    if state.askedForReadiness.isEmpty {
      session.readyCheck = nil
      emit(.readyCheckEnded(.cancelled, startsAt: nil))
    } else if everyoneAskedIsReady {
      startCountingDown(.allReady)
    } else if check.deadline <= now {
      session.readyCheck = nil
      emit(.readyCheckEnded(.timedOut, startsAt: nil))
    }
  }
}
