import Narration
import PlaybackCoordination
import RoomCrypto
import WireProtocol

/// The participant side of the protocol as a state machine: connection and reconnection,
/// the ordered outbox of requests, the replica of the room's engine, clock sync, and the
/// coordinator that drives the player.
///
/// Pure, like ``RelayCore`` on the relay's side: every input comes with the local time
/// (and, where it matters, what the player shows), and every output is a
/// ``ParticipantEffect`` for the runtime to perform in order. Time-driven rules run in
/// ``tick(at:seen:)``, due by ``nextDeadline``.
///
/// Requests get their ids here, in the order they are asked for, and sit in one outbox
/// until the relay answers; after a reconnection they are resent in that order before
/// anything new, and the relay's window of recent ids applies each once.
public struct ParticipantCore: Sendable {
  public let configuration: ParticipantConfiguration
  /// Whether a player follows the group (without one, the participant is always ready).
  public let hasPlayer: Bool
  /// Whether the person gave the room's password: then the core proves it at the relay's
  /// challenge and seals every messenger payload; the runtime, which holds the password,
  /// derives the keys (``ParticipantEffect/deriveRoomKeys(_:)``).
  public let hasPassword: Bool

  // MARK: State

  private enum Link: Hashable {
    case idle
    case connecting
    case greeting(since: LocalInstant)
    case connected
    case waitingToReconnect(until: LocalInstant)
    case stopped
  }

  private var link: Link = .idle
  public private(set) var status: ConnectionStatus = .connecting
  private var everWelcomed = false
  private var disconnectedSince: LocalInstant?
  private var reconnectDelay: Double
  private var lastHeard: LocalInstant?
  /// When ``tick(at:seen:)`` last ran: a long gap means this process (or machine) was
  /// stopped, and the relay's silence meanwhile says nothing about the relay.
  private var lastTick: LocalInstant?
  private var resume: ResumeToken?
  /// Messenger payloads received as this member, told to the relay on resuming so that it
  /// resends what a dropped connection lost.
  private var messagesReceived: UInt64 = 0
  public private(set) var relayEpoch: String?
  /// Which relay to connect to next (several relays can share one database).
  private var route = RelayRoute()
  /// The relay this participant talks to now; nil: the one it was started with.
  public var currentRelay: RelayEndpoint? { route.current }
  public private(set) var participant: ParticipantID?
  public private(set) var state = GroupState()
  /// This participant's replica of the room's engine: replays the relay's steps.
  private var replica: GroupEngine?
  /// A step did not fit the replica; the whole state was asked for.
  private var resyncing = false
  public private(set) var phase: SessionPhase = .none
  private var estimator = ClockOffsetEstimator()
  public private(set) var estimate: ClockOffsetEstimate?
  private var coordinator: PlaybackCoordinator?
  private var syncSchedule: ClockSyncSchedule
  private var nextPingID: UInt64 = 1

  /// The room's keys, once derived: for the proof, and for sealing and opening messages.
  private var roomKeys: RoomKeys?
  /// A challenge whose keys are being derived.
  private var pendingChallenge: RoomChallenge?

  private var nextRequestID: UInt64 = 1
  private var outbox: [Request] = []

  private struct Request: Sendable {
    enum Body: Sendable, Hashable {
      case command(GroupCommand)
      case message(kind: String, body: String, to: Recipients)
    }
    enum Origin: Sendable, Hashable {
      case user
      case ready
      case report
      case automatic
    }
    var id: UInt64
    var body: Body
    var origin: Origin
    var askedAt: LocalInstant
    /// Who waits for the answer, until it comes or the answer timeout passes.
    var ticket: UInt64?
    var answerDeadline: LocalInstant
    /// Sent as `expire` after a long disconnection: settled, never applied anew.
    var expiring = false

    var message: ClientMessage {
      switch body {
      case .command(let command): .command(id: id, command)
      case .message(let kind, let text, let to): .send(seq: id, to: to, kind: kind, body: text)
      }
    }
  }

  /// The position this participant last asked the group to take, until answered.
  private struct RequestedPosition: Sendable {
    var item: ItemID
    var position: Double
    var at: LocalInstant
    var rate: Double
    var requestID: UInt64

    func position(at now: LocalInstant) -> Double {
      position + rate * max(0, now.seconds(since: at))
    }
  }
  private var requestedPosition: RequestedPosition?
  /// A relative seek that moves less than this (seconds) moves nothing: it is refused here.
  static let sameSpot = 0.05
  private var requestedRate: (rate: Double, requestID: UInt64)?
  /// Whether this participant last asked the group to play (true) or pause, until answered.
  private var requestedPlaying: (playing: Bool, requestID: UInt64)?

  // Player bookkeeping.
  private var nextCorrection: LocalInstant?
  private var nextReport: LocalInstant?
  /// The session last reported to, so that joining a new one reports at once.
  private var reportedSession: UInt64?
  private var readyRequested = false
  private var stalled = false
  private var advanceSentFor: ItemID?
  /// The player's problem last reported (it stepped away for it).
  private var playerProblem: String?
  /// The item whose file was found to differ in duration from the group's (told once).
  private var durationWarnedFor: ItemID?
  /// A file within this many seconds of the group's duration is the same episode.
  public static let durationTolerance = 1.0

