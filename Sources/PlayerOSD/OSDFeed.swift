import Narration
import Participation
import PlaybackCoordination

/// What a player's on-screen display shows of the group — "bob paused at 12:34", "waiting
/// for dan: buffering, 4 s left", "carol: brb" — so that someone watching full screen
/// need not switch to the terminal. Pure: fed the client's events, its snapshots and the
/// time; each input returns what to show, which the runtime passes to the player.
///
/// A few recent lines are shown together, newest last, each for a while (chat longer than
/// changes), with the group's wait, if any, on top. Short by design: the display sits at
/// the top of the picture and leaves the subtitles at the bottom alone.
public struct OSDFeed: Sendable {
  /// What to show in place of what is shown now.
  public enum Action: Hashable, Sendable {
    /// Show `text` (lines separated by newlines) for `seconds`.
    case show(String, seconds: Double)
    /// Take down what is shown.
    case clear
  }

  public struct Timing: Hashable, Sendable {
    /// How long a change stays up.
    public var change: Double = 4
    /// How long a chat line stays up (people read it, and it may be longer).
    public var chat: Double = 7
    /// How long a group's wait must last before it is shown (every start waits a moment
    /// for the players to load: that is no news).
    public var waitShownAfter: Double = 1
    /// Lines shown at once, at most (the wait not counted).
    public var lines: Int = 4
    /// Characters of one line, at most.
    public var columns: Int = 90
    public init() {}
  }

  private struct Line: Hashable, Sendable {
    var text: String
    var until: LocalInstant
  }

  public let mode: OSDMode
  public let timing: Timing
  private var local: ParticipantID?
  private var state = GroupState()
  private var lines: [Line] = []
  private var wait: String?
  private var shown: String?
  private var shownUntil: LocalInstant?

  public init(mode: OSDMode, timing: Timing = Timing()) {
    self.mode = mode
    self.timing = timing
  }

  /// When the next line goes (the runtime calls ``tick(at:)`` then, or earlier).
  public var nextExpiry: LocalInstant? { lines.map(\.until).min() }

  /// What is shown now (nil: nothing).
  public var text: String? { shown }

  // MARK: - Inputs

  /// One of the client's events.
  public mutating func heard(_ event: ClientEvent, at now: LocalInstant) -> Action? {
    guard mode != .none else { return nil }
    switch event {
    case .welcomed(let participant, _, _, _, _):
      local = participant
    case .state(let newState, let events):
      state = newState
      for change in events {
        if let text = sentence(for: change) { add(text, for: timing.change, at: now) }
      }
    case .reaction(let from, let name, let reaction, let earlier):
      // What was said before this person came is not news on the picture.
      guard mode == .chat, !earlier, from != local else { break }
      add(ChangeNarrator.reaction(from: name, reaction), for: timing.chat, at: now)
    case .message(let from, let name, let kind, let body, let to, let earlier):
      guard mode == .chat, kind == .chat, from != local, !earlier else { break }
      let names = to.map { ids in
        ids.map { id in id == local ? "you" : state.participant(id)?.name ?? id.rawValue }
      }
      add(ChangeNarrator.chat(from: name, text: body, to: names), for: timing.chat, at: now)
    case .rejected(let command, let rejection, _):
      // A key pressed in mpv that the group refused: said where it was pressed.
      if let why = RefusalText.describe(rejection, of: command, in: state) {
        add("not done: \(why)", for: timing.change, at: now)
      }
    case .notice(let notice):
      if notice.weight != .info || notice.isRoomMove {
        add(notice.description, for: timing.change, at: now)
      }
    case .connection, .session, .succession:
      break
    }
    return refresh(at: now)
  }

  /// The group as the participant holds it at group time `groupTime` (its estimate; nil
  /// before it has one): the runtime looks every half second or so, so that the seconds
  /// left of a wait count down.
  public mutating func saw(
    _ group: GroupState, groupTime: GroupInstant?, at now: LocalInstant
  ) -> Action? {
    guard mode != .none else { return nil }
    wait = waitLine(group, at: groupTime)
    return refresh(at: now)
  }

  /// Takes down lines whose time is up.
  public mutating func tick(at now: LocalInstant) -> Action? {
    guard mode != .none else { return nil }
    return refresh(at: now)
  }

  // MARK: - Words

