import Clocks
import Foundation
import Narration
import ParticipantRuntime
import Participation
import PlaybackCoordination
import Synchronization
import WatchNights
import WireProtocol

/// Headless mode: one action per input line, one JSON object per output line (see the
/// README), so that any program can drive and measure a participant.
public struct HeadlessRunner: Sendable {
  public let client: ParticipantClient
  public let catalog: [SeriesInfo]
  /// Sample what the player shows every this many milliseconds (0 = never).
  public let sampleMilliseconds: Int
  /// See ``ActionPerformer/restartPlayer``.
  public let restartPlayer: PlayerRestart?
  /// See ``ActionPerformer/linkReader``.
  public let linkReader: LinkReader?
  /// See ``ActionPerformer/lending``.
  public let lending: ItemLending?
  private let write: @Sendable (String) -> Void
  /// What this machine remembers of the room's last night, offered at the start (a
  /// `last-time` line) and picked up by `continue`: given to a host.
  public let lastTime: RoomMemory?
  /// Run just before the client says goodbye at the end of the input (see
  /// `FrontRunner`'s).
  private let leave: ParticipantLeave?

  public init(
    client: ParticipantClient, catalog: [SeriesInfo], sampleMilliseconds: Int = 0,
    restartPlayer: PlayerRestart? = nil, linkReader: LinkReader? = nil,
    lending: ItemLending? = nil, leave: ParticipantLeave? = nil, lastTime: RoomMemory? = nil,
    write: @escaping @Sendable (String) -> Void
  ) {
    self.lastTime = lastTime
    self.lending = lending
    self.linkReader = linkReader
    self.leave = leave
    self.client = client
    self.catalog = catalog
    self.sampleMilliseconds = sampleMilliseconds
    self.restartPlayer = restartPlayer
    self.write = write
  }

  /// Runs until the input ends (then leaves) or the client stops (removed, the room
  /// closed, the relay given up on): a script waiting on its output sees it end, rather
  /// than a process that waits for input nothing will act on.
  /// Where the runner's tasks run: the client's clock says (a simulation's executor on
  /// virtual time).
  private nonisolated var place: (any TaskExecutor)? { client.clock.taskExecutor }

  public func run<Lines: AsyncSequence & Sendable>(input: Lines) async
  where Lines.Element == String {
    if let lastTime {
      emit(Self.lastTimeLine(lastTime, reader: client.configuration.name))
    }
    let events = Task(executorPreference: place) { await forwardEvents() }
    let sampler = Task(executorPreference: place) { await sample() }
    let leaving = Mutex<Task<Void, Never>?>(nil)
    let reading = Task(executorPreference: place) {
      await read(input)
      // Cancelled: the client already stopped by itself; nobody to say goodbye to.
      guard !Task.isCancelled else { return }
      // Leaving runs to its end (a host's handover), whatever happens to this task. Made
      // under the lock: it ends the events, and whoever then looks must find it.
      let leave = leaving.withLock { leaving in
        let leave = Task(executorPreference: place) { await self.leave() }
        leaving = leave
        return leave
      }
      await leave.value
    }
    // The events end when the client does, whichever way it stops.
    await events.value
    reading.cancel()
    sampler.cancel()
    if let leave = leaving.withLock({ $0 }) { await leave.value }
  }

  /// The end of input leaves "only me" (a host's room goes on elsewhere if it can).
  private func leave() async {
    if let leave {
      await leave(client, false)
    } else {
      await client.stop()
    }
  }

  /// One input line, or what the person did in the player's own window (mpv's keys):
  /// both are carried out, in the order they came, by the one performer. The next line is
  /// read only once the last is carried out, as before the player's actions came this way:
  /// a program that writes faster than the relay answers is held back by its pipe, not
  /// buffered here without bound.
  private enum Input: Sendable {
    case line(String)
    case player(ParticipantAction)
    case failed(String)
    case ended
  }

