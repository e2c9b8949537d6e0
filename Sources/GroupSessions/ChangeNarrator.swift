import PlaybackCoordination

/// Turns applied changes into the sentences people read ("bob paused at 12:34"), for
/// headless notices, demo transcripts and the front's notice pane.
public enum ChangeNarrator {
  /// A sentence for `event`, or nil for changes nobody needs to read about (reports).
  public static func describe(_ event: ChangeEvent, in state: GroupState) -> String? {
    let who = event.originatorName ?? "the group"
    func name(_ id: ParticipantID) -> String { state.participant(id)?.name ?? id.rawValue }
    func title(_ id: ItemID) -> String {
      guard let session = state.session else { return id.rawValue }
      if let item = session.series.item(id) { return "\(item.title) (\(id.rawValue))" }
      return id.rawValue
    }
    switch event.kind {
    case .entered: return "\(who) entered the room"
    case .exited(let reason):
      switch reason {
      case .quit: return "\(who) left the room"
      case .disconnected: return "\(who) lost the connection and was removed"
      case .timedOut: return "\(who) went silent and was removed"
      case .removed: return "\(who) was removed by the relay"
      }
    case .connectionChanged(let connected):
      return connected ? "\(who) is back" : "\(who) is reconnecting"
    case .sessionStarted(let item): return "\(who) started \(title(item))"
    case .joined: return "\(who) joined"
    case .left: return "\(who) left the watch session"
    case .sessionEnded: return "\(who) ended the watch session for everyone"
    case .played(let at, let rate, _):
      return rate == 1
        ? "\(who) played from \(TimeFormat.clock(at))"
        : "\(who) played from \(TimeFormat.clock(at)) at \(rateText(rate))"
    case .paused(let at): return "\(who) paused at \(TimeFormat.clock(at))"
    case .seeked(let to): return "\(who) jumped to \(TimeFormat.clock(to))"
    case .rateChanged(let rate): return "\(who) set the speed to \(rateText(rate))"
    case .replaced(_, let to): return "\(who) switched to \(title(to))"
    case .autoAdvanced(_, let to): return "on to the next episode: \(title(to))"
    case .reachedEnd(let item): return "\(title(item)) ended"
    case .suspended(let reason):
      return reason == .stallRecovery
        ? "\(who)'s player stalled" : "\(who) stepped away (\(reason))"
    case .resumed(let reason):
      return reason == .stallRecovery
        ? "\(who)'s player recovered" : "\(who) is back with the group"
    case .resumedProposing(let time):
      return "\(who) is back and moved everyone to \(TimeFormat.clock(time))"
    case .readinessChanged(let readiness):
      switch readiness {
      case .ready: return nil
      case .loading: return "\(who) is loading"
      case .stalled: return "\(who) is buffering"
      }
    case .waitStarted(let p, let cause):
      let why: String
      switch cause {
      case .loading: why = "loading"
      case .stalled, .suspended(.stallRecovery): why = "buffering"
      case .suspended(let reason): why = reason.rawValue
      }
      return "waiting for \(name(p)) (\(why))"
    case .waitTimedOut(let p): return "gave up waiting for \(name(p)); going on without them"
    case .waitEnded(let at, _): return "the group plays on from \(TimeFormat.clock(at))"
    case .autoAdvanceChanged(let on): return "\(who) turned auto-advance \(on ? "on" : "off")"
    case .reported: return nil
    }
  }

  public static func rateText(_ rate: Double) -> String {
    let r = (rate * 100).rounded() / 100
    return r == r.rounded() ? "\(Int(r))×" : "\(r)×"
  }
}
