import Narration
import PlaybackCoordination

/// Whether this terminal is talking to the relay.
public enum ConnectionState: Hashable, Sendable {
  case connected
  /// Lost the link; trying again. The group state shown is the last one received.
  case reconnecting
  /// Gave up (or never got through); with a reason to show.
  case disconnected(reason: String?)
}

/// This participant's relation to the room's watch session (SharePlay's GroupSession
/// states, plus "no session at all").
public enum MembershipState: Hashable, Sendable {
  /// Nothing is being watched in the room.
  case noSession
  /// A session exists and this participant has not joined it (the front offers to).
  case waiting
  case joined
  /// The session ended for this participant: left, ended for everyone, removed, relay
  /// lost for good. The reason is shown as it is.
  case invalidated(reason: String)
}

/// Everything the screen shows, as one value. The renderer draws it; nothing in it refers
/// to the network, so the session client can fill it from wherever it likes.
///
/// Typical wiring: on each group state received, set ``group`` and pass its
/// `lastChange` to ``apply(_:)``; on each tick, set ``now`` and ``player``; then let the
/// ``FrontController`` ``FrontController/prepare(_:)`` it (prompts, help) and render.
public struct FrontModel: Hashable, Sendable {
  /// The room's name, for the header.
  public var roomName: String
  /// Which participant this terminal is; nil before the relay has assigned one.
  public var localParticipant: ParticipantID?
  /// The members whose machines would carry the room next, in order (the first is marked
  /// "next host" in the people pane).
  public var successors: [ParticipantID] = []
  /// Members who offered to carry the room but whose machines the relay could not reach
  /// (behind a NAT): said in the people pane, so that nobody counts on them.
  public var unreachableCarriers: [ParticipantID] = []
  /// Members the relay passed over as successors for a while: their connection went each
  /// time they were sent the room's copy. Said in the people pane, with why.
  public var passedOverCarriers: [ParticipantID] = []
  /// The relay keeps a room nobody is in when its owner asks: the room menu offers it only
  /// then.
  public var relayKeepsRooms = false
  public var group: GroupState
  public var player: PlayerView
  /// The current group time, for positions, countdowns and notice ages.
  public var now: GroupInstant
  public var connection: ConnectionState
  public var membership: MembershipState
  /// Newest first.
  public var notices: [NoticeLine]
  /// Event and error notices dim after half this many seconds and disappear after it.
  public var noticeLifetime: Double
  /// Chat lines last longer than event notices.
  public var chatLifetime: Double
  /// What can be watched, for the episode picker when no session is running.
  public var catalog: [SeriesInfo]
  /// The links this person opened (`/play`, `/queue`), each a series of one, newest last:
  /// a switch to one, confirmed later, finds it here.
  public var links: [SeriesInfo] = []
  /// The modal prompt on top, if any (set by ``FrontController/prepare(_:)``).
  public var prompt: Prompt?
  /// The help overlay is shown (set by ``FrontController/prepare(_:)``).
  public var showsHelp: Bool
  /// The help's page (see ``FrontController/helpPage``).
  public var helpPage = 0
  /// The terminal's size when last known: how many pages the help takes depends on it.
  public var screenSize: TerminalSize?
  /// When the connection was lost, while reconnecting; and how long the client tries
  /// before it gives up: the state line says both, so that nobody waits without knowing.
  public var reconnectingSince: GroupInstant?
  public var reconnectGiveUpAfter: Double?
  /// Who last paused the group, for "paused by bob" (kept by ``apply(_:)``).
  public var pausedBy: String?

