import Clocks
import Foundation
import Logging
import Participation
import PlaybackCoordination
import RoomCrypto
import Transports
import WireProtocol

/// One participant (GroupSession + the playback coordinator's participant side): the
/// runtime around a ``ParticipantCore``. It holds the connection, the player and whoever
/// waits for an answer, feeds the core what happens with the time, and performs the
/// effects the core returns — nothing else.
///
/// Every request is handed to the core synchronously on this actor and sent from there,
/// so requests go out in the order they were asked for, however many tasks ask at once.
public actor ParticipantClient {
  public nonisolated let configuration: ParticipantConfiguration
  public nonisolated let events: AsyncStream<ClientEvent>
  private let eventSink: AsyncStream<ClientEvent>.Continuation
  /// What the person did in the player's own window (mpv's keys, a Syncplay client's
  /// pause), as actions for the runner's ``ActionPerformer``: the same way in as a key in
  /// the front or a headless line, carried out by whoever runs this client. Bounded: a
  /// runner that stops reading loses the oldest, and the log says so.
  public nonisolated let playerActions: AsyncStream<ParticipantAction>
  private let playerActionSink: AsyncStream<ParticipantAction>.Continuation
  private let transport: any Transport
  /// The session's clock: every wait of this participant's, and its runner's, is on it.
  public nonisolated let clock: any SessionClock
  private let player: (any PlayerDriver)?
  private let logger: Logger
  /// The room's password, if the person gave one: only ever used to derive keys here.
  private let password: RoomPassword?
  /// Hears every event synchronously, before the player commands that follow it (a bridge
  /// that needs to know who made a change when its player is told of it).
  private let observer: (@Sendable (ClientEvent) -> Void)?
  /// This participant's own relay, ready to carry the room (nil: it does not offer).
  private let carrier: (any RoomCarrier)?

  private var core: ParticipantCore
  var connection: (any TransportConnection)?
  /// Counts connections, so that what an old one reports is ignored.
  private var generation: UInt64 = 0
  private var nextTicket: UInt64 = 1
  private var waiters: [UInt64: CheckedContinuation<Result<Void, ClientError>, Never>] = [:]
  private var startWaiter: CheckedContinuation<Result<Void, ClientError>, Never>?
  private var startResult: Result<Void, ClientError>?
  private var timer: Task<Void, Never>?
  private var timerDeadline: LocalInstant?
  private var messageSubscribers: [UInt64: MessageSubscriber] = [:]
  private var nextSubscriber: UInt64 = 1
  /// Tunnels asked of the relay and not answered yet, and who hears the relay's calls to
  /// this member as a lender (see ParticipantClient+Tunnels.swift).
  var tunnelWaiters: [UInt64: CheckedContinuation<Result<String, TunnelRefusal>, Never>] = [:]
  var nextTunnelRef: UInt64 = 1
  var tunnelCallSinks: [UInt64: AsyncStream<TunnelCall>.Continuation] = [:]

  private struct MessageSubscriber {
    var kind: MessageKind
    var continuation: AsyncStream<(ParticipantID, String, String)>.Continuation
  }

  public init(
    transport: any Transport, configuration: ParticipantConfiguration,
    player: (any PlayerDriver)? = nil, clock: any SessionClock = MonotonicClock(),
    password: RoomPassword? = nil, logger: Logger = Logger(label: "cowatch.participant"),
    observer: (@Sendable (ClientEvent) -> Void)? = nil, carrier: (any RoomCarrier)? = nil
  ) {
    self.observer = observer
    self.carrier = carrier
    self.transport = transport
    var configuration = configuration
    if configuration.ownRelayEpoch == nil { configuration.ownRelayEpoch = carrier?.relayEpoch }
    self.configuration = configuration
    self.player = player
    self.clock = clock
    self.logger = logger
    self.password = password
    core = ParticipantCore(
      configuration: configuration, hasPlayer: player != nil, hasPassword: password != nil)
    (events, eventSink) = AsyncStream.makeStream(bufferingPolicy: .unbounded)
    (playerActions, playerActionSink) = AsyncStream.makeStream(
      bufferingPolicy: .bufferingNewest(Self.playerActionBacklog))
  }

  /// More than a person presses in the moment a runner is busy (a switch being asked).
  static let playerActionBacklog = 64

  // MARK: - Lifecycle

  /// Connects and enters the room. Throws if the relay cannot be reached or refuses; after
  /// that, dropped connections are retried by themselves.
  public func start() async throws(ClientError) {
    if let password {
      // Keys for a room this participant may create: a fresh salt. (Entering an existing
      // room, the relay's challenge names the room's own, and the keys are derived again.)
      let derivation = KeyDerivation.fresh(cost: configuration.keyDerivationCost)
      switch await Self.derive(password, derivation) {
      case .success(let keys): perform(core.roomKeysDerived(keys, at: clock.localNow()))
      case .failure(let error): throw .invalid(error.description)
      }
    }
    perform(core.start(at: clock.localNow(), relay: transport.endpointDescription))
    let result: Result<Void, ClientError>
    if let startResult {
      result = startResult
    } else {
      result = await withCheckedContinuation { startWaiter = $0 }
    }
    try result.get()
  }

  /// Leaves the room (the session too) and stops.
  public func stop() async {
    let connection = self.connection
    perform(core.stop(at: clock.localNow()))
    await connection?.close()
  }

  /// Stops without saying goodbye, as a crash would (the crash drills of the tests and
  /// benchmarks: the relay must keep the place for the reconnect grace).
  public func kill() async {
    let connection = self.connection
    perform(core.kill(at: clock.localNow()))
    await connection?.close()
  }

  /// Cuts the connection as a network failure would: the relay is not told, answers on
  /// the way are lost, and the participant reconnects and resends by itself (for tests
  /// and fault drills).
  public func dropConnection() async {
    guard let connection else { return }
    await connection.close()
  }

  // MARK: - Reading

  public var participantID: ParticipantID? { core.participant }
  public var groupState: GroupState { core.state }
  public var connectionStatus: ConnectionStatus { core.status }
  public var clockEstimate: ClockOffsetEstimate? { core.estimate }
  public var relayEpoch: String? { core.relayEpoch }
  /// The members whose machines would carry the room next, as the relay named them.
  public var successors: [Successor] { core.successors }

  /// This participant's own relay was elected to carry the room (see
  /// ``ParticipantCore/carryingRoom(at:)``).
  public func carryingRoom() { perform(core.carryingRoom(at: clock.localNow())) }
  /// The relay this participant talks to now (nil: the one it was started with).
  public var currentRelay: RelayEndpoint? { core.currentRelay }

  public func snapshot() -> ParticipantSnapshot {
    let now = clock.localNow()
    return core.snapshot(at: now, seen: player?.observe(at: now))
  }

  /// Where this participant's player is, or else where the group is, by its estimate.
  public func currentPosition() -> Double? {
    let now = clock.localNow()
    return core.currentPosition(at: now, seen: player?.observe(at: now))
  }

  // MARK: - Requests

  /// Asks for something and waits for the relay's answer (at most the answer timeout;
  /// the request itself stays queued until the relay answers).
  @discardableResult
  public func perform(_ request: ParticipantRequest) async -> Result<Void, ClientError> {
    await answered { core, ticket, now, seen in
      core.request(request, ticket: ticket, at: now, seen: seen)
    }
  }

  /// Runs `ask` on the core with a new ticket and waits for that ticket's answer.
  private func answered(
    _ ask: (inout ParticipantCore, UInt64, LocalInstant, PlayerObservation?) -> [ParticipantEffect]
  ) async -> Result<Void, ClientError> {
    let ticket = nextTicket
    nextTicket += 1
    return await withCheckedContinuation { continuation in
      waiters[ticket] = continuation
      let now = clock.localNow()
      perform(ask(&core, ticket, now, player?.observe(at: now)))
    }
  }

  /// Asks for something without waiting for the answer: it is queued in order at once;
  /// a refusal arrives as an event.
  public func submit(_ request: ParticipantRequest) {
    let now = clock.localNow()
    perform(core.request(request, ticket: nil, at: now, seen: player?.observe(at: now)))
  }

  /// Runs this person's player `seconds` ahead of the group (negative: behind): at once
  /// here, and the others are told (waits for the relay's answer).
  @discardableResult
  public func setPersonalOffset(_ seconds: Double) async -> Result<Void, ClientError> {
    await answered { core, ticket, now, seen in
      core.setPersonalOffset(seconds, ticket: ticket, at: now, seen: seen)
    }
  }

  /// This person's personal offset, seconds.
  public var personalOffset: Double { core.personalOffset }

  /// Asks for a playback intent and waits for the relay's answer.
  @discardableResult
  public func perform(_ intent: PlaybackIntent) async -> Result<Void, ClientError> {
    await perform(.playback(intent))
  }

  /// Sends a group command and waits for the relay's answer.
  @discardableResult
  public func send(_ command: GroupCommand) async -> Result<Void, ClientError> {
    await perform(.command(command))
  }

  /// Pauses the group at what this participant's player shows (or the group position).
  @discardableResult
  public func pause() async -> Result<Void, ClientError> { await perform(.playback(.pause)) }

  @discardableResult
  public func play(rate: Double? = nil) async -> Result<Void, ClientError> {
    await perform(.playback(.play(rate: rate)))
  }

  @discardableResult
  public func seek(to position: Double) async -> Result<Void, ClientError> {
    await perform(.playback(.seek(to: position)))
  }

  /// Seeks by `delta` seconds from the position this participant last asked for (or,
  /// with nothing asked, where its player is), so that quick repeated seeks add up.
  @discardableResult
  public func seek(by delta: Double) async -> Result<Void, ClientError> {
    await perform(.playback(.seekBy(delta)))
  }

  @discardableResult
  public func setRate(_ rate: Double) async -> Result<Void, ClientError> {
    await perform(.playback(.setRate(rate)))
  }

  /// Changes the group's rate by `delta` from the rate this participant last asked for,
  /// kept within the relay's allowed range, so that quick repeated steps add up.
  @discardableResult
  public func changeRate(by delta: Double) async -> Result<Void, ClientError> {
    await perform(.playback(.changeRate(by: delta)))
  }

  /// Sends a messenger payload, reliable and ordered with this participant's commands
  /// (queued while reconnecting). A refusal (too large, unknown recipient) arrives as an
  /// error event.
  public func sendMessage(kind: MessageKind, body: String, to recipients: Recipients = .all) {
    submit(.message(kind: kind, body: body, to: recipients))
  }

  /// Messenger payloads of one kind from now on, as (sender, sender's name, body); any
  /// number of subscribers, each for as long as it iterates.
  public func rawMessages(kind: MessageKind) -> AsyncStream<(ParticipantID, String, String)> {
    let (stream, continuation) = AsyncStream<(ParticipantID, String, String)>.makeStream(
      bufferingPolicy: .bufferingNewest(1000))
    guard !core.isStopped else {
      continuation.finish()
      return stream
    }
    let id = nextSubscriber
    nextSubscriber += 1
    messageSubscribers[id] = MessageSubscriber(kind: kind, continuation: continuation)
    continuation.onTermination = { [clock] _ in
      Task(executorPreference: clock.taskExecutor) { await self.unsubscribe(id) }
    }
    return stream
  }

  private func unsubscribe(_ id: UInt64) { messageSubscribers[id] = nil }

  // MARK: - Effects

  private func perform(_ effects: [ParticipantEffect]) {
    for effect in effects {
      switch effect {
      case .connect(let relay):
        generation += 1
        let generation = self.generation
        Task(executorPreference: clock.taskExecutor) { await self.connect(generation, to: relay) }
      case .send(let message):
        do { try connection?.send(message) } catch {
          // The connection is going; the core hears of it from the receive loop, and the
          // request is still in its outbox.
        }
      case .closeConnection:
        generation += 1
        if let connection {
          self.connection = nil
          Task(executorPreference: clock.taskExecutor) { await connection.close() }
        }
      case .player(let command):
        player?.perform(command, at: clock.localNow())
      case .event(let event):
        if case .message(let from, let name, let kind, let body, _, _) = event {
          for subscriber in messageSubscribers.values where subscriber.kind == kind {
            subscriber.continuation.yield((from, name, body))
          }
        }
        // Reactions of tonight (not the backlog's) reach subscribers of the kind as their
        // body: a room's memory keeps them with the film time.
        if case .reaction(let from, let name, let reaction, false) = event {
          for subscriber in messageSubscribers.values where subscriber.kind == .reaction {
            subscriber.continuation.yield((from, name, reaction.body))
          }
        }
        if case .notice(let notice) = event { logger.info("\(notice)") }
        observer?(event)
        eventSink.yield(event)
      case .answer(let ticket, let result):
        waiters.removeValue(forKey: ticket)?.resume(returning: result)
      case .deriveRoomKeys(let derivation):
        guard let password else { break }
        let generation = self.generation
        Task(executorPreference: clock.taskExecutor) {
          let result = await Self.derive(password, derivation)
          await self.keysDerived(result, generation: generation)
        }
      case .started(let result):
        startResult = result
        startWaiter?.resume(returning: result)
        startWaiter = nil
      case .carrier(let effect):
        carrier?.perform(effect, groupClock: core.estimate, at: clock.localNow())
      case .finished:
        timer?.cancel()
        timer = nil
        for subscriber in messageSubscribers.values { subscriber.continuation.finish() }
        messageSubscribers = [:]
        for (_, waiter) in waiters { waiter.resume(returning: .failure(.stopped)) }
        waiters = [:]
        endTunnels()
        eventSink.finish()
        playerActionSink.finish()
      }
    }
    scheduleTimer()
  }

  /// Keeps one timer task sleeping until the core's next deadline. A deadline that moved
  /// later keeps the timer already sleeping (it wakes, finds nothing due and sleeps again):
  /// most messages move the deadline, and a new task for each would cost a thread's
  /// wake-up on the path of every change.
  private func scheduleTimer() {
    guard let deadline = core.nextDeadline else {
      timer?.cancel()
      timer = nil
      timerDeadline = nil
      return
    }
    if timer != nil, let sleeping = timerDeadline, sleeping <= deadline { return }
    timer?.cancel()
    timerDeadline = deadline
    let clock = self.clock
    timer = Task(executorPreference: clock.taskExecutor) {
      await clock.sleep(untilNanoseconds: deadline.nanoseconds)
      guard !Task.isCancelled else { return }
      await self.fire()
    }
  }

  private func fire() {
    timer = nil
    timerDeadline = nil
    let now = clock.localNow()
    if let deadline = core.nextDeadline, now < deadline {
      scheduleTimer()
      return
    }
    perform(core.tick(at: now, seen: player?.observe(at: now)))
    forwardUserActions(at: now)
  }

  /// What the person did in the player's own window goes to the runner's performer, with
  /// them as originator — while the player follows the group (stepped away, the player is
  /// theirs alone, and what they do in it stays there).
  private func forwardUserActions(at now: LocalInstant) {
    guard let player else { return }
    let actions = player.takeUserActions()
    guard !actions.isEmpty, core.playerFollowsGroup else { return }
    for action in actions {
      let result = playerActionSink.yield(
        ParticipantAction(action, personalOffset: core.personalOffset))
      if case .dropped(let lost) = result {
        logger.warning("a player action was not carried out in time: \(String(describing: lost))")
      }
    }
  }

  /// scrypt is slow on purpose (a third of a second, more on a busy machine): it runs on a
  /// thread of its own, not on Swift concurrency's cooperative pool (a thread per core,
  /// which a detached task would hold, stalling every other task meanwhile).
  private static func derive(_ password: RoomPassword, _ derivation: KeyDerivation) async
    -> Result<RoomKeys, RoomCryptoError>
  {
    await withCheckedContinuation { continuation in
      Thread.detachNewThread {
        do throws(RoomCryptoError) {
          continuation.resume(
            returning: .success(try RoomKeys.derive(password: password, derivation: derivation)))
        } catch {
          continuation.resume(returning: .failure(error))
        }
      }
    }
  }

  private func keysDerived(_ result: Result<RoomKeys, RoomCryptoError>, generation: UInt64) {
    guard generation == self.generation else { return }
    let now = clock.localNow()
    switch result {
    case .success(let keys): perform(core.roomKeysDerived(keys, at: now))
    case .failure(let error): perform(core.roomKeysFailed(error.description, at: now))
    }
  }

  private func connect(_ generation: UInt64, to relay: RelayEndpoint?) async {
    let result: Result<any TransportConnection, TransportError>
    do throws(TransportError) {
      result = .success(try await transport.connect(to: relay))
    } catch {
      result = .failure(error)
    }
    let now = clock.localNow()
    switch result {
    case .success(let opened):
      guard generation == self.generation, !core.isStopped else {
        await opened.close()
        return
      }
      connection = opened
      let stream = opened.inbound
      Task(executorPreference: clock.taskExecutor) {
        await self.receiveLoop(stream, generation: generation)
      }
      perform(core.connected(at: now, relay: opened.relayFingerprint))
    case .failure(let error):
      guard generation == self.generation else { return }
      logger.info("connecting failed: \(error)")
      perform(core.connectFailed(.transport(error), at: now))
    }
  }

  private func receiveLoop(
    _ stream: AsyncThrowingStream<ServerMessage, any Error>, generation: UInt64
  ) async {
    do {
      for try await message in stream {
        guard generation == self.generation else { return }
        tunnelNews(message)
        let now = clock.localNow()
        perform(core.received(message, at: now, seen: player?.observe(at: now)))
      }
    } catch {
      logger.info("connection ended: \(error)")
    }
    guard generation == self.generation else { return }
    connection = nil
    perform(core.connectionLost(at: clock.localNow()))
  }
}
