import Logging
import PlaybackCoordination
import WireProtocol

/// Settings of a participant client.
public struct ParticipantConfiguration: Sendable {
  public var name: String
  public var room: String
  /// How long to wait for the relay's welcome, and for a command's answer, seconds.
  public var answerTimeout: Double
  /// Ping (clock sync and heartbeat) interval once synchronised, seconds.
  public var pingInterval: Double
  /// Player correction interval, seconds.
  public var correctionInterval: Double
  /// Link/player report interval, seconds.
  public var reportInterval: Double
  /// Reconnection backoff: first delay, cap, and how long to keep trying, seconds.
  public var reconnectInitialDelay: Double
  public var reconnectMaximumDelay: Double
  public var reconnectGiveUpAfter: Double
  /// Commands asked for while disconnected are sent on reconnection if at most this old,
  /// seconds; older ones are reported as not sent.
  public var resendWindow: Double
  public var sync: SyncConfiguration
  /// Start with auto-advance on.
  public var autoAdvance: Bool

  public init(
    name: String, room: String = "lobby", answerTimeout: Double = 5, pingInterval: Double = 1,
    correctionInterval: Double = 0.05, reportInterval: Double = 2,
    reconnectInitialDelay: Double = 0.1, reconnectMaximumDelay: Double = 3,
    reconnectGiveUpAfter: Double = 60, resendWindow: Double = 10, sync: SyncConfiguration = .init(),
    autoAdvance: Bool = false
  ) {
    self.name = name
    self.room = room
    self.answerTimeout = answerTimeout
    self.pingInterval = pingInterval
    self.correctionInterval = correctionInterval
    self.reportInterval = reportInterval
    self.reconnectInitialDelay = reconnectInitialDelay
    self.reconnectMaximumDelay = reconnectMaximumDelay
    self.reconnectGiveUpAfter = reconnectGiveUpAfter
    self.resendWindow = resendWindow
    self.sync = sync
    self.autoAdvance = autoAdvance
  }
}

/// Everything a participant knows at one instant, for fronts and `status`.
public struct ParticipantSnapshot: Sendable {
  public var participant: ParticipantID?
  public var room: String
  public var name: String
  public var connection: ConnectionStatus
  public var phase: SessionPhase
  public var state: GroupState
  public var clock: ClockOffsetEstimate?
  public var player: PlayerObservation?
  public var localTime: LocalInstant
  /// The group time now, by this participant's estimate.
  public var groupTime: GroupInstant?
  /// Where the group is now, by this participant's estimate.
  public var groupPosition: Double?
}

