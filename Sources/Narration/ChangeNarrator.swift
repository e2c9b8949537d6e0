import PlaybackCoordination

/// Turns applied changes into the sentences people read — "bob paused at 12:34", "carol
/// switched to S1E3 · The Storm" — the same words in the front's notices, headless mode's
/// `text` fields and demo transcripts. Names come from the event (so they survive a
/// departure) or the group state; the local participant, when given, is "you".
public enum ChangeNarrator {
  /// What a participant hears when the relay's process changed under it: `resumed`, the
  /// relay kept the room and it is back as the same member (nothing was lost); otherwise the
  /// room started afresh.
  /// `movedTo`: the room is now on another relay (its relay died and another took it
  /// over), at that address.
  public static func relayRestarted(resumed: Bool, movedTo: String? = nil) -> String {
    let what = movedTo.map { "the room moved to the relay at \($0)" } ?? "the relay restarted"
    return resumed ? "\(what); back with the group" : what
  }

  /// The sentence for a change, or nil for changes nobody needs to read about (reports, a
  /// participant becoming ready).
  public static func notice(
    for event: ChangeEvent, in state: GroupState, local: ParticipantID? = nil
  ) -> String? {
    let who = name(of: event, in: state, local: local)
    let isYou = event.originator != nil && event.originator == local
    let whose = isYou ? "your" : "\(who)'s"
    func person(_ id: ParticipantID) -> String {
      if id == local { return "you" }
      return state.participant(id)?.name ?? id.rawValue
    }
    func episode(_ id: ItemID) -> String {
      if let item = state.session?.series.item(id) { return EpisodeLabel.describe(item) }
      if let item = state.queue.lazy.compactMap({ $0.series.item(id) }).first {
        return EpisodeLabel.describe(item)
      }
      return EpisodeLabel.code(id)
    }
    switch event.kind {
    case .entered:
      let via = event.originator.flatMap { state.participant($0) }?.origin ?? .cowatch
      return "\(who) entered the room\(via == .syncplay ? " from Syncplay" : "")"
    case .exited(let reason):
      switch reason {
      case .quit: return "\(who) left the room"
      case .disconnected: return "\(who) lost the connection and left"
      case .timedOut: return "\(who) went silent and was removed"
      case .removed: return "\(who) was removed by the relay"
      }
    case .connectionChanged(let connected):
      return connected ? "\(who) is back online" : "\(who) lost the connection — reconnecting…"
    case .sessionStarted(let item):
      let series = state.session?.series.title
      return "\(who) started \(series.map { "\($0) — " } ?? "")\(episode(item))"
    case .joined: return "\(who) joined"
    case .declined: return "\(who) said not now"
    case .left: return "\(who) left the watch session"
    case .sessionEnded: return "\(who) ended the watch session for everyone"
    case .played(let at, let rate, _):
      let speed = rate == 1 ? "" : " at \(RateFormat.text(rate))"
      return "\(who) played from \(TimeFormat.clock(at))\(speed)"
    case .paused(let at): return "\(who) paused at \(TimeFormat.clock(at))"
    case .seeked(let to): return "\(who) jumped to \(TimeFormat.clock(to))"
    case .rateChanged(let rate): return "\(who) set the speed to \(RateFormat.text(rate))"
    case .replaced(_, let to): return "\(who) switched to \(episode(to))"
    case .autoAdvanced(_, let to): return "auto-advanced to \(episode(to))"
    case .reachedEnd(let item): return "\(episode(item)) ended"
    case .suspended(let reason):
      return reason == .stallRecovery
        ? "\(whose) player stalled" : "\(who) \(SuspensionText.steppedAway(reason, you: isYou))"
    case .resumed(let reason):
      if reason == .stallRecovery { return "\(whose) player recovered" }
      return isYou ? "you are back with the group" : "\(who) is back with the group"
    case .resumedProposing(let time):
      return "\(who) \(isYou ? "are" : "is") back and moved everyone to \(TimeFormat.clock(time))"
    case .readinessChanged(let readiness):
      switch readiness {
      case .ready: return nil
      case .loading: return "\(who) \(isYou ? "are" : "is") loading"
      case .stalled: return "\(who) \(isYou ? "are" : "is") buffering"
      }
    case .waitStarted(let p, let cause):
      let why =
        switch cause {
        case .suspended(let reason) where reason != .stallRecovery:
          SuspensionText.describe(reason, you: p == local)
        default:
          WaitText.describe(
            cause, you: p == local, lender: WaitText.lender(of: p, in: state, local: local))
        }
      return "waiting for \(person(p)) (\(why))"
    case .waitTimedOut(let p): return "gave up waiting for \(person(p)); going on without them"
    case .waitEnded(let at, _):
      // Whoever a wait gave up on stays excused until ready again.
      let without = (state.session?.excused ?? []).map(person)
      return without.isEmpty
        ? "everyone is ready; playing from \(TimeFormat.clock(at))"
        : "playing from \(TimeFormat.clock(at)) without \(without.joined(separator: ", "))"
    case .autoAdvanceChanged(let on): return "\(who) turned auto-advance \(on ? "on" : "off")"
    case .reported, .sealingKeyAnnounced: return nil
    case .lockChanged(let locked):
      return locked
        ? "\(who) locked the room: nobody new can enter" : "\(who) unlocked the room"
    case .playbackControlChanged(let playback):
      switch playback {
      case .owner:
        return
          "\(who) took control of playback: only \(isYou ? "you" : who) can play, pause, seek or switch"
      case .everyone: return "\(who) gave everyone control of playback"
      }
    case .ownerChanged(let to):
      let owner = person(to)
      let verb = to == local ? "now own" : "now owns"
      // Handed over by someone still here, or passed on because the owner left.
      if let from = event.originator, state.participant(from) != nil {
        return "\(who) made \(owner) the room's owner"
      }
      return "\(owner) \(verb) the room (\(who) left)"
    case .removed(let participant, let name):
      return "\(who) removed \(participant == local ? "you" : name) from the room"
    case .queueAdded(_, let item): return "\(who) added \(episode(item)) to the queue"
    case .queueRemoved(_, let item): return "\(who) took \(episode(item)) off the queue"
    case .queueMoved(_, let item, let to):
      return
        "\(who) moved \(episode(item)) to \(to == 0 ? "the top" : "place \(to + 1)") of the queue"
    case .queueCleared: return "\(who) cleared the queue"
    case .queuePlayed(_, _, let to): return "\(who) played \(episode(to)) from the queue"
    case .watchingFrom(let lender):
      // None: between two lenders, or back on one's own file; what comes next says which.
      guard let lender else { return nil }
      let verb = isYou ? "watch" : "watches"
      let owner = lender == local ? "your" : "\(person(lender))'s"
      return "\(who) \(verb) from \(owner) copy"
    case .readyCheckStarted:
      let waiting = notReady(in: state, local: local)
      let asks = isYou ? "you asked" : "\(who) asks"
      return "\(asks): is everyone ready?"
        + (waiting.isEmpty ? "" : " (waiting for \(waiting.joined(separator: ", ")))")
    case .readyToWatchChanged(let ready):
      let verb = isYou ? "are" : "is"
      return ready ? "\(who) \(verb) ready" : "\(who) \(verb) not ready"
    case .readyCheckEnded(let end, let startsAt):
      let countdown =
        startsAt.map { " — starting in \(Int(($0.seconds(since: event.at)).rounded())) s" } ?? ""
      switch end {
      case .allReady: return "everyone is ready" + countdown
      case .startedAnyway:
        let missing = notReady(in: state, local: local)
        return "\(who) started anyway"
          + (missing.isEmpty ? "" : " (without \(missing.joined(separator: ", ")) ready)")
          + countdown
      case .cancelled:
        return event.originator == nil
          ? "the ready check ended: nobody is left to answer it"
          : "\(who) took the ready check back"
      case .timedOut:
        let missing = notReady(in: state, local: local)
        return "the ready check lapsed"
          + (missing.isEmpty ? "" : ": \(missing.joined(separator: ", ")) did not say ready")
      }
    case .startWhenAllReadyChanged(let on):
      return on
        ? "\(who) set the room to start only when everyone is ready"
        : "\(who) let a play start without asking who is ready"
    case .keptChanged(let kept):
      return kept
        ? "\(who) asked the relay to keep the room when everyone has left, paused where you stop, for the next night"
        : "\(who) let the room go when everyone has left"
    case .personalOffsetChanged(let seconds):
      let whoseNow = isYou ? "your" : "\(who)'s"
      guard seconds != 0 else { return "\(whoseNow) player runs with the group again" }
      return
        "\(whoseNow) player runs \(OffsetText.describe(seconds)) of the group (a personal offset)"
    }
  }

  /// "bob: hi there".
  /// `to`: the recipients of a message meant for some people only, marked so nobody
  /// takes it for one everyone read ("bob → you, carol: see you").
  public static func chat(from name: String, text: String, to: [String]? = nil) -> String {
    let only = to.map { " → \($0.joined(separator: ", "))" } ?? ""
    // "/me waves" is an action: "* bob waves".
    if text.hasPrefix("/me "), text.count > 4 {
      return "* \(name) \(text.dropFirst(4))" + (to == nil ? "" : " (\(only.dropFirst(3)) only)")
    }
    return "\(name)\(only): \(text)"
  }

  /// Those a ready check still waits for, as shown ("you", names), in room order.
  public static func notReady(in state: GroupState, local: ParticipantID?) -> [String] {
    state.notReadyToWatch.map { $0.id == local ? "you" : $0.name }
  }

  /// A reaction as a line: "ann reacted 😂 at 12:34" ("you reacted …" for one's own).
  public static func reaction(from name: String, _ reaction: Reaction) -> String {
    "\(name) reacted \(reaction.text) at \(TimeFormat.clock(reaction.at))"
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
