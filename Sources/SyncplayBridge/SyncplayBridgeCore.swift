import Narration
import Participation
import PlaybackCoordination
import SyncplayProtocol

/// One Syncplay client in a Cowatch room, as a pure state machine: the client's lines, the
/// Cowatch participant's events and the player commands its coordinator gives go in, with
/// the time; lines for the client and requests for the group come out.
///
/// The client's player is the participant's player: the coordinator drives it as it
/// drives mpv, through forced `State`s (Syncplay's only way to move a client's player),
/// and reads it from the client's own `State` reports. Syncplay corrects nothing under a
/// second and a half, so the bridge does: it learns how late the client's player starts
/// and seeks, sends starts that early, and moves a drifting client back with a seek, at
/// most once a minute. See docs/SYNCPLAY.md.
public struct SyncplayBridgeCore: Sendable {
  public enum Phase: Hashable, Sendable {
    /// Waiting for the client's Hello.
    case greeting
    /// Hello taken; the Cowatch participant is entering the room.
    case entering
    case inRoom
    case closed
  }

  /// Where the group wants the client's player, in this process's time.
  enum Target: Hashable {
    case idle
    case paused(item: ItemID, at: Double)
    case playing(item: ItemID, itemTime: Double, startAt: LocalInstant)

    var item: ItemID? {
      switch self {
      case .idle: nil
      case .paused(let item, _), .playing(let item, _, _): item
      }
    }
    var isPaused: Bool { if case .playing = self { false } else { true } }
    func position(at now: LocalInstant) -> Double {
      switch self {
      case .idle: 0
      case .paused(_, let at): at
      case .playing(_, let itemTime, let startAt): max(0, itemTime + now.seconds(since: startAt))
      }
    }
  }

  /// What the client last said its player shows.
  struct Report: Hashable {
    var position: Double
    var paused: Bool
    var at: LocalInstant
  }

  /// A forced state scheduled for later: a start sent early by the client's latency.
  struct PendingSend: Hashable {
    var at: LocalInstant
    var doSeek: Bool
    var lead: Double
  }

  public let configuration: SyncplayBridgeConfiguration
  public private(set) var phase: Phase = .greeting
  public private(set) var hello: SyncplayHello?
  /// The connection was upgraded to TLS (once, before the Hello).
  public private(set) var tlsStarted = false
  public private(set) var participant: ParticipantID?
  public private(set) var state = GroupState()
  /// The file the client has open.
  public private(set) var file: SyncplayFile?
  var clientReady: Bool?
  var enteredAt: LocalInstant?
  var startedFor: SyncplayFile?
  var joinRequested: UInt64?
  var lastHeard: LocalInstant?
  var nextPush: LocalInstant?

  // Syncplay's ping: round-trips from our echoed timestamps.
  var roundTrip: Double?
  /// Our recent round-trips (newest last): the client holds our state while it moves its
  /// player, so only the quickest of them is the network's.
  var roundTrips: [Double] = []
  /// The client's own round-trip as it reports it, smoothed as Syncplay's client smooths
  /// it: half of it is what the client adds to a playing position we send.
  var clientAverageRoundTrip: Double?
  /// A pause landed off the group's point (Syncplay seeks, then pauses a moment later):
  /// one exact seek while paused has been sent to put it there.
  var pauseMended = false
  var clientTimestamp: (value: Double, arrived: LocalInstant)?
  /// Forced states sent and not yet acknowledged (Syncplay's `ignoringOnTheFly.server`);
  /// the client's own changes to acknowledge (`…client`), and the last one taken.
  var serverIgnoring = 0
  var clientIgnoringEcho: Int?
  var clientChangeTaken: Int?