  public init(configuration: ParticipantConfiguration, hasPlayer: Bool, hasPassword: Bool = false) {
    self.configuration = configuration
    self.hasPlayer = hasPlayer
    self.hasPassword = hasPassword
    reconnectDelay = configuration.reconnectInitialDelay
    syncSchedule = ClockSyncSchedule(
      fastInterval: 0.05, steadyInterval: configuration.pingInterval, samplesForSteady: 8)
  }

  // MARK: - Introspection

  public var isStopped: Bool { link == .stopped }
  /// True while this participant's player follows the group (joined, not stepped away):
  /// then what the person does in the player itself is a request to the group.
  public var playerFollowsGroup: Bool { coordinator?.isFollowing == true }
  public var unansweredRequests: Int { outbox.count }

  public func snapshot(at now: LocalInstant, seen: PlayerObservation?) -> ParticipantSnapshot {
    let groupTime = estimate.map { $0.groupTime(at: now) }
    let item = state.session?.item.id
    return ParticipantSnapshot(
      participant: participant, room: configuration.room, name: configuration.name,
      connection: status, phase: phase, state: state, clock: estimate, player: seen,
      localTime: now, groupTime: groupTime,
      groupPosition: groupTime.flatMap { t in state.session.map { $0.position(at: t) } },
      requestedPosition: requestedPosition.flatMap { $0.item == item ? $0.position(at: now) : nil },
      requestedRate: requestedRate?.rate, unansweredRequests: outbox.count,
      messagesSealed: hasPassword, allowedRates: replica?.configuration.allowedRates,
      waitingReasons: replica?.configuration.waitingReasons)
  }

  /// Where this participant's player is, or else where the group is, by its estimate.
  ///
  /// A player busy loading, seeking or prerolling a scheduled start still shows where it
  /// was, not where it is going: pausing then must not undo the seek that keeps it busy, so
  /// the group's position counts instead — and while the group still plays the old spot
  /// up to a seek's switch instant, the seek's target.
  public func currentPosition(at now: LocalInstant, seen: PlayerObservation?) -> Double? {
    guard let session = state.session else { return nil }
    if let seen, seen.item == session.item.id, !seen.isBusy { return seen.position }
    guard let estimate else { return nil }
    let groupNow = estimate.groupTime(at: now)
    let timeline = session.timeline
    if groupNow < timeline.groupTime, abs(timeline.priorItemTime - timeline.itemTime) > 1e-6 {
      return min(max(timeline.itemTime, 0), session.item.duration)
    }
    return session.position(at: groupNow)
  }

  /// When ``tick(at:seen:)`` is next due.
  public var nextDeadline: LocalInstant? {
    var next: LocalInstant?
    func consider(_ t: LocalInstant?) {
      guard let t else { return }
      if next.map({ t < $0 }) ?? true { next = t }
    }
    switch link {
    case .idle, .stopped, .connecting: break
    case .greeting(let since):
      // Deriving a challenged room's keys takes what it takes (scrypt, slow on purpose);
      // the wait for the welcome starts again when the proof goes out.
      if pendingChallenge == nil {
        consider(since.advanced(bySeconds: configuration.answerTimeout))
      }
    case .waitingToReconnect(let until): consider(until)
    case .connected:
      consider(syncSchedule.nextPing ?? lastHeard)
      consider(lastHeard?.advanced(bySeconds: configuration.relaySilenceTimeout))
      consider(nextReport)
      if hasPlayer { consider(nextCorrection) }
    }
    for request in outbox where request.ticket != nil { consider(request.answerDeadline) }
    return next
  }

  // MARK: - Lifecycle

  /// Connects and enters the room; ``ParticipantEffect/started(_:)`` tells how it went.
  /// `relay` is the address of the relay it starts with (`HOST:PORT`), so that a redirect
  /// back to it is known for what it is.
  public mutating func start(at now: LocalInstant, relay address: String? = nil)
    -> [ParticipantEffect]
  {
    guard link == .idle else { return [] }
    route.home = address
    link = .connecting
    return [.connect(nil)]
  }

  /// The transport opened a connection: say hello.
  public mutating func connected(at now: LocalInstant) -> [ParticipantEffect] {
    guard link == .connecting else { return [.closeConnection] }
    link = .greeting(since: now)
    var token = resume
    token?.messagesReceived = messagesReceived
    pendingChallenge = nil
    return [
      .send(
        .hello(
          version: ProtocolVersion.current, name: configuration.name, room: configuration.room,
          resume: token, protect: roomKeys?.protection))
    ]
  }

  /// The runtime derived the room's keys from the password (before the first connection,
  /// or for a challenge's derivation): a challenge waiting for them is answered.
  public mutating func roomKeysDerived(_ keys: RoomKeys, at now: LocalInstant)
    -> [ParticipantEffect]
  {
    guard hasPassword else { return [] }
    roomKeys = keys
    guard case .greeting = link, let challenge = pendingChallenge,
      challenge.derivation == keys.derivation
    else { return [] }
    return answer(challenge, with: keys, at: now)
  }

  /// The runtime could not derive the keys: the participant cannot enter and says why.
  public mutating func roomKeysFailed(_ why: String, at now: LocalInstant) -> [ParticipantEffect] {
    guard case .greeting = link else { return [] }
    return failedAttempt(.invalid(why), at: now)
  }

