/// Waiting: who the group holds for, until when, and what happens when a wait ends.
extension GroupTransition {
  func timeout(for cause: WaitCause) -> Double {
    switch cause {
    case .answering: configuration.answerTimeout
    case .loading: configuration.firstLoadTimeout
    case .stalled: configuration.rebufferTimeout
    case .suspended: configuration.suspensionWaitTimeout
    }
  }

  /// Why the group would hold for `participant` now, or nil if it would not: joined, not
  /// excused, not detached (suspended for a non-waiting reason); then a waiting-reason
  /// suspension, or a load or re-buffer unless it is catching up on its own.
  func holdCause(for participant: Participant) -> WaitCause? {
    guard let session = state.session else { return nil }
    if !participant.isJoined, session.invited.contains(participant.id) { return .answering }
    guard participant.isJoined, !session.excused.contains(participant.id) else { return nil }
    let waiting = configuration.waitingReasons
    if participant.suspensions.contains(where: { !waiting.contains($0) }) { return nil }
    if let reason = participant.suspensions.first { return .suspended(reason) }
    if session.catchingUp.contains(participant.id) { return nil }
    switch participant.readiness {
    case .ready: return nil
    case .loading: return .loading
    case .stalled: return .stalled
    }
  }

  /// Makes the group hold for `id` (unless it already does), stopping the timeline where
  /// it is.
  mutating func hold(_ id: ParticipantID, cause: WaitCause) {
    guard !session.waits.contains(where: { $0.participant == id }) else { return }
    session.waits.append(
      GroupWait(
        participant: id, cause: cause, since: now,
        deadline: now.advanced(bySeconds: timeout(for: cause))))
    freeze()
    emit(.waitStarted(participant: id, cause: cause))
  }

  /// The holds a play from a paused group needs: every joined participant it would wait
  /// for and does not yet, in room order.
  func pendingHolds() -> [(ParticipantID, WaitCause)] {
    let waited = Set(session.waits.map { $0.participant })
    return state.participants.compactMap { participant in
      guard !waited.contains(participant.id), let cause = holdCause(for: participant) else {
        return nil
      }
      return (participant.id, cause)
    }
  }

  /// Brings the waits in line with a change of `id`'s readiness or suspensions: excuses
  /// end once it is ready, its wait ends or changes cause, or a new wait starts if the
  /// group means to play. With `startIfDone`, a group no longer waiting starts.
  mutating func reconsider(_ id: ParticipantID, startIfDone: Bool = true) {
    guard let index = index(of: id), state.session != nil else { return }
    let participant = state.participants[index]
    let waiting = configuration.waitingReasons
    if participant.readiness == .ready {
      session.catchingUp.removeAll { $0 == id }
      if !participant.suspensions.contains(where: { waiting.contains($0) }) {
        session.excused.removeAll { $0 == id }
      }
    }
    let cause = holdCause(for: participant)
    if let waitIndex = session.waits.firstIndex(where: { $0.participant == id }) {
      if let cause {
        session.waits[waitIndex].cause = cause
      } else {
        session.waits.remove(at: waitIndex)
        if startIfDone { startIfReady() }
      }
    } else if let cause, session.intendedRate > 0 {
      hold(id, cause: cause)
    }
  }

  /// Forgets `id` in the session's bookkeeping (it left or exited).
  mutating func forget(_ id: ParticipantID) {
    guard state.session != nil else { return }
    session.invited.removeAll { $0 == id }
    session.waits.removeAll { $0.participant == id }
    session.excused.removeAll { $0 == id }
    session.catchingUp.removeAll { $0 == id }
  }

  // MARK: - Items

  /// Switches the group to `info` of `series` at 0, paused, keeping its intent to play.
  /// Every joined participant loads it and the group waits for each (first-load timeout),
  /// except detached ones, who catch up on their own. Emits nothing itself; the caller
  /// emits what caused the switch and then calls ``startIfReady()``.
  mutating func switchItem(to info: ItemInfo, of series: SeriesInfo) {
    var next = session
    next.series = series
    next.item = info
    next.timeline = Timeline(itemTime: 0, groupTime: now, rate: 0)
    next.intendedRate = next.intendedRate > 0 ? next.playbackRate : 0
    next.reachedEnd = false
    next.waits = []
    next.excused = []
    next.catchingUp = []
    // Unanswered offers were for the session's start; a switch starts no new session.
    next.invited = []
    session = next
    for index in state.participants.indices where state.participants[index].isJoined {
      state.participants[index].readiness = .loading
      let participant = state.participants[index]
      if let cause = holdCause(for: participant) {
        session.waits.append(
          GroupWait(
            participant: participant.id, cause: cause, since: now,
            deadline: now.advanced(bySeconds: timeout(for: cause))))
      } else {
        session.catchingUp.append(participant.id)
      }
    }
  }

  /// The current item ended (an advance request or the timeline reaching the end):
  /// auto-advance if anyone joined has it on — under owner-only control, if the owner has
  /// (going on is a switch, theirs to make) — to the queue's first entry, else to the
  /// series' next item; otherwise stop at the end.
  mutating func finishItem() {
    let current = session
    let ownerOnly = state.control.playback == .owner
    let anyoneAdvances = state.participants.contains {
      $0.isJoined && $0.autoAdvance && (!ownerOnly || $0.id == state.control.owner)
    }
    if anyoneAdvances, let (entry, info) = takeFirstQueued() {
      switchItem(to: info, of: entry.series)
      emit(.autoAdvanced(from: current.item.id, to: info.id))
      startIfReady()
    } else if anyoneAdvances, let next = current.series.item(after: current.item.id) {
      switchItem(to: next, of: current.series)
      emit(.autoAdvanced(from: current.item.id, to: next.id))
      startIfReady()
    } else {
      session.timeline = Timeline(itemTime: current.item.duration, groupTime: now, rate: 0)
      session.intendedRate = 0
      session.reachedEnd = true
      emit(.reachedEnd(item: current.item.id))
    }
  }

  // MARK: - Time

  /// Time-driven rules: expired waits excuse their participant (and may let the group
  /// start), then a timeline that reached the item's end finishes the item.
  mutating func tick() {
    guard let current = state.session else { return }
    let expired = current.waits.filter { $0.deadline <= now }
    if !expired.isEmpty {
      let now = self.now
      session.waits.removeAll { $0.deadline <= now }
      for wait in expired {
        if wait.cause == .answering {
          // No answer: the group goes on; joining later is a late join like any other.
          session.invited.removeAll { $0 == wait.participant }
        } else if !session.excused.contains(wait.participant) {
          session.excused.append(wait.participant)
        }
        emit(.waitTimedOut(participant: wait.participant))
      }
      startIfReady()
    }
    if !session.reachedEnd, let end = session.timeline.groupTime(reaching: session.item.duration),
      end <= now
    {
      finishItem()
    }
    settleReadyCheck()
  }
}
