import Narration
import PlaybackCoordination
import RoomCrypto
import WireProtocol

/// The participant side of the protocol as a state machine, composed of one small machine
/// per concern:
///
/// - ``RelayLink``: connecting, greeting, reconnecting with back-off, which relay next;
/// - ``RoomSecrets``: the challenge's proof, sealing and opening messages;
/// - ``Outbox``: request ids, answers, timeouts, what goes again after a reconnection;
/// - ``PendingIntents``: what the person last asked for, so relative requests add up;
/// - ``RoomReplica``: the room's engine replayed from the relay's steps, and the phase;
/// - ``ClockSync``: pings and the relay clock's estimate;
/// - ``PlayerFollowing``: the player kept with the group, and what it shows turned into
///   requests.
///
/// This type only routes inputs to them and turns what they decide into
/// ``ParticipantEffect``s, in order. Pure, like ``RelayCore`` on the relay's side: every
/// input comes with the local time (and, where it matters, what the player shows);
/// time-driven rules run in ``tick(at:seen:)``, due by ``nextDeadline``.
public struct ParticipantCore: Sendable {
  public let configuration: ParticipantConfiguration
  /// Whether a player follows the group (without one, the participant is always ready).
  public var hasPlayer: Bool { following.hasPlayer }
  /// Whether the person gave the room's password: then the core proves it at the relay's
  /// challenge and seals every messenger payload; the runtime, which holds the password,
  /// derives the keys (``ParticipantEffect/deriveRoomKeys(_:)``).
  public var hasPassword: Bool { password.isGiven }

  private var link: RelayLink
  private var password: RoomSecrets
  /// This participant's key for private messages (see ``MemberKeys``).
  private let privateKeys: MemberKeys
  private var outbox = Outbox()
  private var intents = PendingIntents()
  private var replica = RoomReplica()
  private var clock: ClockSync
  private var following: PlayerFollowing
  private var succession: RoomSuccession

  public private(set) var participant: ParticipantID?
  /// Proves this participant's resumes (see ``ResumeKey``).
  private let resumeKey: ResumeKey

  /// A file within this many seconds of the group's duration is the same episode.
  public static let durationTolerance = PlayerFollowing.durationTolerance

  /// `privateKeys`: the key others seal private messages to this participant with;
  /// `resumeKey`: the one its resumes prove themselves with (new ones from the CSPRNG
  /// unless given).
  public init(
    configuration: ParticipantConfiguration, hasPlayer: Bool, hasPassword: Bool = false,
    privateKeys: MemberKeys = .generate(), resumeKey: ResumeKey = .generate()
  ) {
    self.configuration = configuration
    self.privateKeys = privateKeys
    self.resumeKey = resumeKey
    link = RelayLink(configuration: configuration)
    password = RoomSecrets(isGiven: hasPassword, room: configuration.room)
    clock = ClockSync(
      pingInterval: configuration.pingInterval,
      jitteryPingInterval: configuration.jitteryPingInterval,
      jitterThreshold: configuration.jitterThreshold)
    following = PlayerFollowing(configuration: configuration, hasPlayer: hasPlayer)
    succession = RoomSuccession(
      offer: configuration.carry, ownRelayEpoch: configuration.ownRelayEpoch)
  }

  // MARK: - Introspection

  public var status: ConnectionStatus { link.status }
  public var relayEpoch: String? { link.relayEpoch }
  /// The relay this participant talks to now; nil: the one it was started with.
  public var currentRelay: RelayEndpoint? { link.route.current }
  public var state: GroupState { replica.state }
  public var phase: SessionPhase { replica.phase }
  public var estimate: ClockOffsetEstimate? { clock.estimate }
  /// The members whose machines would carry the room next, as the relay named them.
  public var successors: [Successor] { succession.successors }
  public var isStopped: Bool { link.isStopped }
  /// True while this participant's player follows the group (joined, not stepped away):
  /// then what the person does in the player itself is a request to the group.
  public var playerFollowsGroup: Bool { following.isFollowing }
  public var unansweredRequests: Int { outbox.count }

