import Clocks
import Media
import ParticipantRuntime
import Participation
import PlaybackCoordination
import Synchronization
import TerminalFront
import WatchNights

/// Performs what a ``FrontSession`` asks for, and nothing else: it feeds the reducer the
/// client's events, the keys, the clock ticks and the outcomes of requests, one at a time
/// with a fresh ``FrontMoment``; makes the client requests in order on one worker; drives
/// the local player; draws. All decisions live in the reducer.
public struct FrontRunner: Sendable {
  public let client: ParticipantClient
  public let terminal: TerminalSession
  public let player: any ShowablePlayer
  /// How to start the player again when it quits (mpv), if it can be.
  public let restartPlayer: PlayerRestart?
  /// Reads links with the player (mpv); nil: it cannot play them.
  public let linkReader: LinkReader?
  /// Decides which links others start this person's player opens (mpv); nil: none.
  public let links: LinkGate?
  /// Lends this person's copies and borrows others' (mpv); nil: the player plays no files.
  public let lending: ItemLending?
  private let leave: ParticipantLeave?
  /// See ``ActionPerformer/lastTime``.
  private let lastTime: RoomMemory?
  private let session: FrontSession
  /// News about the invite (a host's router), shown as it comes.
  private let inviteChanges: AsyncStream<InviteChange>?
  /// The same clock the client reads (CLOCK_MONOTONIC), for the local player.
  private let clock = MonotonicClock()

  /// `leave`: how the client leaves when the person quits (a host's passes the room on, or
  /// closes it); nil: it says goodbye and stops.
  public init(
    client: ParticipantClient, terminal: TerminalSession, player: any ShowablePlayer,
    session: FrontSession, restartPlayer: PlayerRestart? = nil, linkReader: LinkReader? = nil,
    links: LinkGate? = nil, lending: ItemLending? = nil, leave: ParticipantLeave? = nil,
    inviteChanges: AsyncStream<InviteChange>? = nil, lastTime: RoomMemory? = nil
  ) {
    self.lastTime = lastTime
    self.lending = lending
    self.links = links
    self.linkReader = linkReader
    self.inviteChanges = inviteChanges
    self.leave = leave
    self.restartPlayer = restartPlayer
    self.client = client
    self.terminal = terminal
    self.player = player
    self.session = session
  }

  /// Runs until the person quits (or the terminal is interrupted) and the client has
  /// stopped; restores the terminal before returning.
  public func run() async {
    var session = self.session
    let (inputs, input) = AsyncStream<FrontSession.Input>.makeStream(bufferingPolicy: .unbounded)
    let (requests, requestSink) = AsyncStream<Work>.makeStream(bufferingPolicy: .unbounded)
    let client = self.client
    let keys = terminal.keys
    let tickMilliseconds = Atomic<Int>(1000)
    let inviteChanges = self.inviteChanges
    let links = self.links
    let tasks = [
      Task {
        guard let links else { return }
        for await news in links.news { input.yield(.links(news)) }
      },
      Task {
        guard let inviteChanges else { return }
        for await change in inviteChanges { input.yield(.inviteChanged(change)) }
      },
      Task {
        for await event in client.events { input.yield(.client(event)) }
        input.yield(.clientEnded)
      },
      Task {
        for await key in keys { input.yield(.key(key)) }
        input.yield(.keysEnded)
      },
      // Keys pressed in the player's own window: the same worker, the same performer.
      Task { for await action in client.playerActions { requestSink.yield(.act(action)) } },
      Task { [clock] in
        while !Task.isCancelled {
          let milliseconds = tickMilliseconds.load(ordering: .relaxed)
          await clock.sleep(seconds: Double(milliseconds) / 1000)
          input.yield(.tick)
        }
      },
    ]
    // Apart from the others: it is waited for, not cancelled, so that leaving (a host's
    // handover) runs to its end before the process goes on to close the relay.
    let performer = ActionPerformer(
      client: client, catalog: session.model.catalog, restartPlayer: restartPlayer,
      linkReader: linkReader, lending: lending, lastTime: lastTime)
    let worker = Task {
      await Self.work(requests, performer: performer, report: input, leave: leave)
    }
    defer {
      for task in tasks { task.cancel() }
      requestSink.finish()
      terminal.stop()
    }
    var effects = session.handle(.started, at: await moment())
    var iterator = inputs.makeAsyncIterator()
    while true {
      tickMilliseconds.store(Int(session.tickInterval * 1000), ordering: .relaxed)
      for effect in effects {
        switch effect {
        case .act(let action): requestSink.yield(.act(action))
        case .stopClient: requestSink.yield(.stop)
        case .player(let command): player.perform(command, at: clock.localNow())
        case .draw:
          let size = terminal.size
          terminal.show(ScreenRenderer.render(session.model, rows: size.rows, cols: size.cols))
        case .repaint: terminal.repaint()
        case .copyToClipboard(let text): terminal.copyToClipboard(text)
        case .bell: terminal.bell()
        case .restartPlayer:
          if let restartPlayer {
            Task { input.yield(.playerRestarted(await restartPlayer.run())) }
          } else {
            input.yield(.playerRestarted("this player cannot be restarted"))
          }
        case .readLink(let link, let use):
          if let linkReader {
            Task { input.yield(.linkRead(use, await linkReader.read(link))) }
          } else {
            input.yield(.linkRead(use, .failure(.noLinkPlayer(for: link))))
          }
        case .answerLink(let link, let answer): links?.answer(answer, for: link)
        case .considerLinks(let queued): links?.consider(queued)
        case .finish:
          requestSink.finish()
          await worker.value
          return
        }
      }
      guard let next = await iterator.next() else {
        requestSink.finish()
        await worker.value
        return
      }
      effects = session.handle(next, at: await moment())
    }
  }

  /// The clocks and the player now.
  private func moment() async -> FrontMoment {
    let snapshot = await client.snapshot()
    return FrontMoment(
      groupTime: snapshot.groupTime, localTime: snapshot.localTime,
      player: player.snapshot(at: snapshot.localTime), messagesSealed: snapshot.messagesSealed,
      allowedRates: snapshot.allowedRates, waitingReasons: snapshot.waitingReasons,
      playerGone: restartPlayer?.isNeeded() ?? false, screen: terminal.size)
  }

  /// The worker: makes the requests one after the other and reports failures.
  /// What the worker does, in order.
  private enum Work: Sendable {
    case act(ParticipantAction)
    case stop
  }

  /// Carries the actions out one after the other with the runtime's performer (the one
  /// headless mode and the demo use); what fails is told to the reducer, refusals excepted
  /// (they arrive as client events). Stopping leaves as the runner was told to.
  private static func work(
    _ requests: AsyncStream<Work>, performer: ActionPerformer,
    report: AsyncStream<FrontSession.Input>.Continuation, leave: ParticipantLeave?
  ) async {
    var performer = performer
    let client = performer.client
    var endedForEveryone = false
    for await work in requests {
      switch work {
      case .act(let action):
        if action == .end { endedForEveryone = true }
        // On the way out, do not wait for a relay that is not there.
        if action == .leave || action == .end,
          await client.connectionStatus != .connected
        {
          continue
        }
        switch await performer.perform(action) {
        case .error(let text): report.yield(.failed(text))
        case .note(let text): report.yield(.told(text))
        case .prompt(let question): report.yield(.asked(question))
        case .done, .refused, .catalog, .status: break
        }
      case .stop:
        if let leave {
          await leave(client, endedForEveryone)
        } else {
          await client.stop()
        }
        report.yield(.stopped)
        return
      }
    }
  }
}
