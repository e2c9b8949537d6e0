import Narration
import PlaybackCoordination

/// The one line that says what the group is doing and why.
extension ScreenRenderer {
  // MARK: - State line

  /// What the group (and this terminal) is doing, in one line.
  /// `width`: the columns the line gets, when known (parts that matter less go first).
  static func stateLine(_ model: FrontModel, width: Int? = nil) -> (text: String, style: CellStyle)
  {
    switch model.connection {
    case .reconnecting:
      var text = "⟳ reconnecting to the relay…"
      if let since = model.reconnectingSince {
        // Short enough for a narrow pane: "⟳ reconnecting… 0:23 (gives up at 1:00)".
        text = "⟳ reconnecting… \(TimeFormat.clock(max(0, model.now.seconds(since: since))))"
        if let limit = model.reconnectGiveUpAfter {
          text += " (gives up at \(TimeFormat.clock(limit)))"
        }
      }
      return (text, CellStyle(.warning, bold: true))
    case .disconnected(let reason):
      return ("✕ disconnected\(reason.map { ": \($0)" } ?? "")", CellStyle(.error, bold: true))
    case .connected: break
    }
    if model.showsLocalPlayback { return localStateLine(model) }
    switch model.membership {
    case .noSession: return ("nothing playing", CellStyle(.muted, bold: true))
    case .invalidated(let reason):
      return ("session ended: \(reason)", CellStyle(.warning, bold: true))
    case .waiting:
      let who =
        (model.sessionStartedBy ?? model.session?.startedBy).map { "\($0) started watching" }
        ?? "a watch session is on"
      return ("\(who) · j to join", CellStyle(.accent, bold: true))
    case .joined: break
    }
    guard let session = model.session else {
      return ("nothing playing", CellStyle(.muted, bold: true))
    }
    if let reason = model.localSuspensions.last {
      // How to come back matters more than the reason, which the people pane shows too.
      let full = "you \(SuspensionText.steppedAway(reason, you: true)) · s to come back"
      let fits = width.map { CharacterWidth.of(full) <= $0 } ?? true
      return (fits ? full : "you stepped away · s to come back", CellStyle(.warning, bold: true))
    }
    switch session.status {
    case .finished:
      if let next = session.series.item(after: session.item.id) {
        // Only to whoever may switch; under owner-only control the others read who decides.
        let hint =
          model.controlsPlayback
          ? "n for \(EpisodeLabel.code(next.id))"
          : "\(model.group.owner?.name ?? "the owner") chooses what's next"
        return ("■ finished — \(hint)", CellStyle(.muted, bold: true))
      }
      return ("■ finished", CellStyle(.muted, bold: true))
    case .waiting:
      let names = session.waits.map { w in
        w.participant == model.localParticipant
          ? "you" : (model.group.participant(w.participant)?.name ?? "?")
      }
      let longest = session.waits.map { secondsLeft(until: $0.deadline, now: model.now) }.max() ?? 0
      return (
        "⏳ waiting for \(names.joined(separator: ", ")) · \(longest) s left",
        CellStyle(.waiting, bold: true)
      )
    case .paused:
      return (
        "⏸ paused\(model.pausedByName.map { " by \($0)" } ?? "")", CellStyle(.paused, bold: true)
      )
    case .playing:
      // A start from a stop counts down; a seek or rate change while playing goes on
      // playing until its switch instant.
      if session.timeline.groupTime > model.now, session.timeline.priorRate == 0 {
        let s = session.timeline.groupTime.seconds(since: model.now)
        let tenths = Int((s * 10).rounded(.up))
        return ("▶ starting in \(tenths / 10).\(tenths % 10)s", CellStyle(.playing, bold: true))
      }
      return ("▶ playing", CellStyle(.playing, bold: true))
    }
  }

  /// What the local player does while this person watches alone.
  static func localStateLine(_ model: FrontModel) -> (text: String, style: CellStyle) {
    switch model.player.activity {
    case .playing: return ("▶ watching alone", CellStyle(.playing, bold: true))
    case .paused: return ("⏸ paused · watching alone", CellStyle(.paused, bold: true))
    case .loading: return ("… loading · watching alone", CellStyle(.waiting, bold: true))
    case .stalled: return ("⏳ buffering · watching alone", CellStyle(.waiting, bold: true))
    case .ended: return ("■ finished · watching alone", CellStyle(.muted, bold: true))
    case .idle: return ("watching alone", CellStyle(.muted, bold: true))
    }
  }

  /// The episode the player pane is about, or nil when nothing is being watched.
  static func episodeShown(_ model: FrontModel) -> String? {
    if model.showsLocalPlayback, let id = model.player.item {
      let title = model.player.itemTitle ?? ""
      guard let code = EpisodeLabel.episodeCode(id) else {
        return title.isEmpty ? id.rawValue : title
      }
      return title.isEmpty ? code : "\(code) · \(title)"
    }
    return model.session.map { EpisodeLabel.describe($0.item) }
  }

  static func seriesShown(_ model: FrontModel) -> String {
    if !model.showsLocalPlayback, let session = model.session { return session.series.title }
    return model.player.seriesTitle ?? "Cowatch"
  }

  /// The picture and subtitles are shown when the player plays for this person.
  static func showsPicture(_ model: FrontModel) -> Bool {
    model.isJoined || model.showsLocalPlayback
  }

  static func rateShown(_ model: FrontModel) -> Double {
    if model.showsLocalPlayback { return model.player.rate > 0 ? model.player.rate : 1 }
    guard let session = model.session else { return 1 }
    // While paused, the speed play will resume at (the group's chosen rate).
    return session.intendedRate > 0 ? session.intendedRate : session.playbackRate
  }
}