/// One participant: connects to a relay, keeps its clock in sync, sends commands, follows
/// the group with its player and reconnects by itself (GroupSession + the playback
/// coordinator's participant side).
public actor ParticipantClient {
  public let configuration: ParticipantConfiguration
  public nonisolated let events: AsyncStream<ClientEvent>
  private let eventSink: AsyncStream<ClientEvent>.Continuation
  private let transport: any Transport
  private let clock: MonotonicClock
  private let player: (any PlayerDriver)?
  private var logger: Logger

  private var connection: (any TransportConnection)?
  private var status: ConnectionStatus = .connecting
  private var resume: ResumeToken?
  private var me: ParticipantID?
  private var state = GroupState()
  /// This participant's replica of the room's engine: replays the relay's steps.
  private var replica: GroupEngine?
  /// A step did not fit the replica; the whole state was asked for.
  private var resyncing = false
  private var phase: SessionPhase = .none
  private var estimator = ClockOffsetEstimator()
  private var estimate: ClockOffsetEstimate?
  private var coordinator: PlaybackCoordinator?
  private var tasks: [Task<Void, Never>] = []
  private var stopped = false

  private var nextCommandID: UInt64 = 1
  private var unanswered: [UInt64: GroupCommand] = [:]
  /// When each unanswered command was asked for: a command older than the resend window is
  /// not replayed after a reconnection (a pause from a minute ago would yank everyone
  /// back); it is reported as dropped instead.
  private var askedAt: [UInt64: LocalInstant] = [:]
  private var unansweredOrder: [UInt64] = []
  private var waiters: [UInt64: CheckedContinuation<Result<Void, ClientError>, Never>] = [:]
  private var earlyAnswers: [UInt64: Result<Void, ClientError>] = [:]
  /// Commands whose caller stopped waiting (timed out); their late answers are not kept.
  private var abandoned: Set<UInt64> = []
  private var messageSubscribers: [UInt64: MessageSubscriber] = [:]
  private var nextSubscriber: UInt64 = 1

  private struct MessageSubscriber {
    var kind: String
    var continuation: AsyncStream<(ParticipantID, String, String)>.Continuation
  }
  private var nextMessageSeq: UInt64 = 1
  private var unsentMessages: [ClientMessage] = []
  private var nextPingID: UInt64 = 1
  private var syncSchedule: ClockSyncSchedule

  // Player bookkeeping.
  /// The session last reported to, so that joining a new one reports at once.
  private var reportedSession: UInt64?
  private var readyRequested = false
  private var stalled = false
  private var advanceSentFor: ItemID?

  public init(
    transport: any Transport, configuration: ParticipantConfiguration,
    player: (any PlayerDriver)? = nil, clock: MonotonicClock = .init(),
    logger: Logger = Logger(label: "cowatch.participant")
  ) {
    self.transport = transport
    self.configuration = configuration
    self.player = player
    self.clock = clock
    self.logger = logger
    (events, eventSink) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(10_000))
    syncSchedule = ClockSyncSchedule(
      fastInterval: 0.05, steadyInterval: configuration.pingInterval, samplesForSteady: 8)
  }

  // MARK: - Lifecycle

  /// Connects and enters the room. Throws if the relay cannot be reached or refuses; after
  /// that, dropped connections are retried by themselves.
  public func start() async throws(ClientError) {
    let welcome: Welcome
    do {
      welcome = try await connectAndGreet()
    } catch {
      finish(.disconnected)
      throw error
    }
    adopt(welcome)
    tasks.append(Task { await self.pingLoop() })
    if player != nil { tasks.append(Task { await self.playerLoop() }) }
    tasks.append(Task { await self.reportLoop() })
  }

  /// Leaves the room (the session too) and stops.
  public func stop() async {
    guard !stopped else { return }
    if let connection { try? await connection.send(.bye) }
    await shutdown(.left)
  }

  /// Stops without saying goodbye, as a crash would (for tests).
  public func kill() async {
    await shutdown(.relayLost)
  }

  private func shutdown(_ reason: InvalidationReason) async {
    stopped = true
    for task in tasks { task.cancel() }
    tasks = []
    await connection?.close()
    connection = nil
    if case .joined = phase { setPhase(.invalidated(reason)) }
    player?.perform(.unload, at: clock.localNow())
    for subscriber in messageSubscribers.values { subscriber.continuation.finish() }
    messageSubscribers = [:]
    for (_, waiter) in waiters { waiter.resume(returning: .failure(.stopped)) }
    waiters = [:]
    finish(.disconnected)
  }

  private func finish(_ status: ConnectionStatus) {
    setStatus(status)
    eventSink.finish()
  }

  // MARK: - Public API

  public var participantID: ParticipantID? { me }
  public var groupState: GroupState { state }
  public var connectionStatus: ConnectionStatus { status }
  public var clockEstimate: ClockOffsetEstimate? { estimate }

  public func snapshot() -> ParticipantSnapshot {
    let now = clock.localNow()
    let groupTime = estimate.map { $0.groupTime(at: now) }
    return ParticipantSnapshot(
      participant: me, room: configuration.room, name: configuration.name, connection: status,
      phase: phase, state: state, clock: estimate, player: player?.observe(at: now),
      localTime: now, groupTime: groupTime,
      groupPosition: groupTime.flatMap { t in state.session.map { $0.position(at: t) } })
  }

  /// Sends a group command and waits for the relay's answer (with a timeout). While
  /// reconnecting the command is queued and sent on reconnection.
  @discardableResult
  public func send(_ command: GroupCommand) async -> Result<Void, ClientError> {
    guard !stopped else { return .failure(.stopped) }
    let id = nextCommandID
    nextCommandID += 1
    unanswered[id] = command
    askedAt[id] = clock.localNow()
    unansweredOrder.append(id)
    if let connection, status == .connected {
      do { try await connection.send(.command(id: id, command)) } catch {
        // Resent after reconnection.
      }
    }
    // The answer may have arrived while the send was suspended.
    if let early = earlyAnswers.removeValue(forKey: id) { return early }
    let timeout = configuration.answerTimeout
    let clock = self.clock
    let timer = Task {
      await clock.sleep(seconds: timeout)
      if !Task.isCancelled { self.expire(id) }
    }
    let result = await withCheckedContinuation { waiters[id] = $0 }
    timer.cancel()
    return result
  }

  /// Pauses the group at what this participant's player shows (or the group position).
  @discardableResult
  public func pause() async -> Result<Void, ClientError> {
    guard let session = state.session else { return .failure(.notInSession) }
    let at = currentPosition() ?? session.timeline.itemTime
    return await send(.pause(item: session.item.id, at: min(max(at, 0), session.item.duration)))
  }

  @discardableResult
  public func play(rate: Double? = nil) async -> Result<Void, ClientError> {
    await send(.play(item: state.session?.item.id, rate: rate))
  }

  @discardableResult
  public func seek(to position: Double) async -> Result<Void, ClientError> {
    await send(.seek(item: state.session?.item.id, to: position))
  }

  @discardableResult
  public func setRate(_ rate: Double) async -> Result<Void, ClientError> {
    await send(.setRate(item: state.session?.item.id, rate: rate))
  }

  /// Seeks by `delta` seconds from the position this participant last asked for (or, with
  /// nothing asked, where the group is), so that quick repeated seeks add up.
  @discardableResult
  public func seek(by delta: Double) async -> Result<Void, ClientError> {
    guard let session = state.session else { return .failure(.notInSession) }
    let from = currentPosition() ?? session.timeline.itemTime
    return await seek(to: min(max(from + delta, 0), session.item.duration))
  }

  /// Changes the group's rate by `delta` from the rate this participant last asked for,
  /// kept within the relay's allowed range, so that quick repeated steps add up.
  @discardableResult
  public func changeRate(by delta: Double) async -> Result<Void, ClientError> {
    guard let session = state.session else { return .failure(.notInSession) }
    let allowed = replica?.configuration.allowedRates ?? 0.25...2
    let rate = min(max(session.intendedRate + delta, allowed.lowerBound), allowed.upperBound)
    return await setRate(rate)
  }

  /// Sends a messenger payload, reliable and ordered per sender (queued while
  /// reconnecting).
  public func sendMessage(kind: String, body: String, to recipients: Recipients = .all) async {
    let message = ClientMessage.send(seq: nextMessageSeq, to: recipients, kind: kind, body: body)
    nextMessageSeq += 1
    if let connection, status == .connected {
      do { try await connection.send(message) } catch { unsentMessages.append(message) }
    } else {
      unsentMessages.append(message)
    }
  }

  /// Messenger payloads of one kind from now on, as (sender, sender's name, body); any
  /// number of subscribers, each for as long as it iterates.
  public func rawMessages(kind: String) -> AsyncStream<(ParticipantID, String, String)> {
    let (stream, continuation) = AsyncStream<(ParticipantID, String, String)>.makeStream(
      bufferingPolicy: .bufferingNewest(1000))
    guard !stopped else {
      continuation.finish()
      return stream
    }
    let id = nextSubscriber
    nextSubscriber += 1
    messageSubscribers[id] = MessageSubscriber(kind: kind, continuation: continuation)
    continuation.onTermination = { _ in Task { await self.unsubscribe(id) } }
    return stream
  }

  private func unsubscribe(_ id: UInt64) { messageSubscribers[id] = nil }

  /// Where this participant's player is, or else where the group is, by its estimate.
  ///
  /// A player busy loading, seeking or prerolling a scheduled start still shows where it
  /// was, not where it is going: pausing then must not undo the seek that keeps it busy, so
  /// the group's position counts instead.
  public func currentPosition() -> Double? {
    let now = clock.localNow()
    if let player, let session = state.session {
      let seen = player.observe(at: now)
      if seen.item == session.item.id, !seen.isBusy { return seen.position }
    }
    guard let estimate, let session = state.session else { return nil }
    return session.position(at: estimate.groupTime(at: now))
  }

  // MARK: - Connection

  private func connectAndGreet() async throws(ClientError) -> Welcome {
    setStatus(status == .reconnecting ? .reconnecting : .connecting)
    let connection: any TransportConnection
    do {
      connection = try await transport.connect()
    } catch {
      throw .transport(error)
    }
    do {
      try await connection.send(
        .hello(
          version: ProtocolVersion.current, name: configuration.name, room: configuration.room,
          resume: resume))
    } catch {
      throw .transport(error)
    }
    let timeout = configuration.answerTimeout
    let clock = self.clock
    let timer = Task {
      await clock.sleep(seconds: timeout)
      if !Task.isCancelled { await connection.close() }
    }
    defer { timer.cancel() }
    var iterator = connection.inbound.makeAsyncIterator()
    let first: ServerMessage?
    do { first = try await iterator.next() } catch { throw .noWelcome(seconds: timeout) }
    switch first {
    case .welcome(let welcome):
      self.connection = connection
      let stream = connection.inbound
      tasks.append(Task { await self.receiveLoop(stream) })
      return welcome
    case .error(let code, let message, _):
      await connection.close()
      throw .refused(code: code, message: message)
    default:
      await connection.close()
      throw .noWelcome(seconds: timeout)
    }
  }

  private func adopt(_ welcome: Welcome) {
    me = welcome.participant
    resume = welcome.resume
    if coordinator == nil {
      coordinator = PlaybackCoordinator(
        participant: welcome.participant, configuration: configuration.sync)
    }
    setStatus(.connected)
    eventSink.yield(
      .welcomed(
        participant: welcome.participant, resumed: welcome.resumed,
        relayEpoch: welcome.relayEpoch))
    replica = GroupEngine(configuration: welcome.configuration, state: welcome.state)
    resyncing = false
    receive(welcome.state, events: [])
    if !welcome.resumed && configuration.autoAdvance {
      Task { await self.send(.setAutoAdvance(true)) }
    }
    // Resend what the relay has not answered (it drops duplicates) unless it has gone
    // stale, then queued messages.
    let connection = self.connection
    let now = clock.localNow()
    for id in unansweredOrder {
      guard let command = unanswered[id], let asked = askedAt[id],
        now.seconds(since: asked) > configuration.resendWindow
      else { continue }
      eventSink.yield(
        .error(
          "not sent: \(Self.describe(command)) — the connection was down for \(Int(now.seconds(since: asked))) s"
        ))
      answer(id, .failure(.timedOut(what: "the command", seconds: now.seconds(since: asked))))
      unanswered[id] = nil
      unansweredOrder.removeAll { $0 == id }
    }
    let pendingCommands = unansweredOrder.compactMap { id in unanswered[id].map { (id, $0) } }
    let pendingMessages = unsentMessages
    unsentMessages = []
    Task {
      for (id, command) in pendingCommands {
        try? await connection?.send(.command(id: id, command))
      }
      for message in pendingMessages { try? await connection?.send(message) }
    }
  }

  /// Handles what follows the welcome (which connectAndGreet consumed) until the
  /// connection ends, then reconnects.
  private func receiveLoop(_ stream: AsyncThrowingStream<ServerMessage, any Error>) async {
    do {
      for try await message in stream {
        handle(message)
      }
    } catch {
      logger.info("connection ended: \(error)")
    }
    await connectionLost()
  }

  private func handle(_ message: ServerMessage) {
    switch message {
    case .welcome:
      break
    case .update(let newState, let events):
      if let configuration = replica?.configuration {
        replica = GroupEngine(configuration: configuration, state: newState)
      }
      resyncing = false
      receive(newState, events: events)
    case .step(let step):
      guard var engine = replica, !resyncing else { return }
      if let events = engine.replay(step) {
        replica = engine
        receive(engine.state, events: events)
      } else {
        // Missed or diverged: ask for the whole state; later steps apply on top of it.
        logger.notice(
          "step \(step.before)→\(step.after) does not fit replica at \(engine.state.sequence); resyncing"
        )
        resyncing = true
        let connection = self.connection
        Task { try? await connection?.send(.resync) }
      }
    case .accepted(let id, _):
      answer(id, .success(()))
    case .rejected(let id, let reason):
      if let command = unanswered[id] { eventSink.yield(.rejected(command, reason)) }
      answer(id, .failure(.rejected(reason)))
    case .pong(_, let t0, let t1, let t2):
      let sample = ClockSample(t0: t0, t1: t1, t2: t2, t3: clock.localNow())
      estimator.add(sample)
      syncSchedule.sampleReceived(at: sample.t3)
      let first = estimate == nil
      estimate = estimator.estimate(at: sample.t3)
      if first, estimate != nil {
        // The player waited for a clock: group times mean nothing locally before it.
        let current = state
        drivePlayer { coordinator, now, clock in coordinator.adopt(current, at: now, clock: clock) }
        reportIfNewSession()
      }
    case .message(let from, let name, _, let kind, let body):
      eventSink.yield(.message(from: from, name: name, kind: kind, body: body))
      for subscriber in messageSubscribers.values where subscriber.kind == kind {
        subscriber.continuation.yield((from, name, body))
      }
    case .error(let code, let text, let fatal):
      eventSink.yield(.error(text))
      if fatal, code == .roomFull || code == .unsupportedVersion || code == .invalidHello {
        Task { await self.shutdown(.removed(text)) }
      }
    }
  }

  private func connectionLost() async {
    guard !stopped else { return }
    connection = nil
    setStatus(.reconnecting)
    var delay = configuration.reconnectInitialDelay
    let started = clock.localNow()
    while !stopped {
      await clock.sleep(seconds: delay)
      if stopped { return }
      do {
        let welcome = try await connectAndGreet()
        adopt(welcome)
        return
      } catch {
        if case .refused(let code, _) = error, code != .roomFull {
          // The relay forgot us (restarted): enter again as a new participant.
          resume = nil
        }
        logger.info("reconnect failed: \(error)")
      }
      if clock.localNow().seconds(since: started) > configuration.reconnectGiveUpAfter {
        eventSink.yield(.error("gave up reconnecting to \(transport.endpointDescription)"))
        await shutdown(.relayLost)
        return
      }
      delay = min(delay * 2, configuration.reconnectMaximumDelay)
    }
  }

  // MARK: - State

  private func receive(_ newState: GroupState, events: [ChangeEvent]) {
    state = newState
    eventSink.yield(.state(newState, events: events))
    updatePhase(events: events)
    drivePlayer { coordinator, now, clock in coordinator.adopt(newState, at: now, clock: clock) }
    // A participant without a player (a remote control, a test) is always ready.
    if player == nil, let me, let mine = newState.participant(me), newState.session != nil {
      requestReadyIfNeeded(mine)
    }
    reportIfNewSession()
  }

  /// Reports at once on joining a session (once a clock estimate exists).
  private func reportIfNewSession() {
    guard estimate != nil, let me, state.participant(me)?.isJoined == true,
      let session = state.session, session.id != reportedSession
    else { return }
    reportedSession = session.id
    Task { await self.report() }
  }

  /// Tells the group this participant is ready, once per time it is shown as not ready.
  private func requestReadyIfNeeded(_ mine: Participant) {
    if mine.readiness == .ready || !mine.isJoined {
      readyRequested = false
      return
    }
    guard !readyRequested else { return }
    readyRequested = true
    Task {
      if case .failure = await self.send(.setReadiness(.ready)) { self.readyFailed() }
    }
  }

  private func readyFailed() { readyRequested = false }

  private func updatePhase(events: [ChangeEvent]) {
    guard let me else { return }
    let next: SessionPhase
    if let session = state.session {
      let joined = state.participant(me)?.isJoined == true
      next = joined ? .joined(sessionID: session.id) : .waiting(sessionID: session.id)
    } else if case .joined = phase {
      let ender = events.last { if case .sessionEnded = $0.kind { true } else { false } }
      next = .invalidated(ender.map { .ended(by: $0.originatorName) } ?? .left)
    } else if case .invalidated = phase {
      next = phase
    } else {
      next = .none
    }
    if case .joined = phase, case .waiting = next { setPhase(.invalidated(.left)) }
    if next != phase { setPhase(next) }
  }

  private func setPhase(_ phase: SessionPhase) {
    self.phase = phase
    eventSink.yield(.session(phase))
  }

  private func setStatus(_ status: ConnectionStatus) {
    guard status != self.status else { return }
    self.status = status
    eventSink.yield(.connection(status))
  }

  private func answer(_ id: UInt64, _ result: Result<Void, ClientError>) {
    guard unanswered.removeValue(forKey: id) != nil else { return }
    askedAt[id] = nil
    unansweredOrder.removeAll { $0 == id }
    if let waiter = waiters.removeValue(forKey: id) {
      waiter.resume(returning: result)
    } else if abandoned.remove(id) == nil {
      earlyAnswers[id] = result
    }
  }

  private func expire(_ id: UInt64) {
    guard let waiter = waiters.removeValue(forKey: id) else { return }
    abandoned.insert(id)
    // Still resent on reconnection: the relay de-duplicates by id.
    waiter.resume(
      returning: .failure(.timedOut(what: "the command", seconds: configuration.answerTimeout)))
  }

  /// A command in a few words, for messages.
  static func describe(_ command: GroupCommand) -> String {
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

  // MARK: - Loops

  /// Clock sync and heartbeat: a quick burst until the estimator has a full window (so the
  /// estimate is good before the first command), then one ping per ping interval, which is
  /// also what keeps the relay from taking this participant for gone.
  private func pingLoop() async {
    while !Task.isCancelled && !stopped {
      let now = clock.localNow()
      if let connection, status == .connected, syncSchedule.poll(at: now) {
        let id = nextPingID
        nextPingID += 1
        try? await connection.send(.ping(id: id, t0: now))
      }
      let untilNext = syncSchedule.nextPing.map { $0.seconds(since: clock.localNow()) } ?? 0.05
      await clock.sleep(seconds: min(max(untilNext, 0.005), syncSchedule.interval))
    }
  }

  /// Reports link and player figures every report interval; ``receive(_:events:)`` also
  /// reports at once after joining a session, so that the first coordinated start already
  /// allows for this player's start-up latency.
  private func reportLoop() async {
    while !Task.isCancelled && !stopped {
      await clock.sleep(seconds: configuration.reportInterval)
      await report()
    }
  }

  private func report() async {
    guard status == .connected, let estimate, let me, state.participant(me)?.isJoined == true,
      let session = state.session
    else { return }
    reportedSession = session.id
    // Without a player there is nothing to start; with one, its measured start-up latency
    // (a cautious guess until measured) widens the coordinated-start delay.
    let latency = player == nil ? 0 : (coordinator?.startupLatency ?? 0.3)
    _ = await send(
      .report(
        roundTrip: estimate.roundTrip, startupLatency: latency, playerOffset: coordinator?.lastGap))
  }

  private func playerLoop() async {
    while !Task.isCancelled && !stopped {
      stepPlayer()
      await clock.sleep(seconds: configuration.correctionInterval)
    }
  }

  /// Observes the player, corrects drift and turns what it shows into group commands:
  /// ready after a load, stall-recovery suspensions, the end of the item.
  private func stepPlayer() {
    guard let player, let me else { return }
    let now = clock.localNow()
    let seen = player.observe(at: now)
    drivePlayer { coordinator, now, clock in coordinator.correct(seen, at: now, clock: clock) }
    guard let session = state.session, let mine = state.participant(me), mine.isJoined else {
      return
    }
    if seen.item == session.item.id, !seen.isBusy, !seen.isStalled {
      requestReadyIfNeeded(mine)
    }
    if seen.isStalled != stalled {
      stalled = seen.isStalled
      if stalled {
        Task { await self.send(.beginSuspension(.stallRecovery)) }
      } else if mine.suspensions.contains(.stallRecovery) {
        Task { await self.send(.endSuspension(.stallRecovery, proposing: nil)) }
      }
    }
    if seen.item == session.item.id, session.status == .playing,
      seen.position >= session.item.duration - 0.05, advanceSentFor != session.item.id
    {
      advanceSentFor = session.item.id
      let item = session.item.id
      Task { await self.send(.advance(endedItem: item)) }
    }
  }

  private func drivePlayer(
    _ body: (inout PlaybackCoordinator, LocalInstant, ClockOffsetEstimate) -> [PlayerCommand]
  ) {
    guard let player, var coordinator, let clock = estimate else { return }
    let now = self.clock.localNow()
    let commands = body(&coordinator, now, clock)
    self.coordinator = coordinator
    for command in commands {
      player.perform(command, at: now)
    }
  }
}