  public func snapshot(at now: LocalInstant, seen: PlayerObservation?) -> ParticipantSnapshot {
    let groupTime = estimate.map { $0.groupTime(at: now) }
    let item = state.session?.item.id
    return ParticipantSnapshot(
      participant: participant, room: configuration.room, name: configuration.name,
      connection: status, phase: phase, state: state, clock: estimate, player: seen,
      localTime: now, groupTime: groupTime,
      groupPosition: groupTime.flatMap { t in state.session.map { $0.position(at: t) } },
      requestedPosition: item.flatMap { intents.position(in: $0, at: now) },
      requestedRate: intents.requestedRate, unansweredRequests: outbox.count,
      messagesSealed: hasPassword, allowedRates: replica.configuration?.allowedRates,
      waitingReasons: replica.configuration?.waitingReasons)
  }

  /// Where this participant's player is, or else where the group is, by its estimate.
  ///
  /// A player busy loading, seeking or prerolling a scheduled start still shows where it
  /// was, not where it is going: pausing then must not undo the seek that keeps it busy, so
  /// the group's position counts instead — and while the group still plays the old spot
  /// up to a seek's switch instant, the seek's target.
  public func currentPosition(at now: LocalInstant, seen: PlayerObservation?) -> Double? {
    guard let session = state.session else { return nil }
    if let seen, seen.item == session.item.id, !seen.isBusy {
      // The player runs ahead by the personal offset on purpose: the group's position is
      // that much earlier.
      return min(max(seen.position - following.personalOffset, 0), session.item.duration)
    }
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
    var candidates = [link.nextDeadline, outbox.nextAnswerDeadline]
    if link.isConnected {
      candidates += [clock.nextPing ?? link.lastHeard, following.nextDeadline]
    }
    return candidates.compactMap { $0 }.min()
  }

  // MARK: - Lifecycle

  /// Connects and enters the room; ``ParticipantEffect/started(_:)`` tells how it went.
  /// `relay` is the address of the relay it starts with (`HOST:PORT`), so that a redirect
  /// back to it is known for what it is.
  public mutating func start(at now: LocalInstant, relay address: String? = nil)
    -> [ParticipantEffect]
  {
    link.start(home: address) ? [.connect(nil)] : []
  }

  /// The transport opened a connection: say hello. `relay`: the fingerprint of the
  /// certificate the relay presented (and the transport checked); nil over plain TCP. A
  /// resume proves itself to that relay only; a first hello gives the key to prove with.
  public mutating func connected(at now: LocalInstant, relay fingerprint: String? = nil)
    -> [ParticipantEffect]
  {
    guard case .some(var token) = link.opened(at: now) else { return [.closeConnection] }
    if let participant = token?.participant {
      token?.proof = resumeKey.prove(
        room: configuration.room, participant: participant, relay: fingerprint)
    }
    return [
      .send(
        .hello(
          version: ProtocolVersion.current, name: configuration.name, room: configuration.room,
          resume: token, protect: password.protection,
          resumeKey: token == nil ? resumeKey.publicKey : nil))
    ]
  }

  /// The runtime derived the room's keys from the password (before the first connection,
  /// or for a challenge's derivation): a challenge waiting for them is answered.
  public mutating func roomKeysDerived(_ keys: RoomKeys, at now: LocalInstant)
    -> [ParticipantEffect]
  {
    password.derived(keys)
    guard let challenge = link.pendingChallenge, password.isGiven,
      challenge.derivation == keys.derivation
    else { return [] }
    return answer(challenge, at: now)
  }

  /// The runtime could not derive the keys: the participant cannot enter and says why.
  public mutating func roomKeysFailed(_ why: String, at now: LocalInstant) -> [ParticipantEffect] {
    guard link.isGreeting else { return [] }
    return failedAttempt(.invalid(why), at: now)
  }

  private mutating func answer(_ challenge: RoomChallenge, at now: LocalInstant)
    -> [ParticipantEffect]
  {
    switch password.answer(challenge) {
    case .prove(let proof):
      // The greeting's timeout starts again: the derivation took its time.
      link.greeting(deriving: nil, at: now)
      return [.send(proof)]
    case .derive(let derivation):
      link.greeting(deriving: challenge, at: now)
      return [.deriveRoomKeys(derivation)]
    case .fail(let error):
      return failedAttempt(error, at: now)
    }
  }

