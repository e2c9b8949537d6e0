import GroupSessions
import Participation
import Transports
import Media
import Narration
import PlaybackCoordination
import Synchronization
import TerminalFront

/// Wires the terminal front to a participant client: one loop owns the model and the
/// controller and takes, in order, what the client reports, the keys, the clock ticks and
/// the outcomes of actions. Group commands are sent by a separate worker, in order, so a
/// slow answer from the relay never freezes the screen or the keys.
struct FrontSession {
  let client: ParticipantClient
  let terminal: TerminalSession
  let media: LoadedMedia
  let player: SimulatedPlayer

  private var model: FrontModel
  private var controller = FrontController()
  private var lastDrawn: (model: FrontModel, size: TerminalSize)?
  /// The item played for this person only ("Only me"), driven here, not by the group.
  private var aloneItem: ItemID?
  /// The reason the client gave up, for the disconnected header.
  private var lastError: String?
  private var quitting = false
  private let fastTicks = TickRate()
  /// The same clock the client reads (CLOCK_MONOTONIC), for driving the player alone.
  private let clock = MonotonicClock()

  init(
    client: ParticipantClient, terminal: TerminalSession, media: LoadedMedia,
    player: SimulatedPlayer, room: String, invite: String?
  ) {
    self.client = client
    self.terminal = terminal
    self.media = media
    self.player = player
    model = FrontModel(roomName: room, catalog: media.series)
    model.invite = invite
  }

  /// What the loop reacts to.
  enum Input: Sendable {
    case client(ClientEvent)
    case clientEnded
    case key(Key)
    case keysEnded
    case tick
    /// An action the relay did not take (refusals arrive as client events instead).
    case failed(String)
    /// The client has stopped after a quit.
    case finished
  }

  /// Runs until the person quits (or the terminal is interrupted and the client stopped).
  mutating func run() async {
    let (inputs, input) = AsyncStream<Input>.makeStream(bufferingPolicy: .unbounded)
    let (actions, actionSink) = AsyncStream<FrontAction>.makeStream(bufferingPolicy: .unbounded)
    let client = self.client
    let keys = terminal.keys
    let fast = fastTicks
    let catalog = media.series
    let tasks = [
      Task {
        for await event in client.events { input.yield(.client(event)) }
        input.yield(.clientEnded)
      },
      Task {
        for await key in keys { input.yield(.key(key)) }
        input.yield(.keysEnded)
      },
      Task {
        while !Task.isCancelled {
          let seconds = fast.isFast ? 0.25 : 1
          try? await Task.sleep(nanoseconds: UInt64(seconds * 1e9))
          input.yield(.tick)
        }
      },
      Task {
        await Self.perform(actions, client: client, catalog: catalog, report: input)
      },
    ]
    defer { for task in tasks { task.cancel() } }

    await refresh()
    if let invite = model.invite { model.post("Others join with: \(invite)") }
    draw()
    for await event in inputs {
      await refresh()
      switch event {
      case .client(let clientEvent):
        receive(clientEvent)
      case .clientEnded:
        if case .disconnected = model.connection {
        } else {
          model.connection = .disconnected(reason: lastError)
        }
      case .key(let key):
        if key == .control("l"), controller.activePrompt == nil { terminal.repaint() }
        for action in handle(key) {
          perform(action, sink: actionSink)
        }
      case .keysEnded:
        // The terminal was restored behind our back (stop or a signal): wind down.
        if !quitting { perform(.quit, sink: actionSink) }
      case .tick:
        model.pruneNotices()
      case .failed(let text):
        model.post(text, kind: .error)
      case .finished:
        return
      }
      fastTicks.isFast = wantsFastTicks
      draw()
    }
  }

  // MARK: - Drawing

  /// Renders when something shown changed (the terminal only rewrites changed rows).
  private mutating func draw() {
    controller.prepare(&model)
    let size = terminal.size
    if let last = lastDrawn, last.model == model, last.size == size { return }
    lastDrawn = (model, size)
    terminal.show(ScreenRenderer.render(model, rows: size.rows, cols: size.cols))
  }

  /// Brings the clock and the player's picture up to date.
  private mutating func refresh() async {
    let snapshot = await client.snapshot()
    if let now = snapshot.groupTime { model.now = now }
    model.player = TerminalFront.PlayerSnapshot(
      player.snapshot(at: snapshot.localTime), catalog: media.series)
  }

  private var wantsFastTicks: Bool {
    if model.showsLocalPlayback { return model.player.activity != .paused }
    switch model.session?.status {
    case .playing, .waiting: return true
    default: return false
    }
  }

  // MARK: - Client events

  private mutating func receive(_ event: ClientEvent) {
    switch event {
    case .welcomed(let participant, _, _):
      model.localParticipant = participant
    case .state(let state, let events):
      model.group = state
      for change in events { model.apply(change) }
    case .connection(let status):
      switch status {
      case .connected: model.connection = .connected
      case .connecting, .reconnecting: model.connection = .reconnecting
      case .disconnected: model.connection = .disconnected(reason: lastError)
      }
    case .session(let phase):
      switch phase {
      case .none: model.membership = .noSession
      case .waiting: model.membership = .waiting
      case .joined:
        model.membership = .joined
        // The group's player takes over from watching alone.
        if aloneItem != nil {
          aloneItem = nil
          model.watchingAlone = false
        }
      case .invalidated(let reason): model.membership = .invalidated(reason: reason.description)
      }
    case .message(_, let name, let kind, let body):
      if kind == "chat" { model.receiveChat(from: name, text: body) }
    case .rejected(_, let rejection):
      model.post(rejection.description, kind: .error)
    case .error(let text):
      lastError = text
      model.post(text, kind: .error)
    }
  }