  /// The sentence for a change, as the person watching would want it in the picture: their
  /// own playback changes say that everyone followed ("you paused for everyone": a key
  /// pressed in mpv reached the group); readiness and the start of a wait are left to the
  /// wait line.
  func sentence(for change: ChangeEvent) -> String? {
    let mine = change.originator != nil && change.originator == local
    switch change.kind {
    case .readinessChanged, .waitStarted, .reported, .sealingKeyAnnounced:
      return nil
    case .waitEnded:
      // "everyone is ready" follows every wait; only going on without someone is news.
      guard !(state.session?.excused ?? []).isEmpty else { return nil }
    case .paused(let at) where mine:
      return "you paused for everyone at \(TimeFormat.clock(at))"
    case .played(let at, _, _) where mine:
      return "you played for everyone from \(TimeFormat.clock(at))"
    case .seeked(let to) where mine:
      return "you moved everyone to \(TimeFormat.clock(to))"
    case .rateChanged(let rate) where mine:
      return "you set the speed to \(RateFormat.text(rate)) for everyone"
    default:
      break
    }
    return ChangeNarrator.notice(for: change, in: state, local: local)
  }

  /// The group's wait, with a ready check or its countdown ("▶ starting in 3…") first.
  private func waitLine(_ group: GroupState, at groupTime: GroupInstant?) -> String? {
    guard let now = groupTime else { return nil }
    let lines = [ReadyText.line(group, now: now, local: local), playerWaitLine(group, at: now)]
      .compactMap { $0 }
    return lines.isEmpty ? nil : lines.joined(separator: "\n")
  }

  private func playerWaitLine(_ group: GroupState, at now: GroupInstant) -> String? {
    guard let waits = group.session?.waits, !waits.isEmpty else { return nil }
    let shown = waits.filter { now.seconds(since: $0.since) >= timing.waitShownAfter }
    guard !shown.isEmpty else { return nil }
    let parts = shown.map { w -> String in
      let you = w.participant == local
      let name = you ? "you" : group.participant(w.participant)?.name ?? "someone"
      let lender = WaitText.lender(of: w.participant, in: group, local: local)
      return "\(name): \(WaitText.describe(w.cause, you: you, lender: lender))"
    }
    let left = shown.map { max(0, Int($0.deadline.seconds(since: now).rounded(.up))) }.max() ?? 0
    return "waiting for \(parts.joined(separator: "; ")), \(left) s left"
  }

  // MARK: - Composition

  private mutating func add(_ text: String, for seconds: Double, at now: LocalInstant) {
    lines.append(Line(text: fitted(text), until: now.advanced(bySeconds: seconds)))
    if lines.count > timing.lines { lines.removeFirst(lines.count - timing.lines) }
  }

  /// One line of at most ``Timing/columns`` characters, with no control characters (a
  /// chat line is someone else's text).
  private func fitted(_ text: String) -> String {
    let clean = String(
      text.unicodeScalars.map { $0.properties.generalCategory == .control ? " " : Character($0) })
    guard clean.count > timing.columns else { return clean }
    return String(clean.prefix(timing.columns - 1)) + "…"
  }

  private mutating func refresh(at now: LocalInstant) -> Action? {
    lines.removeAll { !($0.until > now) }
    let all =
      (wait.map { $0.split(separator: "\n").map { fitted(String($0)) } } ?? []) + lines.map(\.text)
    guard !all.isEmpty else {
      guard shown != nil else { return nil }
      shown = nil
      shownUntil = nil
      return .clear
    }
    let text = all.joined(separator: "\n")
    // A wait stays up until the next snapshot replaces it; lines until their time is up.
    let until = (lines.map(\.until) + (wait == nil ? [] : [now.advanced(bySeconds: 1.5)])).max()!
    // Shown again when it changed, when a line came that stays longer (the same words
    // again), or when a wait would drop out before the next snapshot.
    let linesUntil = lines.map(\.until).max() ?? now
    if text == shown, let shownUntil, linesUntil.seconds(since: shownUntil) < 0.25,
      wait == nil || shownUntil.seconds(since: now) >= 1
    {
      return nil
    }
    shown = text
    shownUntil = until
    return .show(text, seconds: until.seconds(since: now))
  }
}

extension Notice {
  fileprivate var isRoomMove: Bool {
    if case .roomMoved = self { return true }
    return false
  }
}