  private mutating func answer(
    _ challenge: RoomChallenge, with keys: RoomKeys, at now: LocalInstant
  )
    -> [ParticipantEffect]
  {
    pendingChallenge = nil
    // The greeting's timeout starts again: the derivation took its time.
    link = .greeting(since: now)
    return [
      .send(.proof(signature: keys.proof(room: configuration.room, nonce: challenge.nonce)))
    ]
  }

  private mutating func challenged(_ challenge: RoomChallenge, at now: LocalInstant)
    -> [ParticipantEffect]
  {
    guard hasPassword else {
      return failedAttempt(.passwordRequired(room: configuration.room), at: now)
    }
    guard challenge.derivation.isValid else {
      return failedAttempt(
        .invalid("the relay asked for a key derivation outside the protocol's limits"), at: now)
    }
    if let roomKeys, roomKeys.derivation == challenge.derivation {
      return answer(challenge, with: roomKeys, at: now)
    }
    pendingChallenge = challenge
    link = .greeting(since: now)
    return [.deriveRoomKeys(challenge.derivation)]
  }

  /// The transport could not open a connection.
  public mutating func connectFailed(_ error: ClientError, at now: LocalInstant)
    -> [ParticipantEffect]
  {
    guard link == .connecting else { return [] }
    return failedAttempt(error, at: now)
  }

  /// The connection closed (or failed).
  public mutating func connectionLost(at now: LocalInstant) -> [ParticipantEffect] {
    switch link {
    case .greeting:
      return failedAttempt(.noWelcome(seconds: configuration.answerTimeout), at: now)
    case .connected:
      link = .connecting
      disconnectedSince = disconnectedSince ?? now
      lastHeard = nil
      return setStatus(.reconnecting) + scheduleReconnect(at: now)
    default:
      return []
    }
  }

  /// Leaves the room (the session too) and stops.
  public mutating func stop(at now: LocalInstant) -> [ParticipantEffect] {
    guard link != .stopped else { return [] }
    var effects: [ParticipantEffect] = []
    if link == .connected { effects.append(.send(.bye)) }
    return effects + shutdown(.left)
  }

  /// Stops without saying goodbye, as a crash would (for tests).
  public mutating func kill(at now: LocalInstant) -> [ParticipantEffect] {
    guard link != .stopped else { return [] }
    return shutdown(.relayLost)
  }

  private mutating func failedAttempt(_ error: ClientError, at now: LocalInstant)
    -> [ParticipantEffect]
  {
    var effects: [ParticipantEffect] = [.closeConnection]
    guard everWelcomed else {
      // The first entry failed: the caller hears why, and nothing keeps trying.
      return effects + shutdown(nil, startError: error)
    }
    if case .transport(.untrusted) = error {
      // The relay's certificate changed or was refused: reconnecting would present it
      // again. Stop, and say so loudly.
      effects.append(.event(.error(error.description)))
      return effects + shutdown(.removed(error.description))
    }
    if case .passwordRequired = error {
      effects.append(.event(.error(error.description)))
      return effects + shutdown(.removed(error.description))
    }
    if case .refused(let code, _) = error {
      if Self.endsParticipation.contains(code) {
        effects.append(.event(.error(error.description)))
        return effects + shutdown(.removed(error.description))
      }
      // Anything else (a full room or relay, a rate limit) may pass: keep the place and
      // try again. (A relay that forgot us answers a resume with a new place anyway.)
    }
    link = .connecting
    // Several relays: the next attempt goes to the next one, soon (a room whose relay
    // died is taken over by another once its lease expires, within seconds).
    if route.failed(at: now) {
      reconnectDelay = min(reconnectDelay, Self.alternativeRelayDelay)
    }
    return effects + scheduleReconnect(at: now)
  }

  /// Longest wait before trying the next relay when there are several.
  static let alternativeRelayDelay = 0.5

  private mutating func scheduleReconnect(at now: LocalInstant) -> [ParticipantEffect] {
    let since = disconnectedSince ?? now
    if now.seconds(since: since) > configuration.reconnectGiveUpAfter {
      return [.event(.error("gave up reconnecting to the relay"))] + shutdown(.relayLost)
    }
    link = .waitingToReconnect(until: now.advanced(bySeconds: reconnectDelay))
    reconnectDelay = min(reconnectDelay * 2, configuration.reconnectMaximumDelay)
    return []
  }

  private mutating func shutdown(_ reason: InvalidationReason?, startError: ClientError? = nil)
    -> [ParticipantEffect]
  {
    link = .stopped
    var effects: [ParticipantEffect] = [.closeConnection]
    if let startError { effects.append(.started(.failure(startError))) }
    if let reason, case .joined = phase { effects += setPhase(.invalidated(reason)) }
    effects.append(.player(.unload))
    for request in outbox {
      if let ticket = request.ticket {
        effects.append(.answer(ticket: ticket, .failure(.stopped)))
      } else if request.origin == .user, let why = Self.unsentReason(reason) {
        // Nobody waits for it (chat, a key's request answered as queued): said here, or
        // it would look sent.
        effects.append(.event(.error("not sent: \(Self.describe(request.body)) — \(why)")))
      }
    }
    outbox = []
    effects += setStatus(.disconnected)
    effects.append(.finished)
    return effects
  }