  /// Who paused the group: from the changes this front saw, or else from the group state
  /// (for a front that joined after the pause).
  public var pausedByName: String? {
    if let pausedBy { return pausedBy }
    guard let change = session?.lastPlaybackChange, case .paused = change.kind else { return nil }
    return ChangeNarrator.name(of: change, in: group, local: localParticipant)
  }
  /// Who started the current session, for "bob started …" (kept by ``apply(_:)``).
  public var sessionStartedBy: String?
  /// Links others started or queued that wait for this person's answer (their player
  /// opens them only if allowed), oldest first.
  public var linkQuestions: [String] = []
  /// The last change turned into a notice, so that the same change is never shown twice.
  public var lastAppliedSequence: UInt64?
  /// How many notices are kept at most.
  public var noticeCapacity: Int
  /// The local player plays an item for this person only ("Only me"): the group does not
  /// follow, and the player pane shows the local player instead of a session.
  public var watchingAlone: Bool = false
  /// The command others use to join this room (shown while nothing is being watched).
  public var invite: String?
  /// The rates the relay allows (its engine configuration; the default until welcomed).
  public var allowedRates: ClosedRange<Double> = EngineConfiguration().allowedRates
  /// The local player (mpv) has quit; `r` starts it again.
  public var playerGone = false
  /// The suspension reasons the group waits for (the relay's waiting policy): the step-away
  /// menu says which.
  public var waitingReasons: Set<SuspensionReason> = EngineConfiguration().waitingReasons
  /// Messages in this room are sealed with its password (shown as a lock).
  public var messagesSealed = false

  public init(
    roomName: String = "lobby", localParticipant: ParticipantID? = nil,
    group: GroupState = GroupState(),
    player: PlayerView = PlayerView(), now: GroupInstant = GroupInstant(nanoseconds: 0),
    connection: ConnectionState = .connected, membership: MembershipState = .noSession,
    notices: [NoticeLine] = [], noticeLifetime: Double = 20, chatLifetime: Double = 120,
    catalog: [SeriesInfo] = [], prompt: Prompt? = nil, showsHelp: Bool = false,
    pausedBy: String? = nil,
    sessionStartedBy: String? = nil, noticeCapacity: Int = 50
  ) {
    self.roomName = roomName
    self.localParticipant = localParticipant
    self.group = group
    self.player = player
    self.now = now
    self.connection = connection
    self.membership = membership
    self.notices = notices
    self.noticeLifetime = noticeLifetime
    self.chatLifetime = chatLifetime
    self.catalog = catalog
    self.prompt = prompt
    self.showsHelp = showsHelp
    self.pausedBy = pausedBy
    self.sessionStartedBy = sessionStartedBy
    self.noticeCapacity = noticeCapacity
  }

  public var session: WatchSession? { group.session }

  public var local: Participant? { localParticipant.flatMap(group.participant) }

  /// The text being typed in the chat line, when the chat prompt is open.
  public var chatInput: String? {
    guard let prompt, case .chat = prompt.kind else { return nil }
    return prompt.input
  }

  /// A line being typed at the bottom of the screen (an input prompt: the chat, a reason
  /// to step away): what it is for, the text so far and what Enter does.
  public struct InputLine: Hashable, Sendable {
    /// Before the text: "say: ".
    public var label: String
    public var text: String
    /// Characters of `text` before the cursor.
    public var cursor: Int
    /// At the right: "enter send · esc cancel".
    public var hint: String
  }

  /// The line being typed, when an input prompt is open.
  public var inputLine: InputLine? {
    guard let prompt, prompt.layout == .input else { return nil }
    switch prompt.kind {
    case .stepAwayReason:
      return InputLine(
        label: "why: ", text: prompt.input, cursor: prompt.cursor,
        hint: "enter step away · esc cancel")
    default:
      return InputLine(
        label: "say: ", text: prompt.input, cursor: prompt.cursor, hint: "enter send · esc cancel")
    }
  }

  public var isJoined: Bool { membership == .joined }

  /// Whether this person said ready to watch.
  public var isLocallyReady: Bool {
    localParticipant.flatMap(group.participant)?.readyToWatch ?? false
  }

  /// Whether this person may move the group (everyone may, unless the owner keeps
  /// playback to themselves).
  public var controlsPlayback: Bool {
    group.control.playback == .everyone || group.control.owner == localParticipant
  }

  /// Why this person cannot move the group, in words, when they cannot.
  public var playbackControlRefusal: String? {
    guard !controlsPlayback else { return nil }
    return "only \(group.owner?.name ?? "the room's owner") controls playback in this room"
  }