  // MARK: - Keys

  private mutating func handle(_ key: Key) -> [FrontAction] {
    if aloneItem != nil, model.showsLocalPlayback, controller.activePrompt == nil,
      !controller.showsHelp, let command = KeyBinding.command(for: key),
      let done = handleAlone(command)
    {
      return done
    }
    return controller.handle(key: key, model: model)
  }

  /// Playback keys while watching alone drive the local player; nil leaves the key to the
  /// controller.
  private mutating func handleAlone(_ command: FrontCommand) -> [FrontAction]? {
    let now = clock.localNow()
    let shown = player.snapshot(at: now)
    let duration = shown.duration ?? 0
    func seek(_ delta: Double) -> [FrontAction] {
      player.perform(.seek(to: min(max(0, shown.position + delta), duration)), at: now)
      return [.redraw]
    }
    switch command {
    case .playPause:
      switch shown.state {
      case .playing, .starting, .loading, .seeking, .stalled:
        player.perform(.pause(at: shown.position), at: now)
      case .ended:
        player.perform(.play(itemTime: 0, startAt: now, rate: 1), at: now)
      case .paused, .idle:
        player.perform(.play(itemTime: shown.position, startAt: now, rate: 1), at: now)
      }
      return [.redraw]
    case .back10: return seek(-controller.seekStep)
    case .forward10: return seek(controller.seekStep)
    case .back60: return seek(-controller.bigSeekStep)
    case .forward60: return seek(controller.bigSeekStep)
    case .slower, .faster:
      let current = localRate
      let rate = KeyBinding.rateStep(from: current, up: command == .faster)
      localRate = rate
      player.perform(.setRate(rate), at: now)
      return [.localNotice("speed \(RateFormat.text(rate)) (only you)")]
    case .next, .suspendResume:
      return [.localNotice("you are watching alone — press e to pick another episode")]
    default:
      return nil
    }
  }

  private var localRate: Double = 1

  // MARK: - Actions

  /// Local effects happen here; everything for the group goes to the worker, in order.
  private mutating func perform(_ action: FrontAction, sink: AsyncStream<FrontAction>.Continuation)
  {
    switch action {
    case .redraw:
      break
    case .localNotice(let text):
      model.post(text, kind: .error)
    case .start(let item, together: false):
      watchAlone(item)
    case .seekLocally(let to):
      // Stepped away: the coordinator has let go of the player; move it for this person.
      player.perform(.seek(to: to), at: clock.localNow())
    case .chat(let text):
      // The relay does not echo our own messages back.
      model.receiveChat(from: "you", text: text)
      sink.yield(action)
    case .quit:
      guard !quitting else { return }
      quitting = true
      model.post("leaving…")
      sink.yield(action)
    default:
      if quitting { return }
      sink.yield(action)
    }
  }

  /// "Only me": plays the item on this terminal's player without telling the group.
  private mutating func watchAlone(_ item: ItemID) {
    let now = clock.localNow()
    player.perform(.load(item: item, at: 0), at: now)
    player.perform(.play(itemTime: 0, startAt: now, rate: 1), at: now)
    localRate = 1
    aloneItem = item
    model.watchingAlone = true
    model.post("watching \(EpisodeLabel.code(item)) alone — the room does not follow")
  }

  /// The worker: sends the group's actions one after the other and reports failures.
  private static func perform(
    _ actions: AsyncStream<FrontAction>, client: ParticipantClient, catalog: [SeriesInfo],
    report: AsyncStream<Input>.Continuation
  ) async {
    func check(_ result: Result<Void, ClientError>) {
      switch result {
      case .success: break
      // Refusals already arrive as `.rejected` client events.
      case .failure(.rejected): break
      case .failure(let error): report.yield(.failed(error.description))
      }
    }
    func series(_ item: ItemID) async -> SeriesInfo? {
      if let s = await client.groupState.session?.series, s.item(item) != nil { return s }
      return catalog.first { $0.item(item) != nil }
    }
    for await action in actions {
      switch action {
      case .play: check(await client.play())
      case .pause: check(await client.pause())
      case .seek(let to): check(await client.seek(to: to))
      case .setRate(let rate): check(await client.setRate(rate))
      case .switchTo(let item):
        guard let s = await series(item) else {
          report.yield(.failed("no item \(item) in the catalog"))
          continue
        }
        check(await client.send(.replace(series: s, item: item, confirmed: true)))
      case .start(let item, _):
        guard let s = await series(item) else {
          report.yield(.failed("no item \(item) in the catalog"))
          continue
        }
        check(await client.send(.start(series: s, item: item)))
      case .suspend(let reason): check(await client.send(.beginSuspension(reason)))
      case .resume: check(await client.send(.endSuspension(nil, proposing: nil)))
      case .resumeProposing(let time):
        check(await client.send(.endSuspension(nil, proposing: time)))
      case .seekLocally:
        break
      case .setAutoAdvance(let on): check(await client.send(.setAutoAdvance(on)))
      case .chat(let text): await client.sendMessage(kind: "chat", body: text)
      case .joinSession: check(await client.send(.join))
      case .declineSession: break
      case .leave, .endForEveryone:
        // On the way out, do not wait for a relay that is not there.
        guard await client.connectionStatus == .connected else { continue }
        check(await client.send(action == .leave ? .leave : .end))
      case .quit:
        await client.stop()
        report.yield(.finished)
        return
      case .redraw, .localNotice: break
      }
    }
  }
}

/// Whether the clock ticks four times a second (something moves) or once.
final class TickRate: Sendable {
  private let fast = Atomic<Bool>(false)
  var isFast: Bool {
    get { fast.load(ordering: .relaxed) }
    set { fast.store(newValue, ordering: .relaxed) }
  }
}