  // MARK: - Requests

  /// Takes a request: resolves it against what this participant last asked for, gives it
  /// the next id and queues it (sending it at once when connected). `ticket`, if given,
  /// is answered when the relay answers, or fails after the answer timeout.
  public mutating func request(
    _ request: ParticipantRequest, ticket: UInt64?, at now: LocalInstant,
    seen: PlayerObservation?
  ) -> [ParticipantEffect] {
    func fail(_ error: ClientError) -> [ParticipantEffect] {
      ticket.map { [.answer(ticket: $0, .failure(error))] } ?? [.event(.error(error.description))]
    }
    guard link != .stopped else { return fail(.stopped) }
    guard outbox.count < configuration.maximumUnansweredRequests else {
      return fail(
        .invalid(
          "\(outbox.count) requests are already waiting for the relay; try again in a moment"))
    }
    let body: Request.Body
    let session = state.session
    switch request {
    case .command(let command):
      body = .command(command)
    case .message(let kind, let text, let to):
      body = .message(kind: kind, body: text, to: to)
    case .pause:
      guard let session else { return fail(.notInSession) }
      let at =
        requestedPosition.flatMap { $0.item == session.item.id ? $0.position(at: now) : nil }
        ?? currentPosition(at: now, seen: seen) ?? session.timeline.itemTime
      body = .command(.pause(item: session.item.id, at: min(max(at, 0), session.item.duration)))
    case .play(let rate):
      body = .command(.play(item: session?.item.id, rate: rate))
    case .togglePlayback:
      guard let session else { return fail(.notInSession) }
      let moving =
        requestedPlaying?.playing ?? (session.status == .playing || session.status == .waiting)
      return self.request(moving ? .pause : .play(rate: nil), ticket: ticket, at: now, seen: seen)
    case .seek(let to):
      body = .command(.seek(item: session?.item.id, to: to))
    case .seekBy(let delta):
      guard let session else { return fail(.notInSession) }
      let from =
        requestedPosition.flatMap { $0.item == session.item.id ? $0.position(at: now) : nil }
        ?? currentPosition(at: now, seen: seen) ?? session.timeline.itemTime
      let end = session.item.duration
      let target = min(max(from + delta, 0), end)
      // A step past the start or the end: the group is already there; said here, not
      // broadcast again as a jump to the same place.
      if abs(target - min(max(from, 0), end)) < Self.sameSpot {
        let at = TimeFormat.clock(target)
        return fail(.unchanged(target >= end ? "already at the end (\(at))" : "already at \(at)"))
      }
      body = .command(.seek(item: session.item.id, to: target))
    case .setRate(let rate):
      body = .command(.setRate(item: session?.item.id, rate: rate))
    case .changeRate(let delta):
      guard let session else { return fail(.notInSession) }
      let allowed = replica?.configuration.allowedRates ?? 0.25...4
      let base = requestedRate?.rate ?? session.playbackRate
      let rate = min(max(base + delta, allowed.lowerBound), allowed.upperBound)
      // Past the fastest or slowest speed, in either direction: said here, not broadcast.
      if abs(rate - base) < 0.001 {
        return fail(.unchanged("speed is already \(RateFormat.text(rate))"))
      }
      body = .command(.setRate(item: session.item.id, rate: rate))
    }
    return enqueue(body, origin: .user, ticket: ticket, at: now)
  }

  private mutating func enqueue(
    _ body: Request.Body, origin: Request.Origin, ticket: UInt64?, at now: LocalInstant
  ) -> [ParticipantEffect] {
    let id = nextRequestID
    nextRequestID += 1
    let request = Request(
      id: id, body: body, origin: origin, askedAt: now, ticket: ticket,
      answerDeadline: now.advanced(bySeconds: configuration.answerTimeout))
    outbox.append(request)
    noteRequested(request, at: now)
    return link == .connected ? [.send(wire(request))] : []
  }

  /// A request as it goes on the wire: in a room with a password, a messenger payload is
  /// sealed, at each sending, for the participant id it goes out as.
  private func wire(_ request: Request) -> ClientMessage {
    guard case .message(let kind, let text, let to) = request.body, let roomKeys, let participant
    else { return request.message }
    let sealed = roomKeys.seal(
      kind: kind, body: text, room: configuration.room, sender: participant.rawValue)
    return .send(seq: request.id, to: to, kind: RoomKeys.sealedKind, body: sealed)
  }

  /// Remembers the target a request asks for, so that the next relative request starts
  /// from it.
  private mutating func noteRequested(_ request: Request, at now: LocalInstant) {
    guard case .command(let command) = request.body, let session = state.session else { return }
    let rate = requestedRate?.rate ?? session.playbackRate
    let moving = session.status == .playing || session.status == .waiting
    switch command {
    case .seek(let item, let to):
      requestedPosition = RequestedPosition(
        item: item ?? session.item.id, position: to, at: now, rate: moving ? rate : 0,
        requestID: request.id)
    case .pause(let item, let at):
      requestedPosition = RequestedPosition(
        item: item ?? session.item.id, position: at, at: now, rate: 0, requestID: request.id)
      requestedPlaying = (false, request.id)
    case .play(_, let newRate):
      requestedPlaying = (true, request.id)
      if var target = requestedPosition {
        target.position = target.position(at: now)
        target.at = now
        target.rate = newRate ?? rate
        target.requestID = request.id
        requestedPosition = target
      }
    case .setRate(_, let newRate):
      requestedRate = (newRate, request.id)
      if var target = requestedPosition, target.rate > 0 {
        target.position = target.position(at: now)
        target.at = now
        target.rate = newRate
        requestedPosition = target
      }
    default:
      break
    }
  }