  private func read<Lines: AsyncSequence & Sendable>(_ input: Lines) async
  where Lines.Element == String {
    var performer = ActionPerformer(
      client: client, catalog: catalog, restartPlayer: restartPlayer, linkReader: linkReader,
      lending: lending, lastTime: lastTime)
    let (inputs, sink) = AsyncStream<Input>.makeStream(bufferingPolicy: .unbounded)
    let client = self.client
    // The line reader, waiting for its line to be carried out.
    let lineWaiting = Mutex<CheckedContinuation<Void, Never>?>(nil)
    let lineDone = { @Sendable in lineWaiting.withLock { $0.take() }?.resume() }
    let feeders = [
      Task(executorPreference: place) {
        do {
          for try await line in input {
            await withCheckedContinuation { done in
              lineWaiting.withLock { $0 = done }
              if case .terminated = sink.yield(.line(line)) { lineDone() }
            }
          }
        } catch is CancellationError {
        } catch {
          sink.yield(.failed("reading input: \(error)"))
        }
        sink.yield(.ended)
      },
      Task(executorPreference: place) {
        for await action in client.playerActions { sink.yield(.player(action)) }
      },
    ]
    await withTaskCancellationHandler {
      for await next in inputs {
        switch next {
        case .line(let line):
          defer { lineDone() }
          let trimmed = line.trimmingCharacters(in: " \t\r")
          if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
          let action: ParticipantAction
          do throws(ActionParseError) {
            action = try ParticipantAction.parse(trimmed)
          } catch {
            emit(
              .object([
                ("event", "error"), ("message", .string(error.description)),
                ("input", .string(trimmed)),
              ]))
            continue
          }
          report(await performer.perform(action), for: trimmed)
        case .player(let action):
          report(await performer.perform(action), for: "in the player: \(action.words)")
        case .failed(let message):
          emit(.object([("event", "error"), ("message", .string(message))]))
        case .ended:
          sink.finish()
        }
      }
    } onCancel: {
      sink.finish()
    }
    // Ended or cancelled with a line unread here: its reader goes on (and stops).
    lineDone()
    for feeder in feeders { feeder.cancel() }
  }

  /// `{"event":"last-time",…}`: what the room was left at, as `reader` is offered it
  /// (`with`: the others who were there).
  public static func lastTimeLine(_ memory: RoomMemory, reader: String) -> OrderedJSON {
    let when = ISO8601DateFormatter().string(from: memory.when)
    return .object([
      ("event", "last-time"), ("room", .string(memory.room)),
      ("series", .string(memory.watched.series)), ("item", .string(memory.watched.item)),
      ("title", .string(memory.watched.itemTitle)), ("label", .string(memory.label)),
      ("position", .double(memory.position)),
      (
        "queue",
        .array(
          memory.queue.map { queued in
            .object([
              ("item", .string(queued.watched.item)), ("title", .string(queued.watched.itemTitle)),
              ("series", .string(queued.watched.series)), ("added_by", .string(queued.addedBy)),
            ])
          })
      ),
      ("with", .array(memory.others(than: reader).map { .string($0) })),
      ("when", .string(when)), ("nights", .int(Int64(memory.nights.count + 1))),
      ("text", .string(memory.offer(to: reader))),
    ])
  }

  private func report(_ output: ActionOutput, for input: String) {
    switch output {
    case .done:
      break
    case .note(let text):
      emit(.object([("event", "note"), ("text", .string(text)), ("input", .string(input))]))
    case .error(let message), .refused(let message):
      emit(.object([("event", "error"), ("message", .string(message)), ("input", .string(input))]))
    case .prompt(let question):
      emit(
        .object([
          ("event", "prompt"), ("prompt", .string(question.kind)), ("text", .string(question.text)),
          ("options", .array(question.options.map { .string($0) })),
        ]))
    case .catalog(let series):
      emit(.object([("event", "catalog"), ("series", .array(series.map(Self.json)))]))
    case .status(let snapshot):
      emit(Self.status(snapshot))
    }
  }