  /// The transport could not open a connection.
  public mutating func connectFailed(_ error: ClientError, at now: LocalInstant)
    -> [ParticipantEffect]
  {
    guard link.state == .connecting else { return [] }
    return failedAttempt(error, at: now)
  }

  /// The connection closed (or failed).
  public mutating func connectionLost(at now: LocalInstant) -> [ParticipantEffect] {
    switch link.state {
    case .greeting:
      return failedAttempt(.noWelcome(seconds: configuration.answerTimeout), at: now)
    case .connected:
      let failure = link.lost(at: now)
      return setStatus(.reconnecting) + after(failure)
    default:
      return []
    }
  }

  /// Leaves the room (the session too) and stops.
  public mutating func stop(at now: LocalInstant) -> [ParticipantEffect] {
    guard !link.isStopped else { return [] }
    return (link.isConnected ? [.send(.bye)] : []) + shutdown(.left)
  }

  /// Stops without saying goodbye, as a crash would (the crash drills of the tests and
  /// benchmarks: the relay must keep the place for the reconnect grace).
  public mutating func kill(at now: LocalInstant) -> [ParticipantEffect] {
    guard !link.isStopped else { return [] }
    return shutdown(.relayLost)
  }

  private mutating func failedAttempt(_ error: ClientError, at now: LocalInstant)
    -> [ParticipantEffect]
  {
    [.closeConnection] + after(link.failed(error, at: now))
  }

  private mutating func after(_ failure: RelayLink.Failure) -> [ParticipantEffect] {
    switch failure {
    case .retry: []
    case .startFailed(let error): shutdown(nil, startError: error)
    case .stop(let why): [.event(.notice(.stopped(why)))] + shutdown(.removed(why))
    case .gaveUp:
      [.event(.notice(.gaveUpReconnecting))] + shutdown(.relayLost)
    }
  }