  /// The relay answered request `id`.
  private mutating func settle(_ id: UInt64, _ result: Result<Void, Rejection>)
    -> [ParticipantEffect]
  {
    guard let index = outbox.firstIndex(where: { $0.id == id }) else { return [] }
    let request = outbox.remove(at: index)
    if requestedPosition?.requestID == id { requestedPosition = nil }
    if requestedRate?.requestID == id { requestedRate = nil }
    if requestedPlaying?.requestID == id { requestedPlaying = nil }
    var effects: [ParticipantEffect] = []
    switch result {
    case .success:
      if let ticket = request.ticket { effects.append(.answer(ticket: ticket, .success(()))) }
    case .failure(let rejection):
      if request.origin == .ready { readyRequested = false }
      if request.expiring {
        let text = "not sent: \(Self.describe(request.body)) — the connection was down too long"
        effects.append(.event(.error(text)))
      } else if case .command(let command) = request.body, request.origin != .report {
        effects.append(.event(.rejected(command, rejection, awaited: request.ticket != nil)))
      } else if case .message = request.body {
        effects.append(.event(.error("message not delivered: \(rejection.description)")))
      }
      if let ticket = request.ticket {
        effects.append(.answer(ticket: ticket, .failure(.rejected(rejection))))
      }
    }
    return effects
  }

  /// Refusals that trying again cannot change: the participant stops and says why.
  static let endsParticipation: Set<ErrorCode> = [
    .unsupportedVersion, .invalidHello, .roomLocked, .removedFromRoom, .wrongPassword,
    .roomNotProtected, .roomClosed,
  ]

  // MARK: - What the relay sends

  public mutating func received(
    _ message: ServerMessage, at now: LocalInstant, seen: PlayerObservation?
  ) -> [ParticipantEffect] {
    switch link {
    case .greeting:
      lastHeard = now
      switch message {
      case .welcome(let welcome): return adopt(welcome, at: now, seen: seen)
      case .challenge(let challenge) where pendingChallenge == nil:
        return challenged(challenge, at: now)
      case .redirect(let room, let relay) where room == configuration.room:
        // The room lives on another relay of the same database: go there at once, with
        // the same hello (the person does not notice).
        guard route.redirect(to: relay, at: now) else {
          return failedAttempt(
            .refused(
              code: .storeUnavailable,
              message: "room \(room) is on the relay at \(relay.address), which does not answer"),
            at: now)
        }
        link = .connecting
        return [.closeConnection, .connect(relay)]
      case .error(let code, let text, _):
        return failedAttempt(.refused(code: code, message: text), at: now)
      default:
        return failedAttempt(.noWelcome(seconds: configuration.answerTimeout), at: now)
      }
    case .connected:
      lastHeard = now
    default:
      return []
    }
    switch message {
    case .welcome, .challenge, .redirect:
      return []
    case .update(let newState, let events):
      if let configuration = replica?.configuration {
        replica = GroupEngine(configuration: configuration, state: newState)
      }
      resyncing = false
      return receive(newState, events: events, at: now, seen: seen)
    case .step(let step):
      guard var engine = replica, !resyncing else { return [] }
      if let events = engine.replay(step) {
        replica = engine
        return receive(engine.state, events: events, at: now, seen: seen)
      }
      // Missed or diverged: ask for the whole state; later steps apply on top of it.
      resyncing = true
      return [.send(.resync)]
    case .accepted(let id, _):
      return settle(id, .success(()))
    case .rejected(let id, let reason):
      return settle(id, .failure(reason))
    case .pong(_, let t0, let t1, let t2):
      let sample = ClockSample(t0: t0, t1: t1, t2: t2, t3: now)
      let steps = estimator.steps
      estimator.add(sample)
      // A clock stepped (the relay restarted, this machine slept): ping fast again so that
      // the fresh window fills at once.
      if estimator.steps != steps { syncSchedule.restart() }
      syncSchedule.sampleReceived(at: now)
      let jittery = (estimator.roundTripSpread ?? 0) > configuration.jitterThreshold
      syncSchedule.steadyInterval =
        jittery
        ? min(configuration.jitteryPingInterval, configuration.pingInterval)
        : configuration.pingInterval
      let first = estimate == nil
      estimate = estimator.estimate(at: now)
      guard first, estimate != nil else { return [] }
      // The player waited for a clock: group times mean nothing locally before it.
      let current = state
      return drivePlayer(at: now) { coordinator, clock in
        coordinator.adopt(current, at: now, clock: clock)
      } + reportIfNewSession(at: now)
    case .message(let from, let name, _, let kind, let body, let to):
      messagesReceived += 1
      return opened(from: from, name: name, kind: kind, body: body, to: to)
    case .error(let code, let text, let fatal):
      // Removed by the owner: the room's own change already said so ("ann removed you from
      // the room"); the relay's farewell would say it twice.
      var toldAlready = false
      if code == .removedFromRoom, let participant,
        case .removed(participant, _) = state.lastChange?.kind
      {
        toldAlready = true
      }
      var effects: [ParticipantEffect] = toldAlready ? [] : [.event(.error(text))]
      if fatal, code == .roomFull || Self.endsParticipation.contains(code) {
        effects += shutdown(.removed(text))
      }
      return effects
    }
  }

