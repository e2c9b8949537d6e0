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
  public internal(set) var phase: Phase = .greeting
  public internal(set) var hello: SyncplayHello?
  /// The connection was upgraded to TLS (once, before the Hello).
  public internal(set) var tlsStarted = false
  public internal(set) var participant: ParticipantID?
  public internal(set) var state = GroupState()
  /// The file the client has open.
  public internal(set) var file: SyncplayFile?
  var clientReady: Bool?
  var enteredAt: LocalInstant?
  var openedAt: LocalInstant?
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
  /// The group's last playback change when the last change was sent to the client.
  var changeSequence: UInt64?
  /// What the last change was, so that its result teaches the right lead.
  var lastChangeKind: ChangeLead?
  /// How early a start (unpause) and a seek while playing are sent, learned from how late
  /// the client's player turned out to be, seconds.
  public internal(set) var startLead = 0.0
  public internal(set) var seekLead = 0.0
  /// The group's speed when Syncplay cannot follow it (anything but 1× while playing).
  var speedProblem: Double? {
    let rate = state.session?.timeline.rate ?? 0
    return rate == 0 || abs(rate - 1) < 1e-9 ? nil : rate
  }
  /// Who the next state says made the change, when it is not the group's last originator.
  var speaker: String?
  var announced: [ParticipantID: Announced] = [:]
  var announcedOwner: ParticipantID?
  /// The session and item the client's playlist was last set for.
  var playlistShown: PlaylistShown?
  struct PlaylistShown: Hashable {
    var session: UInt64?
    var item: ItemID?
    /// The queue's entries, by number, when the playlist shows the queue.
    var queue: [UInt64]
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

  /// The connection opened: it has until the hello timeout to say Hello.
  public mutating func connected(at now: LocalInstant) -> [SyncplayBridgeEffect] {
    openedAt = now
    return []
  }

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
        .request(.message(kind: .chat, body: trimmed, to: .all)),
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

  mutating func set(_ setting: SyncplaySetting, at now: LocalInstant)
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
    case .playlistIndex(let index) where !state.queue.isEmpty:
      // The playlist is what the group watches now, then the room's queue: choosing a
      // queued entry there plays it now (asked for there, so confirmed).
      let first = state.session == nil ? 0 : 1
      guard let index, index >= first, index - first < state.queue.count else { return [] }
      return [.request(.command(.playQueued(entry: state.queue[index - first].id)))]
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
      // With something watched (or queued), the playlist is the room's, not edited from
      // Syncplay (the client is told again). With nothing, a client adds the file it
      // opened: that file starts the session, from its `file`.
      return state.session == nil && state.queue.isEmpty ? [] : playlist()
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

  mutating func receivedState(_ s: SyncplayClientState, at now: LocalInstant)
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
    guard state.session != nil, let mine = participant.flatMap(state.participant),
      mine.isJoined, followsGroup
    else { return [] }
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

  // MARK: - Time

  public mutating func tick(at now: LocalInstant) -> [SyncplayBridgeEffect] {
    guard phase != .closed else { return [] }
    var effects: [SyncplayBridgeEffect] = []
    if phase == .greeting, let openedAt,
      now.seconds(since: openedAt) > configuration.helloTimeout
    {
      return refuse("no Hello within \(Int(configuration.helloTimeout)) s")
    }
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
    if phase == .greeting, let openedAt {
      deadlines.append(openedAt.advanced(bySeconds: configuration.helloTimeout + 0.01))
    }
    if let since = awaitingGroupSince {
      deadlines.append(since.advanced(bySeconds: configuration.userActionTimeout + 0.01))
    }
    return deadlines.compactMap { $0 }.min()
  }

  // MARK: - Lists and words

  func list() -> SyncplayServerMessage {
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

  func notice(_ text: String) -> SyncplayBridgeEffect {
    .send(.chat(username: Self.narrator, message: text))
  }

  /// One clear error, then the connection closes (as Syncplay's server drops a client).
  mutating func refuse(_ text: String) -> [SyncplayBridgeEffect] {
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