  private func forwardEvents() async {
    var lastParticipants: [Participant] = []
    var lastEpoch: String?
    var lastRelay: String?
    var stateLines = HeadlessStateLines()
    var me: ParticipantID?
    for await event in client.events {
      switch event {
      case .welcomed(let participant, let resumed, let epoch, let relay, let keepsRooms):
        me = participant
        var fields: [(String, OrderedJSON)] = [
          ("event", "welcome"), ("participant", .string(participant.rawValue)),
          ("room", .string(client.configuration.room)), ("resumed", .bool(resumed)),
        ]
        // Where `keep-room on` works.
        if keepsRooms { fields.append(("keeps_rooms", true)) }
        // Another epoch: the relay process restarted; resumed, it kept the room.
        if let relay { fields.append(("relay", .string(relay))) }
        if let lastEpoch, lastEpoch != epoch {
          fields.append(("relay_restarted", true))
          let moved = relay != lastRelay ? relay : nil
          fields.append(
            ("text", .string(ChangeNarrator.relayRestarted(resumed: resumed, movedTo: moved))))
        }
        lastEpoch = epoch
        lastRelay = relay
        stateLines.welcomed()
        emit(.object(fields))
      case .state(let newState, let changes):
        for change in changes where !change.kind.isQuiet {
          var fields: [(String, OrderedJSON)] = [
            ("event", "change"), ("sequence", .int(Int64(change.sequence))),
            ("kind", .string(Self.kindName(change.kind))),
            ("originator", change.originatorName.map { .string($0) } ?? .null),
          ]
          if let text = ChangeNarrator.notice(for: change, in: newState) {
            fields.append(("text", .string(text)))
          }
          emit(.object(fields))
          // A ready check's countdown: when the group starts, for programs to count down to
          // (group clock, as `startsAt` in the protocol) and the seconds it runs.
          if case .readyCheckEnded(let end, let startsAt?) = change.kind {
            emit(
              .object([
                ("event", "countdown"), ("reason", .string(end.rawValue)),
                ("seconds", .double(startsAt.seconds(since: change.at))),
                ("starts_at", .int(Int64(startsAt.nanoseconds))),
              ]))
          }
          // Removed by the owner: the reason this participant ends, as an error line like
          // the room closing's (the relay's own farewell, which would repeat it, is not
          // passed on).
          if case .removed(let who, _) = change.kind, who == me,
            let text = ChangeNarrator.notice(for: change, in: newState, local: who)
          {
            emit(.object([("event", "error"), ("message", .string(text))]))
          }
        }
        if let line = stateLines.line(for: newState, changes: changes) { emit(line) }
        let people = newState.participants.map { p in
          var q = p
          q.playerOffset = nil
          q.roundTrip = 0
          q.startupLatency = 0
          return q
        }
        if people != lastParticipants {
          lastParticipants = people
          emit(
            .object([
              ("event", "participants"),
              ("participants", .array(newState.participants.map { Self.json($0, in: newState) })),
            ]))
        }
      case .connection(let status):
        emit(.object([("event", "connection"), ("status", .string(status.rawValue))]))
      case .session(let phase):
        emit(Self.phaseLine(phase))
      case .message(_, _, let kind, _, _, _) where ItemLending.messageKinds.contains(kind):
        // Lending's own questions and grants (a grant's secret among them) are not shown.
        break
      case .reaction(let from, let name, let reaction, let earlier):
        var fields: [(String, OrderedJSON)] = [
          ("event", "reaction"), ("from", .string(name)), ("text", .string(reaction.text)),
          ("at", .double(reaction.at)),
          ("line", .string(ChangeNarrator.reaction(from: from == me ? "you" : name, reaction))),
        ]
        // One's own, heard as it goes out (the relay does not echo it).
        if from == me { fields.append(("mine", true)) }
        if earlier { fields.append(("earlier", true)) }
        emit(.object(fields))
      case .message(let from, let name, let kind, let body, let to, let earlier):
        var fields: [(String, OrderedJSON)] = [
          ("event", kind == .chat ? "chat" : "message"), ("from", .string(name)),
          ("kind", .string(kind.rawValue)), ("text", .string(body)),
        ]
        // Names this person: a program watching for it need not match names itself.
        if kind == .chat, from != me, Mention.names(client.configuration.name, in: body) {
          fields.append(("mention", true))
        }
        if earlier { fields.append(("earlier", true)) }
        // Meant for some people only: their names, as `tell` takes them.
        if let to {
          let names = to.map { id in
            lastParticipants.first { $0.id == id }?.name ?? id.rawValue
          }
          fields.append(("to", .array(names.map { .string($0) })))
        }
        emit(.object(fields))
      case .rejected(_, let reason, let awaited):
        // An action's own refusal is reported once, as its answer (with its "input").
        if !awaited {
          emit(.object([("event", "error"), ("message", .string(reason.description))]))
        }
      case .succession(let successors):
        emit(
          .object([
            ("event", "succession"),
            ("successors", .array(successors.filter(\.canCarry).map { .string($0.name) })),
            (
              "unreachable",
              .array(successors.filter { !$0.reachable }.map { .string($0.name) })
            ),
            (
              "passed_over",
              .array(
                successors.filter { $0.reachable && !$0.feedable }.map { .string($0.name) })
            ),
          ]))
      case .notice(.roomMoved(let name)):
        emit(
          .object([
            ("event", "moved"), ("to", name.map { .string($0) } ?? .string("you")),
            ("text", .string(Notice.roomMoved(toMachineOf: name).description)),
          ]))
      case .notice(let notice):
        var fields: [(String, OrderedJSON)] = [
          ("event", "error"), ("message", .string(notice.description)),
        ]
        // The player quit: say how to bring it back.
        if let restartPlayer, restartPlayer.isNeeded() {
          fields.append(("offer", "restart-player"))
        }
        emit(.object(fields))
      }
    }
  }