  /// A messenger payload as the person may see it. With a password, only what opens with
  /// the room's key is shown; anything else is reported, never shown as if it were theirs.
  private func opened(
    from: ParticipantID, name: String, kind: String, body: String, to: [ParticipantID]?
  )
    -> [ParticipantEffect]
  {
    let who = name
    guard let roomKeys else {
      if kind == RoomKeys.sealedKind {
        return [
          .event(
            .error(
              "a sealed message from \(who) was not shown: this room's messages are sealed with a password you did not give"
            ))
        ]
      }
      return [.event(.message(from: from, name: name, kind: kind, body: body, to: to))]
    }
    guard kind == RoomKeys.sealedKind else {
      return [
        .event(
          .error("a message from \(who) was not shown: it was not sealed with the room's password"))
      ]
    }
    do throws(RoomCryptoError) {
      let (innerKind, text) = try roomKeys.open(
        body, room: configuration.room, sender: from.rawValue)
      return [.event(.message(from: from, name: name, kind: innerKind, body: text, to: to))]
    } catch {
      return [.event(.error("a message from \(who) was not shown: \(error.description)"))]
    }
  }

  private mutating func adopt(_ welcome: Welcome, at now: LocalInstant, seen: PlayerObservation?)
    -> [ParticipantEffect]
  {
    var effects: [ParticipantEffect] = []
    let first = !everWelcomed
    link = .connected
    everWelcomed = true
    disconnectedSince = nil
    reconnectDelay = configuration.reconnectInitialDelay
    if !welcome.resumed { messagesReceived = 0 }
    // Another relay process that did not keep this member (a relay without a store, or
    // one that lost it): a session this participant was in went with the old one.
    let restartedWithoutUs =
      !welcome.resumed && relayEpoch != nil && relayEpoch != welcome.relayEpoch
    participant = welcome.participant
    resume = welcome.resume
    relayEpoch = welcome.relayEpoch
    route.welcomed(listing: welcome.relays)
    if coordinator == nil || coordinator?.participant != welcome.participant {
      coordinator = PlaybackCoordinator(
        participant: welcome.participant, configuration: configuration.sync)
    }
    syncSchedule.restart()
    nextReport = now.advanced(bySeconds: configuration.reportInterval)
    nextCorrection = now
    if first { effects.append(.started(.success(()))) }
    effects += setStatus(.connected)
    effects.append(
      .event(
        .welcomed(
          participant: welcome.participant, resumed: welcome.resumed,
          relayEpoch: welcome.relayEpoch, relay: route.current?.address)))
    replica = GroupEngine(configuration: welcome.configuration, state: welcome.state)
    resyncing = false
    readyRequested = false
    effects += receive(
      welcome.state, events: [], at: now, seen: seen,
      lost: restartedWithoutUs ? .relayRestarted : .left)
    // What the relay has not answered goes again, in order, before anything new; what
    // went stale while the connection was down is settled without being applied anew.
    // The person's playback commands are one sequence (a pause is at the spot the seek
    // before it went to): from the first too old to send, the rest are settled with it.
    var sequenceExpired = false
    for index in outbox.indices {
      let isCommand =
        if case .command = outbox[index].body { outbox[index].origin == .user } else { false }
      if now.seconds(since: outbox[index].askedAt) > configuration.resendWindow
        || (isCommand && sequenceExpired)
      {
        if isCommand { sequenceExpired = true }
        outbox[index].expiring = true
        effects.append(.send(.expire(id: outbox[index].id)))
      } else {
        effects.append(.send(wire(outbox[index])))
      }
    }
    if !welcome.resumed && configuration.autoAdvance {
      effects += enqueue(.command(.setAutoAdvance(true)), origin: .automatic, ticket: nil, at: now)
    }
    return effects
  }

  // MARK: - Time

  /// Runs what is due: pings, player correction, reports, answer timeouts, reconnection.
  public mutating func tick(at now: LocalInstant, seen: PlayerObservation?)
    -> [ParticipantEffect]
  {
    var effects: [ParticipantEffect] = []
    if let lastTick, now.seconds(since: lastTick) > 2, lastHeard != nil { lastHeard = now }
    lastTick = now
    for index in outbox.indices where outbox[index].ticket != nil {
      guard outbox[index].answerDeadline <= now, let ticket = outbox[index].ticket else {
        continue
      }
      // The caller stops waiting; the request stays queued (and is resent) until the
      // relay answers — and says so, since it may yet apply.
      outbox[index].ticket = nil
      let error: ClientError =
        link == .connected
        ? .timedOut(what: "the request", seconds: configuration.answerTimeout)
        : .notYetSent(window: configuration.resendWindow)
      effects.append(.answer(ticket: ticket, .failure(error)))
    }
    switch link {
    case .greeting(let since):
      if pendingChallenge == nil, now.seconds(since: since) >= configuration.answerTimeout {
        effects += failedAttempt(.noWelcome(seconds: configuration.answerTimeout), at: now)
      }
    case .waitingToReconnect(let until):
      if until <= now {
        link = .connecting
        effects.append(.connect(route.current))
      }
    case .connected:
      if let lastHeard, now.seconds(since: lastHeard) > configuration.relaySilenceTimeout {
        effects.append(.event(.error("the relay went silent; reconnecting")))
        effects.append(.closeConnection)
        effects += connectionLost(at: now)
        return effects
      }
      if syncSchedule.poll(at: now) {
        let id = nextPingID
        nextPingID += 1
        effects.append(.send(.ping(id: id, t0: now)))
      }
      if hasPlayer, let due = nextCorrection, due <= now {
        nextCorrection = now.advanced(bySeconds: correctionInterval)
        if let seen { effects += stepPlayer(seen, at: now) }
      }
      if let due = nextReport, due <= now {
        nextReport = now.advanced(bySeconds: configuration.reportInterval)
        effects += report(at: now)
      }
    case .idle, .connecting, .stopped:
      break
    }
    return effects
  }

