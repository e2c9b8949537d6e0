import Clocks
import HeadlessFront
import Logging
import Media
import Narration
import ParticipantRuntime
import Participation
import PlaybackCoordination
import RelayRuntime
import Rooms
import Synchronization
import TCPRelayClient
import TCPRelayServer
import Transports

/// Which time a run lives in.
public enum DemoTime: Sendable {
  /// The machine's time (sped up by the run's speed), over an embedded TCP relay: what
  /// `cowatch demo` shows people, with real sockets and real scheduling.
  case real
  /// Virtual time over an in-memory relay: the runner moves a ``ManualClock`` itself,
  /// from one deadline to the next, once everything due has run (``VirtualTime``). What
  /// happens at which script time does not depend on how busy the machine is: the tests'
  /// way to run scripts.
  case virtual
}

/// How a run behaves beyond what the script says.
public struct DemoRunOptions: Sendable {
  public var time: DemoTime
  /// How long after its time an `expect` line may still come true when the line does not
  /// say (`within`), script seconds.
  public var defaultGrace: Double
  /// The least real time an expectation is given, whatever the speed, so that a sped-up run
  /// on a busy machine does not fail on scheduling jitter, seconds.
  public var minimumRealGrace: Double
  /// The least real time allowed for heartbeats, command answers and reconnection grace,
  /// seconds: sped-up clocks shrink them, a busy machine must not trip them.
  public var minimumRealTimeout: Double
  public var logLevel: Logger.Level
  /// Makes each participant's player (by its name and the script's settings for it); nil:
  /// the simulated player. Real players play in real time, so runs with them go at speed 1.
  public var makePlayer:
    (
      @Sendable (_ name: String, _ settings: SimulatedPlayerConfiguration, _ clock: MonotonicClock)
        async throws -> any DemoPlayer
    )?

  public init(
    time: DemoTime = .real,
    defaultGrace: Double = 1.5, minimumRealGrace: Double = 0.5, minimumRealTimeout: Double = 3,
    logLevel: Logger.Level = .error,
    makePlayer: (
      @Sendable (_ name: String, _ settings: SimulatedPlayerConfiguration, _ clock: MonotonicClock)
        async throws -> any DemoPlayer
    )? = nil
  ) {
    self.time = time
    self.defaultGrace = defaultGrace
    self.minimumRealGrace = minimumRealGrace
    self.minimumRealTimeout = minimumRealTimeout
    self.logLevel = logLevel
    self.makePlayer = makePlayer
  }
}

