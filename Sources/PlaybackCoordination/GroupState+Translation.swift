extension GroupState {
  /// The same state on a group clock `nanoseconds` ahead of the one it was made on: every
  /// instant moves, so that the timeline gives the same item time at the same real moment.
  ///
  /// For a room that moves to a relay whose monotonic clock counts from elsewhere (another
  /// machine, a reboot); the offset comes from both relays' wall clocks.
  public func translated(by nanoseconds: Int64) -> GroupState {
    guard nanoseconds != 0 else { return self }
    var state = self
    state.lastChange = lastChange?.translated(by: nanoseconds)
    if var session = state.session {
      session.timeline.groupTime = session.timeline.groupTime.shifted(by: nanoseconds)
      session.waits = session.waits.map { wait in
        var wait = wait
        wait.since = wait.since.shifted(by: nanoseconds)
        wait.deadline = wait.deadline.shifted(by: nanoseconds)
        return wait
      }
      session.lastPlaybackChange = session.lastPlaybackChange?.translated(by: nanoseconds)
      state.session = session
    }
    return state
  }
}

extension ChangeEvent {
  /// The same event on a group clock `nanoseconds` ahead (see ``GroupState/translated(by:)``).
  public func translated(by nanoseconds: Int64) -> ChangeEvent {
    var event = self
    event.at = at.shifted(by: nanoseconds)
    switch kind {
    case .played(let at, let rate, let startsAt):
      event.kind = .played(at: at, rate: rate, startsAt: startsAt.shifted(by: nanoseconds))
    case .waitEnded(let at, let startsAt):
      event.kind = .waitEnded(at: at, startsAt: startsAt.shifted(by: nanoseconds))
    default: break
    }
    return event
  }
}

extension GroupInstant {
  /// Saturating, like every instant arithmetic here.
  func shifted(by nanoseconds: Int64) -> GroupInstant {
    GroupInstant(nanoseconds: InstantArithmetic.adding(self.nanoseconds, nanoseconds))
  }
}