  private func sample() async {
    guard sampleMilliseconds > 0 else { return }
    while !Task.isCancelled {
      await client.clock.sleep(seconds: Double(sampleMilliseconds) / 1000)
      let snapshot = await client.snapshot()
      // The instant the player was read at, not when the answer came back here: programs
      // compare samples of several players by it.
      let mono = snapshot.localTime.nanoseconds
      var fields: [(String, OrderedJSON)] = [("event", "sample"), ("mono_ns", .int(mono))]
      if let player = snapshot.player {
        fields += [
          ("item", player.item.map { .string($0.rawValue) } ?? .null),
          ("position", .preciseDouble(player.position)), ("rate", .double(player.rate)),
        ]
      } else {
        fields += [
          ("item", snapshot.state.session.map { .string($0.item.id.rawValue) } ?? .null),
          ("position", snapshot.groupPosition.map { .preciseDouble($0) } ?? .null),
          ("rate", .double(snapshot.state.session?.timeline.rate ?? 0)),
        ]
      }
      if let group = snapshot.groupPosition {
        fields.append(("group_position", .preciseDouble(group)))
      }
      emit(.object(fields))
    }
  }

  private func emit(_ value: OrderedJSON) { write(value.serialized) }

  // MARK: - JSON shapes

  /// A `state` line, its `originator` from `change` (by default the room's last change);
  /// without `sequence` and `originator`, what two lines say can be compared.
  static func stateLine(
    _ state: GroupState, change: ChangeEvent? = nil, sequence: Bool = true,
    originator: Bool = true
  ) -> OrderedJSON {
    var fields: [(String, OrderedJSON)] = [("event", "state")]
    if sequence { fields.append(("sequence", .int(Int64(state.sequence)))) }
    if let session = state.session {
      fields += [
        ("item", .string(session.item.id.rawValue)), ("title", .string(session.item.title)),
        ("duration", .double(session.item.duration)),
        ("position", .double(session.timeline.itemTime)),
        ("anchor_group_ns", .int(session.timeline.groupTime.nanoseconds)),
        ("rate", .double(session.timeline.rate)), ("intended_rate", .double(session.intendedRate)),
        ("state", .string(session.status.rawValue)),
        ("waiting_for", .array(state.waitingFor.map { .string($0) })),
      ]
    } else {
      fields += [("item", .null), ("state", "none")]
    }
    if originator, let change = change ?? state.lastChange {
      fields.append(("originator", change.originatorName.map { .string($0) } ?? .null))
    }
    return .object(fields)
  }

  static func json(_ p: Participant, in state: GroupState) -> OrderedJSON {
    .object([
      ("id", .string(p.id.rawValue)), ("name", .string(p.name)), ("joined", .bool(p.isJoined)),
      ("state", .string(ParticipantStatus.describe(p, in: state))),
      ("suspensions", .array(p.suspensions.map { .string($0.rawValue) })),
      ("autoadvance", .bool(p.autoAdvance)), ("connected", .bool(p.isConnected)),
      ("offset_ms", p.playerOffset.map { .double($0 * 1000) } ?? .null),
      ("origin", .string(OriginText.name(p.origin))),
      ("from", p.lender.map { .string(state.participant($0)?.name ?? $0.rawValue) } ?? .null),
      ("ready", .bool(p.readyToWatch)),
    ])
  }

  static func json(_ series: SeriesInfo) -> OrderedJSON {
    .object([
      ("id", .string(series.id)), ("title", .string(series.title)),
      (
        "items",
        .array(
          series.items.map {
            .object([
              ("id", .string($0.id.rawValue)), ("title", .string($0.title)),
              ("duration", .double($0.duration)),
            ])
          })
      ),
    ])
  }