  /// How often the player is checked against the group: often while the group plays or
  /// waits (drift, scheduled starts); a paused or finished group's player only needs to
  /// be seen settling (readiness), and with nothing watched it is idle. A front that
  /// wakes 20 times a second for a paused group costs a laptop's battery for nothing.
  var correctionInterval: Double {
    switch state.session?.status {
    case .playing, .waiting: configuration.correctionInterval
    case .paused, .finished: max(configuration.correctionInterval, Self.pausedCorrectionInterval)
    case nil: max(configuration.correctionInterval, 1)
    }
  }

  static let pausedCorrectionInterval = 0.25

  // MARK: - State

  /// `lost`: why a session this participant was in is gone, when no change says so.
  private mutating func receive(
    _ newState: GroupState, events: [ChangeEvent], at now: LocalInstant, seen: PlayerObservation?,
    lost: InvalidationReason = .left
  ) -> [ParticipantEffect] {
    state = newState
    // Back to playing: the player is checked at the quick pace at once, not after a
    // paused group's slower one.
    if let due = nextCorrection {
      nextCorrection = min(due, now.advanced(bySeconds: correctionInterval))
    }
    var effects: [ParticipantEffect] = [.event(.state(newState, events: events))]
    effects += updatePhase(events: events, lost: lost)
    effects += drivePlayer(at: now) { coordinator, clock in
      coordinator.adopt(newState, at: now, clock: clock)
    }
    // A participant without a player (a remote control, a test) is always ready.
    if !hasPlayer, let participant, let mine = newState.participant(participant),
      newState.session != nil
    {
      effects += requestReadyIfNeeded(mine, at: now)
    }
    return effects + reportIfNewSession(at: now)
  }

  /// Reports at once on joining a session (once a clock estimate exists).
  private mutating func reportIfNewSession(at now: LocalInstant) -> [ParticipantEffect] {
    guard estimate != nil, let participant, state.participant(participant)?.isJoined == true,
      let session = state.session, session.id != reportedSession
    else { return [] }
    return report(at: now)
  }

  /// Link and player figures, so that coordinated starts allow for this participant's
  /// round-trip and start-up latency.
  private mutating func report(at now: LocalInstant) -> [ParticipantEffect] {
    guard link == .connected, let estimate, let participant,
      state.participant(participant)?.isJoined == true, let session = state.session
    else { return [] }
    reportedSession = session.id
    // Without a player there is nothing to start; with one, its measured start-up latency
    // (a cautious guess until measured) widens the coordinated-start delay.
    let latency = hasPlayer ? (coordinator?.leadLatency ?? 0.3) : 0
    // One report in flight at a time: a newer one says all an older one would.
    guard !outbox.contains(where: { $0.origin == .report }) else { return [] }
    return enqueue(
      .command(
        .report(
          roundTrip: estimate.roundTrip, startupLatency: latency,
          playerOffset: coordinator?.lastGap)), origin: .report, ticket: nil, at: now)
  }

  /// Tells the group this participant is ready, once per time it is shown as not ready.
  private mutating func requestReadyIfNeeded(_ mine: Participant, at now: LocalInstant)
    -> [ParticipantEffect]
  {
    if mine.readiness == .ready || !mine.isJoined {
      readyRequested = false
      return []
    }
    guard !readyRequested else { return [] }
    readyRequested = true
    return enqueue(.command(.setReadiness(.ready)), origin: .ready, ticket: nil, at: now)
  }

  private mutating func updatePhase(events: [ChangeEvent], lost: InvalidationReason)
    -> [ParticipantEffect]
  {
    guard let participant else { return [] }
    let next: SessionPhase
    if let session = state.session {
      let joined = state.participant(participant)?.isJoined == true
      next = joined ? .joined(sessionID: session.id) : .waiting(sessionID: session.id)
    } else if case .joined = phase {
      let ender = events.last { if case .sessionEnded = $0.kind { true } else { false } }
      next = .invalidated(ender.map { .ended(by: $0.originatorName) } ?? lost)
    } else if case .invalidated = phase {
      next = phase
    } else {
      next = .none
    }
    var effects: [ParticipantEffect] = []
    if case .joined = phase, case .waiting = next { effects += setPhase(.invalidated(lost)) }
    if next != phase { effects += setPhase(next) }
    return effects
  }