/// Runs a ``DemoScript``: an embedded TCP relay on 127.0.0.1 and one real participant
/// client (with a simulated player) per declared participant, all on one sped-up clock
/// (or, with ``DemoTime/virtual``, an in-memory relay and the same clients on virtual time).
/// Steps happen at their script times; `expect` lines are checked as they come, and the
/// first that fails ends the run.
///
/// A front follows the run through ``transcript`` (every line, as it happens) and
/// ``view(of:)`` (one participant's client and player state at any moment).
public actor DemoRunner {
  public nonisolated let script: DemoScript
  public nonisolated let speed: Double
  public nonisolated let options: DemoRunOptions
  /// The run's transcript, entry by entry; finishes when the run ends.
  public nonisolated let transcript: AsyncStream<TranscriptEntry>
  private let sink: AsyncStream<TranscriptEntry>.Continuation
  private let catalog: Catalog
  private let series: [SeriesInfo]
  private let clock: any SessionClock
  /// The real clock a real-time run reads (and hands to real players).
  private let realClock: MonotonicClock
  /// The virtual time a ``DemoTime/virtual`` run moves itself.
  private let virtual: VirtualTime?
  /// Client events heard and recorded: a virtual run settles only once every event a
  /// client emitted has been recorded (notices are part of what `expect` reads).
  private let eventCount = EventCount()
  private let startNanoseconds: Int64
  private let realStart: Int64

  private struct Member {
    var declaration: ParticipantDeclaration
    var client: ParticipantClient
    var player: any DemoPlayer
    var performer: ActionPerformer
    var prompt: ActionQuestion?
    var notices: [String] = []
    var chats: [String] = []
    var errors: [String] = []
  }

  private var server: RelayServer?
  /// The relay of a virtual run, made with the runner (it starts ticking with the run).
  private let memoryRelay: InMemoryRelay?
  private var members: [String: Member] = [:]
  private var arrivalOrder: [String] = []
  private var listeners: [Task<Void, Never>] = []
  /// Sequence numbers of changes already narrated (each is shown once).
  private var narrated: Set<UInt64> = []
  private var finishing = false
  private var passed = 0
  private var actionErrors = 0
  private var started = false

  /// - Parameters:
  ///   - speed: overrides the script's `speed` (default 1).
  ///   - catalog: what players play and `start`/`switch` pick from.
  public init(
    script: DemoScript, catalog: Catalog, speed: Double? = nil, options: DemoRunOptions = .init()
  ) {
    self.script = script
    self.catalog = catalog
    self.series = catalog.seriesInfos()
    self.speed = speed ?? script.speed ?? 1
    self.options = options
    let realClock = MonotonicClock(speed: self.speed)
    self.realClock = realClock
    switch options.time {
    case .real:
      clock = realClock
      virtual = nil
      memoryRelay = nil
    case .virtual:
      let manual = ManualClock(simulation: SimulationExecutor())
      clock = manual
      var logger = Logger(label: "cowatch.demo.relay")
      logger.logLevel = options.logLevel
      let relay = InMemoryRelay(
        configuration: RelayConfiguration(engine: script.relay.applied()), clock: manual,
        logger: logger)
      memoryRelay = relay
      let events = eventCount
      virtual = VirtualTime(
        clock: manual, settledWhen: { events.balanced && relay.isSettled })
    }
    self.startNanoseconds = clock.nanoseconds()
    self.realStart = MonotonicClock.monotonicNanoseconds()
    (transcript, sink) = AsyncStream.makeStream(bufferingPolicy: .unbounded)
  }

  /// The names of the declared participants, in declaration order.
  public nonisolated var participantNames: [String] { script.participants.map(\.name) }

  /// Script seconds since the run started.
  public nonisolated func scriptTime() -> Double {
    Double(clock.nanoseconds() - startNanoseconds) / 1e9
  }

  /// What one participant knows and shows now; nil for a name the script does not declare.
  public func view(of name: String) async -> DemoParticipantView? {
    guard script.participant(name) != nil else { return nil }
    guard let member = members[name] else {
      return DemoParticipantView(
        name: name, arrived: false, session: nil, player: nil, prompt: nil, notices: [], chats: [],
        errors: [])
    }
    let snapshot = await member.client.snapshot()
    let latest = members[name] ?? member
    return DemoParticipantView(
      name: name, arrived: true, session: snapshot,
      player: latest.player.snapshot(at: clock.localNow()), prompt: latest.prompt,
      notices: latest.notices, chats: latest.chats, errors: latest.errors)
  }

  // MARK: - Running

  /// Runs the script to its end or to the first failed expectation. Call once. Cancelling
  /// the calling task stops the script early ("stopped"), and still stops the
  /// participants and the relay before returning.
  public func run(beforeShutdown: (@Sendable () async -> Void)? = nil) async -> DemoResult {
    guard !started else {
      return DemoResult(
        passed: 0, expectations: script.expectationCount, problem: "the run was already started")
    }
    started = true
    var failure: ExpectationFailure?
    var problem: String?
    var configuration = RelayConfiguration(engine: script.relay.applied())
    let floor = options.minimumRealTimeout * speed
    configuration.heartbeatTimeout = max(configuration.heartbeatTimeout, floor)
    configuration.reconnectGrace = max(configuration.reconnectGrace, floor)
    configuration.helloTimeout = max(configuration.helloTimeout, floor)
    configuration.proofTimeout = max(configuration.proofTimeout, floor)
    var relayLogger = Logger(label: "cowatch.demo.relay")
    relayLogger.logLevel = options.logLevel
    if let memoryRelay {
      if options.makePlayer != nil {
        problem = "real players play in real time: a virtual-time run has only simulated ones"
      } else {
        memoryRelay.start()
        emit(
          .info,
          "relay in memory, on virtual time; \(script.participants.count) participants")
      }
    } else {
      do {
        server = try await RelayServer.start(
          host: "127.0.0.1", port: 0, configuration: configuration, clock: realClock,
          logger: relayLogger)
        emit(
          .info,
          "relay listening on 127.0.0.1:\(server!.port); \(script.participants.count) participants; speed \(ScriptTime.seconds(speed))×"
        )
      } catch {
        problem = error.description
      }
    }

    if problem == nil {
      steps: for step in script.steps {
        await sleep(until: step.time)
        if Task.isCancelled {
          problem = "stopped"
          break steps
        }
        switch step.kind {
        case .arrive(let name):
          if let why = await arrive(name) {
            problem = why
            break steps
          }
        case .act(let name, let action):
          await act(name, action)
        case .stall(let name, let duration):
          stall(name, duration)
        case .expect(let expectation):
          if let failed = await check(expectation, line: step.line, scheduled: step.time) {
            failure = failed
            break steps
          }
        }
      }
    }

    let result = DemoResult(
      passed: passed, expectations: script.expectationCount, failure: failure, problem: problem,
      actionErrors: actionErrors, scriptSeconds: scriptTime(),
      realSeconds: Double(MonotonicClock.monotonicNanoseconds() - realStart) / 1e9)
    emit(result.succeeded ? .info : .failed(line: failure?.line ?? 0), result.summary)
    if let beforeShutdown { await beforeShutdown() }
    await shutdown()
    return result
  }

  private func sleep(until time: Double) async {
    if let virtual {
      await virtual.advance(toNanoseconds: startNanoseconds + Int64(time * 1e9))
      return
    }
    let remaining = time - scriptTime()
    if remaining > 0 { await clock.sleep(seconds: remaining) }
  }

  /// Waits for `operation`; on virtual time, time moves on meanwhile whenever everything
  /// else has settled (an answer that takes time, a timeout).
  private func during<T: Sendable>(_ operation: @escaping @Sendable () async -> T) async -> T {
    if let virtual { return await virtual.run(operation) }
    return await operation()
  }

  private func shutdown() async {
    finishing = true
    for name in arrivalOrder {
      if let member = members[name] {
        await member.client.stop()
        await member.player.stop()
      }
    }
    for listener in listeners { await listener.value }
    listeners = []
    await server?.stop()
    server = nil
    await memoryRelay?.stop()
    sink.finish()
  }

  // MARK: - Steps

  /// Connects a participant; returns why it could not.
  private func arrive(_ name: String) async -> String? {
    guard let declaration = script.participant(name) else { return "no relay" }
    let transport: any Transport
    if let memoryRelay {
      transport = memoryRelay.transport
    } else if let server {
      transport = TCPTransport(host: "127.0.0.1", port: server.port)
    } else {
      return "no relay"
    }
    let player: any DemoPlayer
    if let makePlayer = options.makePlayer {
      do {
        player = try await makePlayer(name, declaration.player, realClock)
      } catch {
        return "\(name)'s player could not start: \(error)"
      }
    } else {
      player = SimulatedPlayer(catalog: catalog, configuration: declaration.player)
    }
    let timeout = virtual == nil ? max(5, options.minimumRealTimeout * speed) : 5
    var configuration = ParticipantConfiguration(
      name: name, answerTimeout: timeout, reconnectGiveUpAfter: max(60, timeout * 4),
      autoAdvance: declaration.autoAdvance)
    configuration.reconnectInitialDelay = 0.1
    var logger = Logger(label: "cowatch.demo.\(name)")
    logger.logLevel = options.logLevel
    let events = eventCount
    let client = ParticipantClient(
      transport: transport, configuration: configuration, player: player, clock: clock,
      logger: logger, observer: { _ in events.emitted() })
    members[name] = Member(
      declaration: declaration, client: client, player: player,
      performer: ActionPerformer(client: client, catalog: series))
    arrivalOrder.append(name)
    listeners.append(
      Task(executorPreference: clock.taskExecutor) { await self.listen(to: client, as: name) })
    // Keys pressed in a real player's window (`--player mpv`) are acts of that member too.
    listeners.append(
      Task(executorPreference: clock.taskExecutor) {
        for await action in client.playerActions { await self.act(name, action) }
      })
    var options: [String] = []
    if declaration.autoAdvance { options.append("auto-advance on") }
    if declaration.player.driftPPM != 0 {
      options.append(
        "player drifts \(declaration.player.driftPPM > 0 ? "+" : "")\(ScriptTime.seconds(declaration.player.driftPPM)) ppm"
      )
    }
    if declaration.player.stallsPerSecond > 0 { options.append("stalls now and then") }
    emit(.info, "\(name) arrives\(options.isEmpty ? "" : " (\(options.joined(separator: ", ")))")")
    let started: Result<Void, ClientError> = await during {
      do throws(ClientError) {
        try await client.start()
        return .success(())
      } catch {
        return .failure(error)
      }
    }
    if case .failure(let error) = started { return "\(name) could not connect: \(error)" }
    return nil
  }

  private func act(_ name: String, _ action: ParticipantAction) async {
    guard var member = members[name] else { return }
    emit(.action(participant: name), "\(name): \(action.words)")
    let (performer, output) = await during { [performer = member.performer] in
      var performer = performer
      let output = await performer.perform(action)
      return (performer, output)
    }
    member = members[name] ?? member
    member.performer = performer
    if !performer.hasPendingPrompt { member.prompt = nil }
    switch output {
    case .done:
      break
    case .note(let text):
      emit(.info, "\(name) is told: \(text)")
    case .prompt(let question):
      member.prompt = question
      emit(
        .prompt(participant: name),
        "\(name) is asked: \(question.text) [\(question.options.joined(separator: "/"))]")
    case .error(let message), .refused(let message):
      member.errors.append(message)
      actionErrors += 1
      emit(.error(participant: name), "\(name) is told: \(message)")
    case .catalog(let series):
      let list = series.map { "\($0.title) (\($0.items.count))" }.joined(separator: ", ")
      emit(.info, "\(name) sees the catalog: \(list)")
    case .status(let snapshot):
      emit(.info, "\(name)'s status: \(Self.status(snapshot))")
    }
    members[name] = member
  }

  private func stall(_ name: String, _ duration: Double) {
    guard let member = members[name] else { return }
    emit(
      .action(participant: name), "\(name)'s player stalls for \(ScriptTime.seconds(duration)) s")
    member.player.injectStall(duration: duration, at: clock.localNow())
  }

  /// Checks an expectation until it holds or its grace runs out; returns the failure.
  private func check(_ expectation: Expectation, line: Int, scheduled: Double) async
    -> ExpectationFailure?
  {
    let grace =
      virtual == nil
      ? max(expectation.grace ?? options.defaultGrace, options.minimumRealGrace * speed)
      : expectation.grace ?? options.defaultGrace
    let deadline = scriptTime() + grace
    // How late the check starts (a loaded machine): a playing group's expected position
    // moves on by that much, not by the grace the check then waits.
    let late = max(0, scriptTime() - scheduled)
    var problems: [String] = []
    while true {
      let views = await observations(for: expectation.who)
      problems = ExpectationEvaluator.mismatches(expectation, in: views, lateness: late)
      if problems.isEmpty {
        passed += 1
        emit(.passed(line: line), "✓ expect \(expectation.summary)")
        return nil
      }
      if scriptTime() >= deadline || Task.isCancelled { break }
      if let virtual {
        await virtual.step(notPast: startNanoseconds + Int64(deadline * 1e9))
      } else {
        await clock.sleep(seconds: 0.01)
      }
    }
    let failure = ExpectationFailure(line: line, expected: expectation.summary, seen: problems)
    emit(
      .failed(line: line),
      "✗ expect \(expectation.summary) (line \(line)): \(problems.joined(separator: "; "))")
    return failure
  }

  private func observations(for who: Expectation.Who) async -> [ParticipantObservation] {
    let names: [String]
    switch who {
    case .all: names = arrivalOrder
    case .some(let list): names = list
    }
    var views: [ParticipantObservation] = []
    for name in names {
      guard let member = members[name] else { continue }
      let snapshot = await member.client.snapshot()
      let latest = members[name] ?? member
      views.append(
        ParticipantObservation(
          name: name, group: snapshot.state, me: snapshot.participant,
          playerItem: snapshot.player?.item,
          playerPosition: snapshot.player?.position, prompt: latest.prompt?.kind,
          notices: latest.notices,
          chats: latest.chats, errors: latest.errors))
    }
    return views
  }

  // MARK: - Events

  private func listen(to client: ParticipantClient, as name: String) async {
    for await event in client.events {
      record(event, from: name)
      eventCount.recorded()
    }
  }

  private func record(_ event: ClientEvent, from name: String) {
    guard var member = members[name] else { return }
    defer { members[name] = member }
    switch event {
    case .state(let state, let changes):
      for change in changes {
        guard let sentence = ChangeNarrator.notice(for: change, in: state) else { continue }
        member.notices.append(sentence)
        if narrated.insert(change.sequence).inserted, !finishing {
          emit(.notice(observer: name), "\(name) sees: \(sentence)")
        }
      }
    case .reaction(_, let from, let reaction, _):
      let line = ChangeNarrator.reaction(from: from, reaction)
      member.chats.append(line)
      if !finishing { emit(.chat(participant: name), "\(name) sees: \(line)") }
    case .message(_, let from, let kind, let body, _, _):
      member.chats.append("\(from): \(body)")
      if !finishing {
        let what = kind == .chat ? "a message" : "a \(kind) message"
        emit(.chat(participant: name), "\(name) gets \(what) from \(from): \(body)")
      }
    case .notice(let notice):
      member.errors.append(notice.description)
      if !finishing { emit(.error(participant: name), "\(name) is told: \(notice)") }
    case .rejected(_, let reason, _):
      // The runner's own actions report their refusals; the client's automatic commands
      // (a second advance request for the same ending, say) are refused by design.
      member.errors.append(reason.description)
    case .connection(let status):
      if !finishing, status == .reconnecting {
        emit(.error(participant: name), "\(name) lost the connection to the relay; reconnecting")
      }
    case .welcomed, .session, .succession:
      break
    }
  }

  private func emit(_ kind: TranscriptEntry.Kind, _ text: String) {
    sink.yield(TranscriptEntry(time: scriptTime(), kind: kind, text: text))
  }

  // MARK: - Words

  static func status(_ s: ParticipantSnapshot) -> String {
    guard let session = s.state.session else { return "no watch session" }
    let position = s.groupPosition.map { " at \(ScriptTime.format($0))" } ?? ""
    let waiting =
      s.state.waitingFor.isEmpty
      ? "" : ", waiting for \(s.state.waitingFor.joined(separator: ", "))"
    return "\(session.status.rawValue) \(session.item.id)\(position)\(waiting)"
  }
}

/// Events clients emitted and the runner recorded, read by the settling check of a
/// virtual run from outside the runner's actor.
private final class EventCount: Sendable {
  private let counts = Mutex<(emitted: Int, recorded: Int)>((0, 0))
  func emitted() { counts.withLock { $0.emitted += 1 } }
  func recorded() { counts.withLock { $0.recorded += 1 } }
  var balanced: Bool { counts.withLock { $0.emitted == $0.recorded } }
}