  static func phaseLine(_ phase: SessionPhase) -> OrderedJSON {
    switch phase {
    case .none: .object([("event", "session"), ("phase", "none")])
    case .waiting(let id):
      .object([("event", "session"), ("phase", "waiting"), ("session", .int(Int64(id)))])
    case .joined(let id):
      .object([("event", "session"), ("phase", "joined"), ("session", .int(Int64(id)))])
    case .invalidated(let reason):
      .object([
        ("event", "session"), ("phase", "invalidated"), ("reason", .string(reason.description)),
      ])
    }
  }

  static func status(_ s: ParticipantSnapshot) -> OrderedJSON {
    var fields: [(String, OrderedJSON)] = [
      ("event", "status"), ("participant", s.participant.map { .string($0.rawValue) } ?? .null),
      ("name", .string(s.name)), ("room", .string(s.room)),
      ("connection", .string(s.connection.rawValue)),
    ]
    fields.append(("session", phaseLine(s.phase)))
    fields.append(("group", stateLine(s.state)))
    fields.append(("group_position", s.groupPosition.map { .double($0) } ?? .null))
    fields.append(("queue", .array(s.state.queue.enumerated().map { json($1, place: $0 + 1) })))
    if let player = s.player {
      fields.append(
        (
          "player",
          .object([
            ("item", player.item.map { .string($0.rawValue) } ?? .null),
            ("position", .double(player.position)), ("rate", .double(player.rate)),
            ("busy", .bool(player.isBusy)), ("stalled", .bool(player.isStalled)),
          ])
        ))
    }
    if let clock = s.clock {
      fields.append(
        (
          "clock",
          .object([
            ("offset_ms", .double(clock.offset * 1000)),
            ("rtt_ms", .double(clock.roundTrip * 1000)),
            ("uncertainty_ms", .double(clock.uncertainty * 1000)),
          ])
        ))
    }
    fields.append(("participants", .array(s.state.participants.map { json($0, in: s.state) })))
    return .object(fields)
  }

  /// One queue entry as `status` lists it; `place` counts from 1, as `queue` actions do.
  static func json(_ entry: QueueEntry, place: Int) -> OrderedJSON {
    .object([
      ("place", .int(Int64(place))), ("item", .string(entry.item.rawValue)),
      ("title", .string(entry.info?.title ?? "")), ("series", .string(entry.series.title)),
      ("added_by", .string(entry.addedByName)),
    ])
  }

  static func kindName(_ kind: ChangeKind) -> String {
    switch kind {
    case .entered: "entered"
    case .exited: "exited"
    case .connectionChanged: "connection"
    case .sessionStarted: "session-started"
    case .joined: "joined"
    case .declined: "declined"
    case .left: "left"
    case .sessionEnded: "session-ended"
    case .played: "played"
    case .paused: "paused"
    case .seeked: "seeked"
    case .rateChanged: "rate"
    case .replaced: "replaced"
    case .autoAdvanced: "auto-advanced"
    case .reachedEnd: "reached-end"
    case .suspended: "suspended"
    case .resumed: "resumed"
    case .resumedProposing: "resumed-proposing"
    case .readinessChanged: "readiness"
    case .waitStarted: "wait-started"
    case .waitTimedOut: "wait-timed-out"
    case .waitEnded: "wait-ended"
    case .autoAdvanceChanged: "autoadvance"
    case .reported: "reported"
    case .sealingKeyAnnounced: "sealing-key"
    case .lockChanged: "lock"
    case .playbackControlChanged: "control"
    case .ownerChanged: "owner"
    case .removed: "removed"
    case .queueAdded: "queue-added"
    case .queueRemoved: "queue-removed"
    case .queueMoved: "queue-moved"
    case .queueCleared: "queue-cleared"
    case .queuePlayed: "queue-played"
    case .personalOffsetChanged: "personal-offset"
    case .watchingFrom: "watching-from"
    case .readyCheckStarted: "ready-check"
    case .readyToWatchChanged(let ready): ready ? "ready" : "not-ready"
    case .readyCheckEnded: "ready-check-ended"
    case .startWhenAllReadyChanged: "start-when-ready"
    case .keptChanged: "keep-room"
    }
  }
}