  /// Watching alone and not (yet) joined to a session: the player pane shows the local
  /// player.
  public var showsLocalPlayback: Bool { watchingAlone && !isJoined && player.item != nil }

  /// The local participant's active suspensions.
  public var localSuspensions: [SuspensionReason] { local?.suspensions ?? [] }

  /// The position to show: the local player's while it has the session's item, otherwise
  /// where the group is.
  public var displayPosition: Double {
    if showsLocalPlayback { return player.position }
    if let session {
      if isJoined, player.item == session.item.id { return player.position }
      return session.position(at: now)
    }
    return player.position
  }

  /// Where the group is now, by the group clock, if something is being watched.
  public var groupPosition: Double? { session?.position(at: now) }

  public var displayDuration: Double {
    if showsLocalPlayback { return player.duration ?? 0 }
    if let session { return session.item.duration }
    return player.duration ?? 0
  }

  /// Every notice and chat line of this run, newest first, however old (at most
  /// ``historyCapacity``): what PgUp scrolls back through.
  public private(set) var history: [NoticeLine] = []
  /// How many lines the notices pane is scrolled back (0: showing what is new).
  public private(set) var scrollback = 0
  public static let historyCapacity = 500

  /// Scrolls the notices pane back (positive) or towards now, within the history.
  public mutating func scrollNotices(by lines: Int) {
    scrollback = min(max(0, scrollback + lines), max(0, history.count - 1))
  }

  private mutating func remember(_ notice: NoticeLine) {
    history.insert(notice, at: 0)
    if history.count > Self.historyCapacity { history.removeLast() }
    // Scrolled back, the same lines stay in view as new ones arrive.
    if scrollback > 0 { scrollback = min(scrollback + 1, history.count - 1) }
  }

  /// Adds a notice at ``now`` (newest first).
  public mutating func post(
    _ text: String, kind: NoticeLine.Kind = .event, emphasis: NoticeLine.Emphasis = .none
  ) {
    // The same words again while still shown ("speed is already 2×" on every press) are
    // one notice, brought up to date, not a stack of copies.
    if let first = notices.first, first.text == text, first.kind == kind,
      now.seconds(since: first.at) < noticeLifetime
    {
      notices.removeFirst()
    }
    notices.insert(NoticeLine(text, at: now, kind: kind, emphasis: emphasis), at: 0)
    if notices.count > noticeCapacity { notices.removeLast(notices.count - noticeCapacity) }
    if let first = history.first, first.text == text, first.kind == kind,
      now.seconds(since: first.at) < noticeLifetime
    {
      history[0] = notices[0]
    } else {
      remember(notices[0])
    }
  }

  /// Adds a chat line "name: text"; `to` names the recipients of one meant for some
  /// people only ("bob → you: text").
  public mutating func receiveChat(
    from name: String, text: String, to: [String]? = nil, emphasis: NoticeLine.Emphasis = .none
  ) {
    let line = ChangeNarrator.chat(from: name, text: text, to: to)
    post(emphasis == .earlier ? Self.earlierMark + line : line, kind: .chat, emphasis: emphasis)
  }

  /// A reaction as a line of the conversation: "ann reacted 😂 at 12:34".
  public mutating func receiveReaction(from name: String, _ reaction: Reaction, earlier: Bool) {
    let line = ChangeNarrator.reaction(from: name, reaction)
    post(
      earlier ? Self.earlierMark + line : line, kind: .chat,
      emphasis: earlier ? .earlier : .reaction)
  }

  /// What marks a line said before this person entered.
  public static let earlierMark = "earlier · "