  private mutating func shutdown(_ reason: InvalidationReason?, startError: ClientError? = nil)
    -> [ParticipantEffect]
  {
    link.stop()
    var effects: [ParticipantEffect] = [.closeConnection]
    if let startError { effects.append(.started(.failure(startError))) }
    if let reason, let phase = replica.stopped(reason) { effects.append(.event(.session(phase))) }
    effects.append(.player(.unload))
    for request in outbox.removeAll() {
      if let ticket = request.ticket {
        effects.append(.answer(ticket: ticket, .failure(.stopped)))
      } else if request.origin == .user, let why = Self.unsentReason(reason) {
        // Nobody waits for it (chat, a key's request answered as queued): said here, or
        // it would look sent.
        effects.append(
          .event(.notice(.notSent(request: Self.describe(request.body), why: why))))
      }
    }
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
      ticket.map { [.answer(ticket: $0, .failure(error))] } ?? [.event(.notice(error.notice))]
    }
    guard !link.isStopped else { return fail(.stopped) }
    guard outbox.count < configuration.maximumUnansweredRequests else {
      return fail(
        .invalid(
          "\(outbox.count) requests are already waiting for the relay; try again in a moment"))
    }
    if case .message(_, _, .only(let ids)) = request, let why = cannotSealPrivately(for: ids) {
      return fail(.invalid(why))
    }
    let resolved = intents.resolve(
      request, session: state.session, current: currentPosition(at: now, seen: seen),
      allowedRates: replica.configuration?.allowedRates ?? 0.25...4, at: now)
    switch resolved {
    case .success(let body):
      var effects = enqueue(body, origin: .user, ticket: ticket, at: now)
      // The relay does not echo one's own payloads: a reaction is heard here as it goes
      // out, so that this person's front and the room's memory have it too.
      if case .react = request, case .message(_, let text, _) = body, let participant,
        case .success(let reaction) = Reaction.read(body: text)
      {
        effects.append(.event(.reaction(from: participant, name: configuration.name, reaction)))
      }
      return effects
    case .failure(let error): return fail(error)
    }
  }

  private mutating func enqueue(
    _ body: OutboxRequest.Body, origin: OutboxRequest.Origin, ticket: UInt64?,
    at now: LocalInstant
  ) -> [ParticipantEffect] {
    let request = outbox.add(
      body, origin: origin, ticket: ticket, at: now, answerTimeout: configuration.answerTimeout)
    if case .command(let command) = body {
      intents.asked(command, id: request.id, in: state.session, at: now)
    }
    return link.isConnected ? [.send(wire(request))] : []
  }

  /// A request as it goes on the wire: a message for some members only is sealed for
  /// them with their own keys (in every room); any other messenger payload is sealed with
  /// the room's key in a room with a password.
  private func wire(_ request: OutboxRequest) -> ClientMessage {
    guard case .message(let kind, let text, .only(let ids)) = request.body else {
      return password.wire(request, as: participant)
    }
    // Not in the room yet (no id to seal as): never in the clear; the relay refuses a
    // message for nobody, in words.
    guard let participant else {
      return .send(seq: request.id, to: .only([]), kind: MemberKeys.sealedKind, body: "")
    }
    // Sealed at each sending, for those whose keys the room knows now (one who left
    // meanwhile has none: the relay refuses a message for nobody in words).
    let recipients = ids.compactMap { id in
      state.participant(id)?.sealingKey.map { (id: id.rawValue, key: $0) }
    }
    let sealed =
      recipients.isEmpty
      ? nil
      : MemberKeys.seal(
        kind: kind, body: text, for: recipients, room: configuration.room,
        sender: participant.rawValue)
    return .send(
      seq: request.id, to: .only(sealed == nil ? [] : recipients.map { ParticipantID($0.id) }),
      kind: MemberKeys.sealedKind, body: sealed ?? "")
  }

  /// Why a private message for `ids` cannot be sealed now, if it cannot: a recipient whose
  /// key the room does not know (a Syncplay client has none). Never sent in the clear.
  private func cannotSealPrivately(for ids: [ParticipantID]) -> String? {
    if let absent = ids.first(where: { state.participant($0) == nil }) {
      return "\(absent.rawValue) is not in the room"
    }
    let missing = ids.compactMap { id -> Participant? in
      guard let member = state.participant(id) else { return nil }
      return member.sealingKey == nil ? member : nil
    }
    guard let first = missing.first else { return nil }
    if first.origin == .syncplay {
      return
        "\(first.name) uses Syncplay, which cannot open a private message sealed for them; say it to everyone, or in another way"
    }
    return
      "\(first.name)'s key for private messages has not reached the room yet; try again in a moment"
  }

  /// A private message as the person may see it: opened with this participant's own key,
  /// or reported, never shown as if it were readable.
  private func openPrivately(
    _ body: String, from: ParticipantID, name: String, to: [ParticipantID]?
  )
    -> ClientEvent
  {
    guard let participant else {
      return .notice(.messageHidden(from: name, .unopenable("not in the room")))
    }
    do throws(RoomCryptoError) {
      let opened = try privateKeys.open(
        body, me: participant.rawValue, room: configuration.room, sender: from.rawValue)
      return .message(
        from: from, name: name, kind: opened.kind, body: opened.body,
        to: opened.recipients.map { ParticipantID($0) })
    } catch {
      return .notice(.messageHidden(from: name, .unopenable(error.description)))
    }
  }

  /// A payload as opened, as the person hears of it: a reaction read (one out of bounds
  /// reported, never shown), and what came from the room's backlog marked earlier.
  static func delivered(_ event: ClientEvent, earlier: Bool) -> ClientEvent {
    guard case .message(let from, let name, let kind, let body, let to, _) = event else {
      return event
    }
    guard kind == .reaction else {
      return .message(from: from, name: name, kind: kind, body: body, to: to, earlier: earlier)
    }
    switch Reaction.read(body: body) {
    case .success(let reaction):
      return .reaction(from: from, name: name, reaction, earlier: earlier)
    case .failure(let why):
      return .notice(.messageHidden(from: name, .unopenable(why.description)))
    }
  }

  /// The relay answered request `id`.
  private mutating func settle(_ id: UInt64, _ result: Result<Void, Rejection>)
    -> [ParticipantEffect]
  {
    guard let request = outbox.settle(id) else { return [] }
    intents.answered(id)
    var effects: [ParticipantEffect] = []
    switch result {
    case .success:
      if let ticket = request.ticket { effects.append(.answer(ticket: ticket, .success(()))) }
    case .failure(let rejection):
      if request.origin == .ready { following.readinessRefused() }
      if request.expiring {
        let why = "the connection was down too long"
        effects.append(.event(.notice(.notSent(request: Self.describe(request.body), why: why))))
      } else if case .command(let command) = request.body, request.origin != .report {
        effects.append(.event(.rejected(command, rejection, awaited: request.ticket != nil)))
      } else if case .message = request.body {
        effects.append(.event(.notice(.messageNotDelivered(rejection.description))))
      }
      if let ticket = request.ticket {
        effects.append(.answer(ticket: ticket, .failure(.rejected(rejection))))
      }
    }
    return effects
  }

  // MARK: - What the relay sends

  public mutating func received(
    _ message: ServerMessage, at now: LocalInstant, seen: PlayerObservation?
  ) -> [ParticipantEffect] {
    switch link.state {
    case .greeting: return greeted(message, at: now, seen: seen)
    case .connected: link.heard(at: now)
    default: return []
    }
    switch message {
    case .welcome, .challenge, .located:
      return []
    case .tunnelTicket, .tunnelRefused, .tunnelCall, .tunnelReady:
      // Lending's, heard by the runtime (ParticipantClient+Tunnels.swift).
      return []
    case .redirect(let room, let relay):
      return moved(room: room, to: relay, at: now)
    case .succession(let list):
      guard succession.named(list) else { return [] }
      link.named(successors: list.filter(\.canCarry).map(\.relay))
      return [.event(.succession(list))]
    case .replica(let change):
      return [.carrier(.replica(change))]
    case .handover(let room):
      guard room == configuration.room, succession.offer != nil else { return [] }
      succession.handedOver()
      return [.carrier(.carry(room: room, state: replica.state))]
    case .update(let newState, let events):
      replica.replace(with: newState)
      return receive(newState, events: events, at: now, seen: seen)
    case .step(let step):
      switch replica.replay(step) {
      case .applied(let newState, let events):
        return receive(newState, events: events, at: now, seen: seen)
      case .resync: return [.send(.resync)]
      case .ignored: return []
      }
    case .accepted(let id, _):
      return settle(id, .success(()))
    case .rejected(let id, let reason):
      return settle(id, .failure(reason))
    case .pong(_, let t0, let t1, let t2):
      guard clock.pong(t0: t0, t1: t1, t2: t2, at: now), let estimate = clock.estimate else {
        return []
      }
      return perform(following.clockArrived(estimate, state: state, at: now), at: now)
        + report(at: now, onlyIfNew: true)
    case .message(let from, let name, _, let kind, let body, let to, let earlier):
      link.messageReceived()
      let opened =
        kind == MemberKeys.sealedKind
        ? openPrivately(body, from: from, name: name, to: to)
        : password.open(from: from, name: name, kind: kind, body: body, to: to)
      return [.event(Self.delivered(opened, earlier: earlier))]
    case .error(let code, let text, let fatal):
      // Removed by the owner: the room's own change already said so ("ann removed you from
      // the room"); the relay's farewell would say it twice.
      var toldAlready = false
      if code == .removedFromRoom, let participant,
        case .removed(participant, _) = state.lastChange?.kind
      {
        toldAlready = true
      }
      var effects: [ParticipantEffect] = toldAlready ? [] : [.event(.notice(.relay(text)))]
      if fatal, code == .roomFull || RelayLink.endsParticipation.contains(code) {
        effects += shutdown(.removed(text))
      }
      return effects
    }
  }

  /// The relay sends the room elsewhere while this participant is in it: its host left and
  /// handed it to a successor. Follow at once, with the same place.
  private mutating func moved(room: String, to relay: RelayEndpoint, at now: LocalInstant)
    -> [ParticipantEffect]
  {
    guard room == configuration.room, link.moved(to: relay, at: now) else { return [] }
    let heir = succession.successor(at: relay)
    // Its own relay sends it to another machine's: that relay was replaced while away (its
    // machine slept) and lets the room go; it runs nothing for this room any more.
    if succession.runsRelay, heir?.participant != participant { succession.replaced() }
    let name = heir.map { $0.participant == participant ? nil : $0.name } ?? nil
    var effects: [ParticipantEffect] = [.closeConnection]
    if heir != nil { effects.append(.event(.notice(.roomMoved(toMachineOf: name)))) }
    return effects + setStatus(.reconnecting) + [.connect(relay)]
  }

  /// This participant's own relay carries the room now: it was elected when the room's
  /// relay died (a handover says so by itself). It is no successor any more, but the
  /// member whose machine runs the relay, and says so.
  public mutating func carryingRoom(at now: LocalInstant) -> [ParticipantEffect] {
    guard succession.offer != nil else { return [] }
    succession.handedOver()
    // Said in words, as after a handover: "the room moved to the relay at …" alone left
    // the person to work out from an address that it is their own machine now.
    let told: [ParticipantEffect] = [.event(.notice(.roomMoved(toMachineOf: nil)))]
    guard link.isConnected, let offer = succession.offer(afterWelcomeFrom: link.relayEpoch)
    else { return told }
    return told + [.send(offer)]
  }

  /// What the relay says before its welcome.
  private mutating func greeted(
    _ message: ServerMessage, at now: LocalInstant, seen: PlayerObservation?
  ) -> [ParticipantEffect] {
    link.heard(at: now)
    switch message {
    case .welcome(let welcome):
      return adopt(welcome, at: now, seen: seen)
    case .challenge(let challenge) where link.pendingChallenge == nil:
      return answer(challenge, at: now)
    case .redirect(let room, let relay) where room == configuration.room:
      // The room lives on another relay of the same database: go there at once, with
      // the same hello (the person does not notice).
      guard link.redirect(to: relay, at: now) else {
        return failedAttempt(
          .refused(
            code: .storeUnavailable,
            message: "room \(room) is on the relay at \(relay.address), which does not answer"),
          at: now)
      }
      return [.closeConnection, .connect(relay)]
    case .error(let code, let text, _):
      return failedAttempt(.refused(code: code, message: text), at: now)
    default:
      return failedAttempt(.noWelcome(seconds: configuration.answerTimeout), at: now)
    }
  }

  private mutating func adopt(_ welcome: Welcome, at now: LocalInstant, seen: PlayerObservation?)
    -> [ParticipantEffect]
  {
    var effects: [ParticipantEffect] = []
    let (first, restartedWithoutUs) = link.welcomed(welcome)
    participant = welcome.participant
    following.welcomed(as: welcome.participant, at: now)
    clock.restart()
    if first { effects.append(.started(.success(()))) }
    effects += setStatus(.connected)
    effects.append(
      .event(
        .welcomed(
          participant: welcome.participant, resumed: welcome.resumed,
          relayEpoch: welcome.relayEpoch, relay: link.route.current?.address,
          keepsRooms: welcome.keepsRooms)))
    replica.welcomed(configuration: welcome.configuration, state: welcome.state)
    effects += receive(
      welcome.state, events: [], at: now, seen: seen,
      lost: restartedWithoutUs ? .relayRestarted : .left)
    // What the relay has not answered goes again, in order, before anything new.
    for resend in outbox.resend(at: now, window: configuration.resendWindow) {
      switch resend {
      case .send(let request): effects.append(.send(wire(request)))
      case .expire(let id): effects.append(.send(.expire(id: id)))
      }
    }
    if let offer = succession.offer(afterWelcomeFrom: welcome.relayEpoch) {
      effects.append(.send(offer))
    }
    if !welcome.resumed && configuration.autoAdvance {
      effects += enqueue(.command(.setAutoAdvance(true)), origin: .automatic, ticket: nil, at: now)
    }
    // Private messages can be sealed for this person once the room knows their key.
    if state.participant(welcome.participant)?.sealingKey != privateKeys.publicKey {
      effects += enqueue(
        .command(.announceSealingKey(privateKeys.publicKey)), origin: .automatic, ticket: nil,
        at: now)
    }
    // The others see this person's personal offset (a new relay, or a new place, does
    // not know it yet).
    if state.participant(welcome.participant)?.personalOffset != following.personalOffset {
      effects += enqueue(
        .command(.setPersonalOffset(following.personalOffset)), origin: .automatic, ticket: nil,
        at: now)
    }
    return effects
  }

  /// How far this person's player runs ahead of the group on purpose, seconds.
  public var personalOffset: Double { following.personalOffset }

  /// Runs this person's player `seconds` ahead of the group (negative: behind) from now
  /// on: the player moves at once, and the others are told.
  public mutating func setPersonalOffset(
    _ seconds: Double, ticket: UInt64?, at now: LocalInstant, seen: PlayerObservation?
  ) -> [ParticipantEffect] {
    let limit = Participant.maximumPersonalOffset
    guard seconds.isFinite, abs(seconds) <= limit else {
      let error = ClientError.invalid("a personal offset is at most \(Int(limit)) s either way")
      return ticket.map { [.answer(ticket: $0, .failure(error))] }
        ?? [.event(.notice(error.notice))]
    }
    following.personalOffset = seconds
    var effects = perform(
      following.adopt(state, as: participant, clock: clock.estimate, at: now), at: now)
    effects += enqueue(
      .command(.setPersonalOffset(seconds)), origin: .user, ticket: ticket, at: now)
    return effects
  }

  // MARK: - Time

  /// Runs what is due: pings, player correction, reports, answer timeouts, reconnection.
  public mutating func tick(at now: LocalInstant, seen: PlayerObservation?)
    -> [ParticipantEffect]
  {
    let due = link.tick(at: now)
    var effects: [ParticipantEffect] = outbox.takeOverdueTickets(at: now).map { ticket in
      let error: ClientError =
        link.isConnected
        ? .timedOut(what: "the request", seconds: configuration.answerTimeout)
        : .notYetSent(window: configuration.resendWindow)
      return .answer(ticket: ticket, .failure(error))
    }
    switch due {
    case .greetingTimedOut:
      return effects + failedAttempt(.noWelcome(seconds: configuration.answerTimeout), at: now)
    case .reconnect(let relay):
      return effects + [.connect(relay)]
    case .relaySilent:
      effects.append(.event(.notice(.relaySilent)))
      effects.append(.closeConnection)
      return effects + setStatus(.reconnecting) + after(link.lost(at: now, silent: true))
    case nil:
      guard link.isConnected else { return effects }
    }
    if let ping = clock.ping(at: now) { effects.append(.send(ping)) }
    effects += perform(
      following.tick(
        seen: seen, state: state, as: participant, clock: clock.estimate, at: now), at: now)
    if following.reportDue(at: now) { effects += report(at: now) }
    return effects
  }

  // MARK: - State

  /// `lost`: why a session this participant was in is gone, when no change says so.
  private mutating func receive(
    _ newState: GroupState, events: [ChangeEvent], at now: LocalInstant, seen: PlayerObservation?,
    lost: InvalidationReason = .left
  ) -> [ParticipantEffect] {
    let phases = replica.adopt(newState, events: events, as: participant, lost: lost)
    var effects: [ParticipantEffect] = [.event(.state(newState, events: events))]
    effects += phases.map { .event(.session($0)) }
    effects += perform(
      following.adopt(newState, as: participant, clock: clock.estimate, at: now), at: now)
    return effects + report(at: now, onlyIfNew: true)
  }

  /// Link and player figures, so that coordinated starts allow for this participant's
  /// round-trip and start-up latency; `onlyIfNew`: only on joining a new session.
  private mutating func report(at now: LocalInstant, onlyIfNew: Bool = false)
    -> [ParticipantEffect]
  {
    guard link.isConnected,
      let command = following.report(
        in: state, as: participant, clock: clock.estimate,
        reportInFlight: outbox.contains(origin: .report), onlyIfNew: onlyIfNew)
    else { return [] }
    return enqueue(.command(command), origin: .report, ticket: nil, at: now)
  }

  private mutating func perform(_ actions: [PlayerFollowing.Action], at now: LocalInstant)
    -> [ParticipantEffect]
  {
    actions.flatMap { action -> [ParticipantEffect] in
      switch action {
      case .player(let command): [.player(command)]
      case .notice(let notice): [.event(.notice(notice))]
      case .request(let command, let origin):
        enqueue(.command(command), origin: origin, ticket: nil, at: now)
      }
    }
  }

  private mutating func setStatus(_ status: ConnectionStatus) -> [ParticipantEffect] {
    link.set(status) ? [.event(.connection(status))] : []
  }

  // MARK: - Words

  private static func describe(_ body: OutboxRequest.Body) -> String {
    switch body {
    case .message(let kind, let text, _): RequestText.message(kind: kind, body: text)
    case .command(let command): RequestText.command(command)
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
}