  // The player.
  var target: Target = .idle
  var beforeStart: Target = .idle
  var pending: PendingSend?
  var report: Report?
  var changedAt: LocalInstant?
  var acknowledgedAt: LocalInstant?
  /// Offsets of the client's reports from the target since the last change (newest last).
  var offsets: [Double] = []
  var awaitingGroupSince: LocalInstant?
  var userActions: [PlayerUserAction] = []
  /// Who last moved the group's timeline (Syncplay's `setBy`).
  var lastOriginator: String? { state.session?.lastPlaybackChange?.originatorName }
  var lastCorrection: LocalInstant?
  /// What the last change was, so that its result teaches the right lead.
  var lastChangeKind: ChangeLead?
  /// How early a start (unpause) and a seek while playing are sent, learned from how late
  /// the client's player turned out to be, seconds.
  public private(set) var startLead = 0.0
  public private(set) var seekLead = 0.0
  var speedProblem: Double?
  /// Who the next state says made the change, when it is not the group's last originator.
  var speaker: String?
  var announced: [ParticipantID: Announced] = [:]
  var announcedOwner: ParticipantID?
  /// The session and item the client's playlist was last set for.
  var playlistShown: PlaylistShown?
  struct PlaylistShown: Hashable {
    var session: UInt64
    var item: ItemID
  }

  enum ChangeLead: Hashable { case start, seek }

  struct Announced: Hashable {
    var name: String
    var isReady: Bool
  }

  /// The name shown for what Cowatch itself says to a Syncplay user.
  public static let narrator = "Cowatch"
  static let leadLimit = 0.5
  /// How long after a start or a seek the client's report is taken to learn its lateness
  /// (its player has moved by then, and reports what it plays), seconds.
  static let learningDelay = 0.5
  /// A paused player this far from where the group starts is moved there as it starts
  /// (less than a frame at 24 fps), seconds.
  static let frameTolerance = 0.03
  static let offsetWindow = 5

  public init(configuration: SyncplayBridgeConfiguration = .init()) {
    self.configuration = configuration
  }

  // MARK: - From the client