  /// Takes in an applied change: posts its notice (once per sequence number) and keeps
  /// track of who paused and who started the session.
  public mutating func apply(_ event: ChangeEvent) {
    if let last = lastAppliedSequence, event.sequence <= last { return }
    lastAppliedSequence = event.sequence
    let name = ChangeNarrator.name(of: event, in: group, local: localParticipant)
    switch event.kind {
    case .paused: pausedBy = name
    case .played, .waitEnded, .resumedProposing, .replaced, .autoAdvanced: pausedBy = nil
    case .sessionStarted:
      pausedBy = nil
      sessionStartedBy = name
    case .sessionEnded: sessionStartedBy = nil
    default: break
    }
    if let text = ChangeNarrator.notice(for: event, in: group, local: localParticipant) {
      // Someone's offset moved again while its last notice is the newest (each press of
      // + is a 50 ms step): that notice is brought up to date, not stacked, here and in
      // the history.
      if case .personalOffsetChanged = event.kind, let previous = lastOffsetNotice,
        previous.who == event.originator, scrollback == 0, notices.first == previous.notice,
        history.first == previous.notice
      {
        notices.removeFirst()
        history.removeFirst()
      }
      notices.insert(NoticeLine(text, at: event.at, kind: .event), at: 0)
      if notices.count > noticeCapacity { notices.removeLast(notices.count - noticeCapacity) }
      remember(notices[0])
      if case .personalOffsetChanged = event.kind {
        lastOffsetNotice = OffsetNotice(who: event.originator, notice: notices[0])
      }
    }
  }

  /// The newest offset notice and whose offset it was about.
  private var lastOffsetNotice: OffsetNotice?
  private struct OffsetNotice: Hashable, Sendable {
    var who: ParticipantID?
    var notice: NoticeLine
  }

  /// The relay restarted. `resumed`: it kept the room (a store brought it back) and this
  /// participant is the same member in the same session; its sequence goes on, though the
  /// last steps before the restart may not have been kept, so the last one seen is
  /// forgotten (kept, it could silence the notices of the steps that replace them).
  /// Otherwise the room is new, counting from 1, and who paused and who started went with
  /// the old relay's session.
  public mutating func relayRestarted(resumed: Bool = false, movedTo: String? = nil) {
    lastAppliedSequence = nil
    if !resumed {
      pausedBy = nil
      sessionStartedBy = nil
    }
    post(
      ChangeNarrator.relayRestarted(resumed: resumed, movedTo: movedTo),
      kind: resumed ? .event : .error)
  }

  /// How visible a notice is now.
  public func visibility(of notice: NoticeLine) -> NoticeVisibility {
    let lifetime = notice.kind == .chat ? chatLifetime : noticeLifetime
    let age = now.seconds(since: notice.at)
    if age >= lifetime { return .gone }
    return age >= lifetime / 2 ? .fading : .fresh
  }

  /// Notices still visible now, newest first.
  public var visibleNotices: [(notice: NoticeLine, visibility: NoticeVisibility)] {
    notices.compactMap { n in
      let v = visibility(of: n)
      return v == .gone ? nil : (n, v)
    }
  }

  /// What the notices pane shows when not scrolled back: everything remembered, newest
  /// first, what is past its lifetime dimmed rather than gone. A pane that emptied itself
  /// after a minute read "Nothing yet" over an evening's chat, the router's warning and the
  /// invite; older lines now fall off the bottom as newer ones come, as in any chat.
  public var recentNotices: [(notice: NoticeLine, visibility: NoticeVisibility)] {
    let visible = visibleNotices
    let shown = Set(visible.map(\.notice))
    return visible
      + history.filter { !shown.contains($0) && visibility(of: $0) == .gone }.map {
        ($0, .fading)
      }
  }

  /// Forgets notices that are no longer visible.
  /// The group's clock became known (the first clock sample): what was posted before it,
  /// stamped with a time that meant nothing, is stamped now — else it would look hours old
  /// and vanish at once.
  public mutating func clockKnown(_ now: GroupInstant) {
    for i in notices.indices { notices[i].at = now }
    for i in history.indices { history[i].at = now }
    self.now = now
  }

  public mutating func pruneNotices() {
    let model = self
    notices.removeAll { model.visibility(of: $0) == .gone }
  }
}

public enum NoticeVisibility: Hashable, Sendable {
  case fresh, fading, gone
}
