import PlaybackCoordination

/// Turns applied changes into the lines of the notices pane: "bob paused at 12:34",
/// "carol switched to S1E3". Names come from the event (so they survive a departure) or
/// the group state; the local participant is "you".
public enum NoticeFormatter {
  /// The notice for a change, or nil for changes nobody needs to read about (reports,
  /// a participant becoming ready).
  public static func notice(
    for event: ChangeEvent, in state: GroupState, local: ParticipantID? = nil
  ) -> String? {
    let who = name(of: event, in: state, local: local)
    func person(_ id: ParticipantID) -> String {
      if id == local { return "you" }
      return state.participant(id)?.name ?? id.rawValue
    }
    func episode(_ id: ItemID) -> String {
      if let item = state.session?.series.item(id) { return EpisodeLabel.describe(item) }
      return EpisodeLabel.code(id)
    }
    let isYou = event.originator != nil && event.originator == local
    switch event.kind {
    case .entered: return "\(who) entered the room"
    case .exited(let reason):
      switch reason {
      case .quit: return "\(who) left the room"
      case .disconnected: return "\(who) lost the connection and left"
      case .timedOut: return "\(who) timed out and left"
      case .removed: return "\(who) was removed from the room"
      }
    case .connectionChanged(let connected):
      return connected ? "\(who) is back online" : "\(who) lost the connection — reconnecting…"
    case .sessionStarted(let item):
      let series = state.session?.series.title
      return "\(who) started \(series.map { "\($0) — " } ?? "")\(episode(item))"
    case .joined: return "\(who) joined"
    case .left: return "\(who) left the session"
    case .sessionEnded: return "\(who) ended the session for everyone"
    case .played(let at, let rate, _):
      let speed = rate == 1 ? "" : " at \(RateFormat.text(rate))"
      return "\(who) played from \(TimeFormat.clock(at))\(speed)"
    case .paused(let at): return "\(who) paused at \(TimeFormat.clock(at))"
    case .seeked(let to): return "\(who) jumped to \(TimeFormat.clock(to))"
    case .rateChanged(let rate): return "\(who) set the speed to \(RateFormat.text(rate))"
    case .replaced(_, let to): return "\(who) switched to \(episode(to))"
    case .autoAdvanced(_, let to): return "auto-advanced to \(episode(to))"
    case .reachedEnd(let item): return "\(EpisodeLabel.code(item)) ended"
    case .suspended(let reason): return "\(who) stepped away (\(SuspensionText.describe(reason)))"
    case .resumed: return isYou ? "you are back with the group" : "\(who) is back with the group"
    case .resumedProposing(let time):
      return "\(who) came back and moved everyone to \(TimeFormat.clock(time))"
    case .readinessChanged(let readiness):
      switch readiness {
      case .ready: return nil
      case .loading: return "\(who) is loading"
      case .stalled: return "\(who) is buffering"
      }
    case .waitStarted(let p, let cause): return "waiting for \(person(p)) (\(cause))"
    case .waitTimedOut(let p): return "stopped waiting for \(person(p)) — going on without them"
    case .waitEnded: return "everyone is ready — starting"
    case .autoAdvanceChanged(let on): return "\(who) turned auto-advance \(on ? "on" : "off")"
    case .reported: return nil
    }
  }

  /// "bob: hi there".
  public static func chat(from name: String, text: String) -> String {
    "\(name): \(text)"
  }

  /// Who caused a change, as shown: "you", their name, or "the group".
  public static func name(of event: ChangeEvent, in state: GroupState, local: ParticipantID?)
    -> String
  {
    guard let id = event.originator else { return event.originatorName ?? "the group" }
    if id == local { return "you" }
    return event.originatorName ?? state.participant(id)?.name ?? id.rawValue
  }
}

/// Suspension reasons in words.
public enum SuspensionText {
  public static func describe(_ reason: SuspensionReason) -> String {
    switch reason {
    case .interrupted: "interrupted"
    case .stallRecovery: "recovering from a stall"
    case .userActionRequired: "needs to act"
    case .changingTime: "choosing a time"
    default: reason.rawValue
    }
  }
}