  private mutating func setPhase(_ phase: SessionPhase) -> [ParticipantEffect] {
    self.phase = phase
    return [.event(.session(phase))]
  }

  private mutating func setStatus(_ status: ConnectionStatus) -> [ParticipantEffect] {
    guard status != self.status else { return [] }
    self.status = status
    return [.event(.connection(status))]
  }

  // MARK: - Player

  /// Observes the player, corrects drift and turns what it shows into group requests:
  /// ready after a load, stall-recovery suspensions, the end of the item.
  private mutating func stepPlayer(_ seen: PlayerObservation, at now: LocalInstant)
    -> [ParticipantEffect]
  {
    guard let participant else { return [] }
    var effects = drivePlayer(at: now) { coordinator, clock in
      coordinator.correct(seen, at: now, clock: clock)
    }
    guard let session = state.session, let mine = state.participant(participant), mine.isJoined
    else { return effects }
    if seen.problem != playerProblem {
      // A player that cannot follow steps away with the reason rather than hold the group;
      // once it can again, it comes back.
      if let problem = seen.problem {
        let item = session.item
        let text =
          problem == PlayerObservation.noFile(for: item.id)
          ? "you don't have \(session.series.title) · \(item.title) (\(TimeFormat.clock(item.duration))): stepping away until the group plays something you have"
          : "your player cannot follow: \(problem)"
        effects.append(.event(.error(text)))
        if playerProblem == nil, !mine.suspensions.contains(.playerUnavailable) {
          effects += enqueue(
            .command(.beginSuspension(.playerUnavailable)), origin: .automatic, ticket: nil,
            at: now)
        }
      } else if mine.suspensions.contains(.playerUnavailable) {
        effects += enqueue(
          .command(.endSuspension(.playerUnavailable, proposing: nil)), origin: .automatic,
          ticket: nil, at: now)
      }
      if seen.problem == nil, seen.item == nil {
        // The player came back empty (a restarted mpv): load the item into it again.
        let current = state
        effects += drivePlayer(at: now) { coordinator, clock in
          coordinator.playerReplaced()
          return coordinator.adopt(current, at: now, clock: clock)
        }
      }
      playerProblem = seen.problem
    }
    if seen.item == session.item.id, !seen.isBusy, !seen.isStalled {
      effects += requestReadyIfNeeded(mine, at: now)
    }
    if seen.item == session.item.id, durationWarnedFor != session.item.id,
      let length = seen.fileDuration,
      abs(length - session.item.duration) > Self.durationTolerance
    {
      durationWarnedFor = session.item.id
      let item = session.item
      effects.append(
        .event(
          .error(
            "your file of \(session.series.title) · \(item.title) is \(TimeFormat.clock(length)) long and the group's is \(TimeFormat.clock(item.duration)): it may be another cut, and near its end you may part from the group"
          )))
    }
    if seen.isStalled != stalled {
      stalled = seen.isStalled
      if stalled {
        effects += enqueue(
          .command(.beginSuspension(.stallRecovery)), origin: .automatic, ticket: nil, at: now)
      } else if mine.suspensions.contains(.stallRecovery) {
        effects += enqueue(
          .command(.endSuspension(.stallRecovery, proposing: nil)), origin: .automatic,
          ticket: nil, at: now)
      }
    }
    if seen.item == session.item.id, session.status == .playing,
      seen.position >= session.item.duration - 0.05, advanceSentFor != session.item.id
    {
      advanceSentFor = session.item.id
      effects += enqueue(
        .command(.advance(endedItem: session.item.id)), origin: .automatic, ticket: nil, at: now)
    }
    return effects
  }

  private mutating func drivePlayer(
    at now: LocalInstant,
    _ body: (inout PlaybackCoordinator, ClockOffsetEstimate) -> [PlayerCommand]
  ) -> [ParticipantEffect] {
    guard hasPlayer, var coordinator, let clock = estimate else { return [] }
    let commands = body(&coordinator, clock)
    self.coordinator = coordinator
    return commands.map { .player($0) }
  }

  /// A request in a few words, for messages.
  private static func describe(_ body: Request.Body) -> String {
    switch body {
    case .message(let kind, let text, _):
      if kind == "chat" {
        let words = text.count > 40 ? text.prefix(40) + "…" : Substring(text)
        return "your chat message “\(words)”"
      }
      return "a \(kind) message"
    case .command(let command): return describe(command)
    }
  }

  /// Why what was still queued will never go, when the participant stops other than by
  /// leaving (nil: it left on purpose).
  private static func unsentReason(_ reason: InvalidationReason?) -> String? {
    switch reason {
    case .relayLost: "gave up reconnecting to the relay"
    case .removed(let why): why
    case .none, .left, .ended, .relayRestarted: nil
    }
  }

  public static func describe(_ command: GroupCommand) -> String {
    switch command {
    case .play: "play"
    case .pause(_, let at): "pause at \(TimeFormat.clock(at))"
    case .seek(_, let to): "seek to \(TimeFormat.clock(to))"
    case .setRate(_, let rate): "speed \(rate)"
    case .replace(_, let item, _): "switch to \(item)"
    case .start(_, let item): "start \(item)"
    default: "\(command)".split(separator: "(").first.map(String.init) ?? "command"
    }
  }
}