  public mutating func received(_ message: SyncplayClientMessage, at now: LocalInstant)
    -> [SyncplayBridgeEffect]
  {
    guard phase != .closed else { return [] }
    lastHeard = now
    switch message {
    case .startTLS:
      // Syncplay's in-band upgrade, before the Hello. Without a certificate the client can
      // verify, the answer is no and it goes on in the clear, as with a Syncplay server
      // that has none.
      guard configuration.offersTLS, phase == .greeting, !tlsStarted else {
        return [.send(.tls(accepted: false))]
      }
      tlsStarted = true
      return [.send(.tls(accepted: true)), .startTLS]
    case .hello(let hello):
      guard phase == .greeting else { return [] }
      guard !hello.username.isEmpty, !hello.room.isEmpty else {
        return refuse("say who you are and which room you want (username and room)")
      }
      self.hello = hello
      phase = .entering
      enteredAt = now
      if nextPush == nil { nextPush = now.advanced(bySeconds: configuration.pushInterval) }
      return [.enter(name: hello.username, room: hello.room, password: hello.password)]
    case .error:
      return close()
    default:
      break
    }
    guard phase == .inRoom || phase == .entering else {
      return refuse("send Hello first")
    }
    switch message {
    case .set(let setting): return set(setting, at: now)
    case .state(let state): return receivedState(state, at: now)
    case .list: return [.send(list())]
    case .chat(let text):
      let trimmed = String(
        text.drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
      guard !trimmed.isEmpty, let hello else { return [] }
      // Syncplay's server echoes a chat line to its sender too; Cowatch's relay does not.
      return [
        .request(.message(kind: "chat", body: trimmed, to: .all)),
        .send(.chat(username: hello.username, message: trimmed)),
      ]
    case .hello, .error, .startTLS: return []
    }
  }

  /// The Cowatch participant could not enter the room (a name taken, a wrong password, a
  /// locked or full room): the client hears why, in the relay's words.
  public mutating func enterFailed(_ text: String) -> [SyncplayBridgeEffect] {
    guard phase != .closed else { return [] }
    return refuse(text)
  }

  /// A line that could not be read: Syncplay's server answers with an error and drops the
  /// client; so does the bridge.
  public mutating func receivedInvalid(_ error: SyncplayError) -> [SyncplayBridgeEffect] {
    guard phase != .closed else { return [] }
    return refuse(error.description)
  }

  private mutating func set(_ setting: SyncplaySetting, at now: LocalInstant)
    -> [SyncplayBridgeEffect]
  {
    switch setting {
    case .file(let file):
      self.file = file
      return startFromFileIfIdle()
    case .ready(let isReady, let manual):
      clientReady = isReady
      guard let hello else { return [] }
      return [.send(.ready(username: hello.username, isReady: isReady, manuallyInitiated: manual))]
    case .room(let name):
      guard let hello, name != hello.room else { return [] }
      // One connection is one Cowatch participant in one room.
      return [
        .send(.user(name: hello.username, room: hello.room, file: file, event: nil)),
        notice(
          "this relay keeps you in \(hello.room); to watch in \(name), reconnect with that room"),
      ]
    case .playlistIndex(let index):
      guard let index, let session = state.session, index < session.series.items.count,
        let mine = participant.flatMap(state.participant), mine.isJoined
      else { return [] }
      let item = session.series.items[index]
      guard item.id != session.item.id else { return [] }
      // Choosing another entry of the shared playlist is Syncplay's way to switch: the
      // person asked for it there, so it counts as confirmed.
      return [
        .request(.command(.replace(series: session.series, item: item.id, confirmed: true)))
      ]
    case .playlistChange:
      // With something watched, the playlist is its series, not edited from Syncplay (the
      // client is told again). With nothing, a client adds the file it opened: that file
      // starts the session, from its `file`.
      return state.session == nil ? [] : playlist()
    case .controllerAuth:
      let owner = state.owner?.name
      return [
        notice(
          "Cowatch rooms have no operator passwords: the room's owner\(owner.map { " (\($0))" } ?? "") locks it, decides who controls playback and can hand it over"
        )
      ]
    case .ignored:
      return []
    }
  }

  private mutating func receivedState(_ s: SyncplayClientState, at now: LocalInstant)
    -> [SyncplayBridgeEffect]
  {
    if let sent = s.latencyCalculation {
      let rtt = max(0, now.seconds - sent)
      if rtt < 60 {
        roundTrip = rtt
        roundTrips.append(rtt)
        if roundTrips.count > 8 { roundTrips.removeFirst() }
      }
    }
    if let rtt = s.clientRtt, rtt > 0 {
      clientAverageRoundTrip = clientAverageRoundTrip.map { $0 * 0.85 + rtt * 0.15 } ?? rtt
    }
    if let c = s.clientLatencyCalculation { clientTimestamp = (c, now) }
    if let n = s.ignoringServer, n == serverIgnoring, serverIgnoring != 0 {
      serverIgnoring = 0
      acknowledgedAt = now
    }
    var newClientChange = false
    if let k = s.ignoringClient {
      if k != clientChangeTaken {
        clientChangeTaken = k
        newClientChange = true
      }
      clientIgnoringEcho = k
    } else {
      clientChangeTaken = nil
    }
    // Until the client has taken our last forced state, what it says is from before it.
    guard serverIgnoring == 0, let playstate = s.playstate, phase == .inRoom else { return [] }
    let position = playstate.paused ? playstate.position : playstate.position + forwardDelay
    report = Report(position: position, paused: playstate.paused, at: now)
    if case .paused(_, let at) = target, playstate.paused, !pauseMended, !newClientChange,
      let changedAt, now.seconds(since: changedAt) >= 0.3,
      abs(playstate.position - at) > Self.frameTolerance
    {
      // Syncplay's client seeks to a remote pause point while still playing and pauses a
      // moment later, past it; an exact seek while paused puts its frame on the point.
      pauseMended = true
      return forced(position: at, paused: true, doSeek: true, at: now)
    }
    guard let session = state.session, let mine = participant.flatMap(state.participant),
      mine.isJoined, followsGroup
    else { return [] }
    _ = session
    if newClientChange || playstate.doSeek {
      var acted = false
      if playstate.doSeek {
        userActions.append(.seek(to: max(0, position)))
        acted = true
      }
      var effects: [SyncplayBridgeEffect] = []
      if playstate.paused != target.isPaused {
        userActions.append(playstate.paused ? .pause(at: max(0, position)) : .play)
        acted = true
        if !playstate.paused, case .paused(_, let at) = target {
          // Its player started at once; the group starts together a moment later. It
          // goes back to the group's point and holds there until then, as everyone does.
          speaker = Self.narrator
          effects += forced(position: at, paused: true, doSeek: false, at: now)
        }
      }
      if acted {
        awaitingGroupSince = now
        offsets = []
      }
      return effects
    }
    let following =
      awaitingGroupSince == nil && pending == nil && !playstate.paused
      && !target.isPaused
    if following, let kind = lastChangeKind, let changedAt,
      now.seconds(since: changedAt) >= Self.learningDelay
    {
      // The first report after a start or a seek shows how late the client's player was:
      // the next one is sent earlier by half of that (reports are whole frames, so one is
      // noisy; halves settle within a few).
      let late = target.position(at: now) - position
      switch kind {
      case .start: startLead = min(Self.leadLimit, max(0, startLead + late / 2))
      case .seek: seekLead = min(Self.leadLimit, max(0, seekLead + late / 2))
      }
      lastChangeKind = nil
    }
    // A report from a client following the group: how far it is from where it should be.
    if following, let changedAt, now.seconds(since: changedAt) >= configuration.settleTime {
      offsets.append(position - target.position(at: now))
      if offsets.count > Self.offsetWindow { offsets.removeFirst() }
    }
    return []
  }

  /// Whether the client's player follows the group (not stepped away for a problem).
  var followsGroup: Bool {
    guard let participant, let mine = state.participant(participant) else { return false }
    return !mine.suspensions.contains(.playerUnavailable)
  }

  /// How long a line takes between us, seconds: half the quickest recent round-trip,
  /// ours or the client's.
  var forwardDelay: Double {
    let quickest = (roundTrips + [clientAverageRoundTrip].compactMap { $0 }).min() ?? 0
    return quickest / 2
  }

  /// What the client adds to a playing position we send (its own forward-delay estimate).
  var clientForwardDelay: Double { (clientAverageRoundTrip ?? 0) / 2 }

  // MARK: - From the Cowatch participant

  public mutating func clientEvent(_ event: ClientEvent, at now: LocalInstant)
    -> [SyncplayBridgeEffect]
  {
    guard phase != .closed else { return [] }
    switch event {
    case .welcomed(let id, _, _, _):
      participant = id
      guard phase == .entering, let hello else { return [] }
      phase = .inRoom
      // Syncplay's server names the room's playlist and where it is in it right after the
      // Hello; a client with shared playlists opens its file only once it has heard them.
      return [
        .send(
          .hello(
            username: hello.username, room: hello.room, version: hello.version,
            motd: configuration.motd))
      ] + playlist(always: true)
    case .state(let newState, let events):
      return adopt(newState, events: events, at: now)
    case .message(_, let name, let kind, let body, let to):
      guard kind == "chat" else { return [] }
      let text = to == nil ? body : "(to you) \(body)"
      return [.send(.chat(username: name, message: String(text.prefix(1000))))]
    case .error(let text):
      guard phase == .inRoom else { return [] }
      return [notice(text)]
    case .rejected(_, let rejection, _):
      return [notice("not done: \(rejection)")]
    case .session(.invalidated(.removed(let why))):
      return refuse("removed from the room: \(why)")
    case .session(.invalidated(.relayLost)), .connection(.disconnected):
      // While entering, the refusal that follows says why in the relay's words.
      guard phase == .inRoom else { return [] }
      return refuse("the Cowatch relay closed this room's connection")
    case .session, .connection:
      return []
    }
  }

  private mutating func adopt(_ newState: GroupState, events: [ChangeEvent], at now: LocalInstant)
    -> [SyncplayBridgeEffect]
  {
    state = newState
    var effects: [SyncplayBridgeEffect] = []
    for event in events {
      if let text = ChangeNarrator.notice(for: event, in: newState, local: participant),
        Self.isWorthTelling(event.kind)
      {
        effects.append(notice(text))
      }
    }
    effects += announcePeople()
    if newState.control.owner != announcedOwner, phase == .inRoom {
      // Syncplay shows a room's operator ("controller"): the owner, listed anew.
      announcedOwner = newState.control.owner
      effects.append(.send(list()))
    }
    let shown = newState.session.map { PlaylistShown(session: $0.id, item: $0.item.id) }
    if shown != playlistShown, shown != nil {
      playlistShown = shown
      effects += playlist()
    }
    let rate = newState.session?.timeline.rate ?? 0
    speedProblem = rate == 0 || abs(rate - 1) < 1e-9 ? nil : rate
    if let session = newState.session, let participant,
      let mine = newState.participant(participant), !mine.isJoined, joinRequested != session.id
    {
      joinRequested = session.id
      effects.append(.request(.command(.join)))
    }
    if newState.session == nil {
      target = .idle
      pending = nil
      effects += startFromFileIfIdle()
    }
    return effects
  }

  /// Changes Syncplay cannot show on its own (it shows plays, pauses and seeks by
  /// itself, from the `setBy` of the forced state).
  static func isWorthTelling(_ kind: ChangeKind) -> Bool {
    switch kind {
    case .played, .paused, .seeked, .reported, .readinessChanged, .connectionChanged,
      .entered, .exited, .joined, .left, .waitEnded:
      false
    default: true
    }
  }

  /// Everyone in the room as Syncplay users: joined, left, ready or not.
  private mutating func announcePeople() -> [SyncplayBridgeEffect] {
    guard phase == .inRoom, let hello else { return [] }
    var effects: [SyncplayBridgeEffect] = []
    var present: Set<ParticipantID> = []
    for person in state.participants where person.id != participant {
      present.insert(person.id)
      let ready = isReady(person)
      if let known = announced[person.id] {
        if known.isReady != ready {
          effects.append(
            .send(.ready(username: person.name, isReady: ready, manuallyInitiated: false)))
        }
      } else {
        effects.append(
          .send(.user(name: person.name, room: hello.room, file: itemFile, event: .joined)))
        effects.append(
          .send(.ready(username: person.name, isReady: ready, manuallyInitiated: false)))
      }
      announced[person.id] = Announced(name: person.name, isReady: ready)
    }
    for (id, known) in announced where !present.contains(id) {
      announced[id] = nil
      effects.append(.send(.user(name: known.name, room: hello.room, file: nil, event: .left)))
    }
    return effects
  }

  /// Ready, as Syncplay means it: able to play now.
  func isReady(_ person: Participant) -> Bool {
    person.isConnected && person.readiness == .ready && person.suspensions.isEmpty
  }

  /// The group's item as a Syncplay file, for the user list: the client's own file when it
  /// is that item (so that Syncplay sees everyone on the same file), else the item's title.
  var itemFile: SyncplayFile? {
    guard let session = state.session else { return nil }
    if let file, SyncplayItemMatch.matches(file, session.item, in: session.series) { return file }
    return SyncplayFile(name: session.item.title, duration: session.item.duration)
  }

  /// The series' episodes as Syncplay's shared playlist, and where the group is in it.
  private func playlist(always: Bool = false) -> [SyncplayBridgeEffect] {
    guard let session = state.session else {
      return always
        ? [
          .send(.playlistChange(user: nil, files: [])),
          .send(.playlistIndex(user: nil, index: nil)),
        ]
        : []
    }
    let names = session.series.items.map { item in
      item.id == session.item.id
        && file.map { SyncplayItemMatch.matches($0, item, in: session.series) } == true
        ? file!.name : item.title
    }
    let index = session.series.items.firstIndex { $0.id == session.item.id }
    return [
      .send(.playlistChange(user: lastOriginator, files: names)),
      .send(.playlistIndex(user: lastOriginator, index: index)),
    ]
  }

  /// A room with nothing to watch starts the client's file, as a Syncplay room would play
  /// whatever its people open.
  private mutating func startFromFileIfIdle() -> [SyncplayBridgeEffect] {
    guard phase == .inRoom, state.session == nil, let file, file != startedFor,
      let (series, item) = SyncplayItemMatch.series(for: file)
    else { return [] }
    startedFor = file
    // Opening a file in Syncplay does not play it for the room: the session starts paused
    // at its beginning, and plays when someone presses play.
    return [
      .request(.command(.start(series: series, item: item))),
      .request(.command(.pause(item: item, at: 0))),
    ]
  }

  // MARK: - The player

  /// Where the coordinator's commands go: they become forced states for the client.
  public mutating func perform(_ command: PlayerCommand, at now: LocalInstant)
    -> [SyncplayBridgeEffect]
  {
    switch command {
    case .load(let item, let at):
      awaitingGroupSince = nil
      return change(to: .paused(item: item, at: at), doSeek: true, at: now)
    case .pause(let at):
      awaitingGroupSince = nil
      guard let item = target.item ?? state.session?.item.id else { return [] }
      let next = Target.paused(item: item, at: at)
      if next == target, !correctionAllowed(at: now) { return [] }
      return change(to: next, doSeek: false, at: now)
    case .seek(let to):
      awaitingGroupSince = nil
      switch target {
      case .idle: return []
      case .paused(let item, _):
        return change(to: .paused(item: item, at: to), doSeek: true, at: now)
      case .playing(let item, _, _):
        return start(.playing(item: item, itemTime: to, startAt: now), doSeek: true, at: now)
      }
    case .play(let itemTime, let startAt, let rate):
      awaitingGroupSince = nil
      guard let item = target.item ?? state.session?.item.id else { return [] }
      if abs(rate - 1) > 1e-9 {
        // Syncplay plays at 1× only: the client waits, paused, for the group to be back.
        speedProblem = rate
        let here = Target.paused(item: item, at: target.position(at: now))
        guard here != target else { return [] }
        // Cowatch pauses it, not whoever changed the speed.
        speaker = Self.narrator
        return change(to: here, doSeek: false, at: now)
      }
      let next = Target.playing(item: item, itemTime: itemTime, startAt: startAt)
      if case .playing(let oldItem, _, _) = target, oldItem == item,
        abs(target.position(at: startAt) - itemTime) < 1.0, !groupMovedSinceChange
      {
        // The coordinator restarting a player that drifted: a seek for a Syncplay client.
        guard correctionAllowed(at: now) else { return [] }
        lastCorrection = now
        return start(next, doSeek: true, at: now)
      }
      let wasAt = report.map { $0.paused ? $0.position : nil } ?? nil
      let needsSeek =
        target.isPaused
        ? abs((wasAt ?? target.position(at: now)) - itemTime) > Self.frameTolerance : true
      return start(next, doSeek: needsSeek, at: now)
    case .setRate:
      // Syncplay has no way to bend a client's speed: drift is closed with a seek.
      return []
    case .unload:
      target = .idle
      pending = nil
      return []
    }
  }

  /// Whether the group's timeline moved since the last change sent (then a play is the
  /// group's, not a correction).
  var groupMovedSinceChange: Bool { changeSequence != state.session?.lastPlaybackChange?.sequence }
  var changeSequence: UInt64?

  func correctionAllowed(at now: LocalInstant) -> Bool {
    guard let last = lastCorrection else { return true }
    return now.seconds(since: last) >= configuration.driftSeekInterval
  }

  /// Schedules a start so that it lands on time: sent early by the forward delay and by
  /// what the client's player was learned to need.
  private mutating func start(_ next: Target, doSeek: Bool, at now: LocalInstant)
    -> [SyncplayBridgeEffect]
  {
    guard case .playing(_, _, let startAt) = next else { return [] }
    beforeStart = target
    target = next
    changeSequence = state.session?.lastPlaybackChange?.sequence
    offsets = []
    let lead = doSeek ? seekLead : startLead
    lastChangeKind = doSeek ? .seek : .start
    let sendAt = startAt.advanced(bySeconds: -(forwardDelay + lead))
    pending = PendingSend(at: sendAt, doSeek: doSeek, lead: lead)
    if sendAt <= now { return sendPending(at: now) }
    return []
  }

  private mutating func sendPending(at now: LocalInstant) -> [SyncplayBridgeEffect] {
    guard let pending else { return [] }
    self.pending = nil
    // The client adds its own estimate of the forward delay to a playing position: the
    // position sent is where the group is when the line arrives, less that estimate.
    let position =
      target.position(at: now.advanced(bySeconds: forwardDelay + pending.lead))
      - clientForwardDelay
    // Ask for a report soon (the client answers every state), to learn how late it was.
    nextPush = now.advanced(bySeconds: Self.learningDelay + 0.1)
    return forced(position: position, paused: false, doSeek: pending.doSeek, at: now)
  }

  private mutating func change(to next: Target, doSeek: Bool, at now: LocalInstant)
    -> [SyncplayBridgeEffect]
  {
    target = next
    beforeStart = next
    pending = nil
    changeSequence = state.session?.lastPlaybackChange?.sequence
    offsets = []
    lastChangeKind = nil
    pauseMended = false
    return forced(position: next.position(at: now), paused: next.isPaused, doSeek: doSeek, at: now)
  }

  private mutating func forced(position: Double, paused: Bool, doSeek: Bool, at now: LocalInstant)
    -> [SyncplayBridgeEffect]
  {
    guard phase == .inRoom else { return [] }
    serverIgnoring += 1
    changedAt = now
    return [
      .send(
        .state(
          stateMessage(position: position, paused: paused, doSeek: doSeek, forced: true, at: now)))
    ]
  }

  private mutating func stateMessage(
    position: Double, paused: Bool, doSeek: Bool, forced: Bool, at now: LocalInstant
  ) -> SyncplayServerState {
    var echo: Double?
    if let (value, arrived) = clientTimestamp {
      echo = value + now.seconds(since: arrived)
      clientTimestamp = nil
    }
    // Syncplay's client ignores a seek or a correction said to be its own: those carry
    // "Cowatch"; its own pause or play keeps its name.
    let setBy: String
    if let speaker {
      setBy = speaker
    } else if lastOriginator == hello?.username, doSeek || !forced {
      setBy = Self.narrator
    } else {
      setBy = lastOriginator ?? Self.narrator
    }
    speaker = nil
    let message = SyncplayServerState(
      position: max(0, position), paused: paused, doSeek: doSeek, setBy: setBy,
      latencyCalculation: now.seconds, serverRtt: roundTrip ?? 0, clientLatencyCalculation: echo,
      ignoringServer: serverIgnoring == 0 ? nil : serverIgnoring, ignoringClient: clientIgnoringEcho
    )
    clientIgnoringEcho = nil
    return message
  }

  /// What the client's player shows now, by its reports.
  public func observe(at now: LocalInstant) -> PlayerObservation {
    let sessionItem = state.session?.item
    var problem: String?
    var item = target.item
    if let session = state.session {
      let settling = file == nil && (enteredAt.map { now.seconds(since: $0) < 3 } ?? true)
      if !settling,
        file.map({ SyncplayItemMatch.matches($0, session.item, in: session.series) }) != true
      {
        problem = PlayerObservation.noFile(for: session.item.id)
        item = nil
      } else if let rate = speedProblem {
        problem =
          "Syncplay plays at 1× only and the group plays at \(RateFormat.text(rate)): paused until it is back at 1×"
      }
    }
    let busy =
      serverIgnoring != 0 || pending != nil || awaitingGroupSince != nil || report == nil
      || file == nil
      || (!target.isPaused && offsets.count < 3)
      || (changedAt.map { now.seconds(since: $0) < configuration.settleTime } ?? false)
    let position: Double
    if let report, report.paused {
      // Where a paused player stopped is exact (and a pause of its own snaps there).
      position = report.position
    } else if !target.isPaused, offsets.count >= 3 {
      position = target.position(at: now) + median(offsets)
    } else if let report {
      position = report.paused ? report.position : report.position + now.seconds(since: report.at)
    } else {
      position = target.position(at: now)
    }
    return PlayerObservation(
      item: item, position: position,
      rate: (report?.paused ?? target.isPaused) ? 0 : 1, isBusy: busy, isStalled: false,
      preparedAt: busy ? nil : acknowledgedAt, problem: problem,
      fileDuration: item != nil && sessionItem != nil ? file?.duration : nil)
  }

  /// What the person did in their Syncplay player, to become group commands.
  public mutating func takeUserActions() -> [PlayerUserAction] {
    defer { userActions = [] }
    return userActions
  }

  // MARK: - Time

  public mutating func tick(at now: LocalInstant) -> [SyncplayBridgeEffect] {
    guard phase != .closed else { return [] }
    var effects: [SyncplayBridgeEffect] = []
    if let heard = lastHeard, now.seconds(since: heard) > configuration.silenceTimeout {
      return refuse("nothing heard from you for \(Int(configuration.silenceTimeout)) s")
    }
    if let pending, pending.at <= now { effects += sendPending(at: now) }
    if let since = awaitingGroupSince, now.seconds(since: since) > configuration.userActionTimeout {
      awaitingGroupSince = nil
    }
    if let due = nextPush, due <= now {
      nextPush = now.advanced(bySeconds: configuration.pushInterval)
      // Syncplay's server holds its regular state while a forced one is unacknowledged.
      if phase == .inRoom, serverIgnoring == 0 {
        let shown = pending == nil ? target : beforeStart
        effects.append(
          .send(
            .state(
              stateMessage(
                position: shown.position(at: now), paused: shown.isPaused, doSeek: false,
                forced: false, at: now))))
      }
    }
    return effects
  }

  public var nextDeadline: LocalInstant? {
    guard phase != .closed else { return nil }
    var deadlines = [
      nextPush, pending?.at, lastHeard?.advanced(bySeconds: configuration.silenceTimeout + 0.01),
    ]
    if let since = awaitingGroupSince {
      deadlines.append(since.advanced(bySeconds: configuration.userActionTimeout + 0.01))
    }
    return deadlines.compactMap { $0 }.min()
  }

  // MARK: - Lists and words

  private func list() -> SyncplayServerMessage {
    let room = hello?.room ?? ""
    var users: [SyncplayServerMessage.ListedUser] = []
    for person in state.participants {
      let isMe = person.id == participant
      users.append(
        .init(
          name: person.name, file: isMe ? file : (person.isJoined ? itemFile : nil),
          isReady: isMe ? clientReady : isReady(person),
          controller: state.control.owner == person.id))
    }
    return .list(room: room, users: users)
  }

  private func notice(_ text: String) -> SyncplayBridgeEffect {
    .send(.chat(username: Self.narrator, message: text))
  }

  /// One clear error, then the connection closes (as Syncplay's server drops a client).
  private mutating func refuse(_ text: String) -> [SyncplayBridgeEffect] {
    phase = .closed
    return [.send(.error(text)), .close]
  }

  /// The connection is going (the client left or failed).
  public mutating func close() -> [SyncplayBridgeEffect] {
    guard phase != .closed else { return [] }
    phase = .closed
    return [.close]
  }

  func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return 0 }
    let mid = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
  }
}
