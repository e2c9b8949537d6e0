import Narration
import Participation
import PlaybackCoordination
import WatchNights
import WireProtocol

/// Carries out ``ParticipantAction``s for one participant, including the confirmation a
/// manual episode switch needs before it reaches the group.
public struct ActionPerformer: Sendable {
  public let client: ParticipantClient
  public let catalog: [SeriesInfo]
  /// Starts the player again (mpv): nil when it is running again, or why not. Absent for
  /// players that cannot quit (the simulated one).
  public let restartPlayer: PlayerRestart?
  /// Reads a link's title and duration with this participant's player (mpv); absent when
  /// the player cannot play links.
  public let linkReader: LinkReader?
  /// This person's lending and borrowing (mpv); absent when the player plays no files.
  public let lending: ItemLending?
  /// The switch waiting for `confirm`.
  public private(set) var pendingSwitch: (series: SeriesInfo, item: ItemID)?
  /// The queue entry `queue play N` asked to switch everyone to, until confirmed.
  public private(set) var pendingQueued: UInt64?
  /// What this machine remembers of the room's last night, while it can be continued
  /// (`continue`; gone once continued).
  public var lastTime: RoomMemory?
  /// Whether a switch waits for `confirm` or `cancel`.
  public var hasPendingPrompt: Bool { pendingSwitch != nil || pendingQueued != nil }

  public init(
    client: ParticipantClient, catalog: [SeriesInfo],
    restartPlayer: PlayerRestart? = nil, linkReader: LinkReader? = nil,
    lending: ItemLending? = nil, lastTime: RoomMemory? = nil
  ) {
    self.lastTime = lastTime
    self.lending = lending
    self.client = client
    self.catalog = catalog
    self.restartPlayer = restartPlayer
    self.linkReader = linkReader
  }

  public func series(containing item: ItemID) -> SeriesInfo? {
    catalog.first { $0.item(item) != nil }
  }

  /// The series `item` is watched as: its catalog's, the one the room watches or queued
  /// (another member's library), or for a link, a series of one whose title and duration
  /// this participant's player read (the link opened once, here, before anyone else is
  /// asked to; a link read already is not read again).
  func series(for item: ItemID) async -> Result<SeriesInfo, LinkReadError> {
    if let series = series(containing: item) { return .success(series) }
    let state = await client.groupState
    let inRoom = ([state.session?.series].compactMap { $0 } + state.queue.map(\.series))
    if let series = inRoom.first(where: { $0.item(item) != nil }) { return .success(series) }
    guard LinkItem.isLink(item) else {
      return .failure(LinkReadError("no item \(item) in the catalog"))
    }
    guard let linkReader else { return .failure(.noLinkPlayer(for: item.rawValue)) }
    return await linkReader.read(item.rawValue).map(LinkItem.series(for:))
  }

  public mutating func perform(_ action: ParticipantAction) async -> ActionOutput {
    switch action {
    case .start(let item):
      switch await series(for: item) {
      case .success(let series):
        return Self.outcome(await client.send(.start(series: series, item: item)))
      case .failure(let problem): return .error(problem.description)
      }
    case .join: return Self.outcome(await client.send(.join))
    case .decline: return Self.outcome(await client.send(.decline))
    case .playback(let intent): return Self.outcome(await client.perform(intent))
    case .next:
      guard let session = await client.groupState.session else {
        return .error(ClientError.notInSession.description)
      }
      guard let next = session.series.item(after: session.item.id) else {
        return .error("\(session.item.title) is the last episode of \(session.series.title)")
      }
      return askToSwitch(session.series, next)
    case .previous:
      guard let session = await client.groupState.session else {
        return .error(ClientError.notInSession.description)
      }
      let items = session.series.items
      guard let index = items.firstIndex(where: { $0.id == session.item.id }), index > 0 else {
        return .error("\(session.item.title) is the first episode of \(session.series.title)")
      }
      return askToSwitch(session.series, items[index - 1])
    case .switchTo(let item, let confirmed):
      guard await client.groupState.session != nil else {
        return .error(ClientError.notInSession.description)
      }
      switch await series(for: item) {
      case .success(let series):
        guard let info = series.item(item) else { return .error("no item \(item) in the catalog") }
        if confirmed {
          return Self.outcome(
            await client.send(.replace(series: series, item: item, confirmed: true)))
        }
        return askToSwitch(series, info)
      case .failure(let problem): return .error(problem.description)
      }
    case .confirm:
      if let entry = pendingQueued {
        pendingQueued = nil
        return Self.outcome(await client.send(.playQueued(entry: entry)))
      }
      guard let pending = pendingSwitch else { return .error("nothing to confirm") }
      pendingSwitch = nil
      return Self.outcome(
        await client.send(.replace(series: pending.series, item: pending.item, confirmed: true)))
    case .cancel:
      guard hasPendingPrompt else { return .error("nothing to cancel") }
      pendingSwitch = nil
      pendingQueued = nil
      return .done
    case .queue(let action): return await queue(action)
    case .offset(let ms): return Self.outcome(await client.setPersonalOffset(ms / 1000))
    case .changeOffset(let delta):
      let limit = Participant.maximumPersonalOffset
      let offset = min(max(await client.personalOffset + delta, -limit), limit)
      // Rounded to the millisecond: steps of 50 ms stay whole numbers.
      return Self.outcome(await client.setPersonalOffset((offset * 1000).rounded() / 1000))
    case .suspend(let reason): return Self.outcome(await client.send(.beginSuspension(reason)))
    case .resume: return Self.outcome(await client.send(.endSuspension(nil, proposing: nil)))
    case .resumeAt(let t): return Self.outcome(await client.send(.endSuspension(nil, proposing: t)))
    case .autoAdvance(let on): return Self.outcome(await client.send(.setAutoAdvance(on)))
    case .say(let text):
      await client.sendMessage(kind: .chat, body: text)
      return .done
    case .react(let text):
      // Refused here in words, before it goes: the relay refuses it too.
      let text = text.split(separator: " ").joined(separator: " ")
      if let refusal = Reaction.refusal(text) { return .error(refusal) }
      await client.submit(.react(text))
      return .done
    case .tell(.to(let people, let text)):
      await client.sendMessage(kind: .chat, body: text, to: .only(people))
      return .done
    case .tell(.line(let arguments)):
      let me = await client.participantID
      let others = await client.groupState.participants.filter { $0.id != me }
      switch TellLine.parse(arguments: Substring(arguments), names: others.map(\.name)) {
      case .tell(let names, let text):
        let ids = names.compactMap { name in others.first { $0.name == name }?.id }
        await client.sendMessage(kind: .chat, body: text, to: .only(ids))
        return .done
      case .unknown(let name): return .error("nobody called \(name) is in the room")
      case .usage, .notATell: return .error("say tell NAME[,NAME] and what to say")
      }
    case .lock(let locked): return Self.outcome(await client.send(.setLocked(locked)))
    case .control(let control): return Self.outcome(await client.send(.setPlaybackControl(control)))
    case .remove(let person), .owner(let person):
      guard let id = await participant(person) else {
        return .error("nobody called \(person.shown) is in the room")
      }
      if case .remove = action { return Self.outcome(await client.send(.remove(id))) }
      return Self.outcome(await client.send(.transferOwnership(to: id)))
    case .leave: return Self.outcome(await client.send(.leave))
    case .end: return Self.outcome(await client.send(.end))
    case .restartPlayer:
      guard let restartPlayer else { return .error("this player cannot be restarted") }
      guard restartPlayer.isNeeded() else { return .error("the player is running") }
      if let problem = await restartPlayer.run() { return .error(problem) }
      return .done
    case .catalog: return .catalog(catalog)
    case .status: return .status(await client.snapshot())
    case .lend(let on): return await lend(on)
    case .readyCheck: return Self.outcome(await client.send(.askReady))
    case .ready(let ready):
      let wanted: Bool
      if let ready {
        wanted = ready
      } else {
        let snapshot = await client.snapshot()
        wanted = !(snapshot.participant.flatMap(snapshot.state.participant)?.readyToWatch ?? false)
      }
      return Self.outcome(await client.send(.setReadyToWatch(wanted)))
    case .startAnyway: return Self.outcome(await client.send(.startAnyway))
    case .cancelReadyCheck: return Self.outcome(await client.send(.cancelReadyCheck))
    case .startWhenAllReady(let on):
      return Self.outcome(await client.send(.setStartWhenAllReady(on)))
    case .keepRoom(let on): return Self.outcome(await client.send(.setKept(on)))
    case .continueLastTime: return await continueLastTime()
    }
  }

  /// The room as it was left last time: its item (started, or switched to), paused at the
  /// position, and its queue after what is queued now. An item the catalog no longer has
  /// is said, and nothing changes; a queued one is left out, and said.
  private mutating func continueLastTime() async -> ActionOutput {
    guard let memory = lastTime else {
      return .error(
        "there is nothing to continue: no earlier night of this room is remembered here")
    }
    let item = ItemID(memory.watched.item)
    guard case .success(let series) = await self.series(for: item), let info = series.item(item)
    else {
      lastTime = nil
      return .error(
        "\(memory.label) (\(memory.watched.item)) is no longer in the catalog: start afresh")
    }
    let state = await client.groupState
    if state.session?.item.id != item {
      let started =
        state.session == nil
        ? await client.send(.start(series: series, item: item))
        : await client.send(.replace(series: series, item: item, confirmed: true))
      if case .failure = started { return Self.outcome(started) }
    }
    let position = min(memory.position, info.duration)
    let paused = await client.send(.pause(item: item, at: position))
    if case .failure = paused { return Self.outcome(paused) }
    lastTime = nil
    var missing: [String] = []
    for queued in memory.queue {
      let entry = ItemID(queued.watched.item)
      guard case .success(let queuedSeries) = await self.series(for: entry) else {
        missing.append(queued.watched.item)
        continue
      }
      _ = await client.send(.queueAdd(series: queuedSeries, item: entry))
    }
    let queue =
      memory.queue.isEmpty
      ? "" : ", with \(memory.queue.count - missing.count) of \(memory.queue.count) queued"
    let gone =
      missing.isEmpty ? "" : " (no longer in the catalog: \(missing.joined(separator: ", ")))"
    return .note(
      "continuing \(memory.label) at \(RoomMemory.clock(position)), paused\(queue)\(gone)")
  }

  /// Lending on or off, said back with who stops reading this person's copy.
  private func lend(_ on: Bool?) async -> ActionOutput {
    guard let lending, let lends = lending.lends else {
      return .error(
        "you have no copies to lend: lending needs --player mpv and a --media folder")
    }
    let wanted = on ?? !lends
    guard wanted != lends else {
      return .note(wanted ? "you already lend your copies" : "you do not lend your copies")
    }
    let stopped = lending.setLends(wanted)
    guard !wanted else {
      return .note("you lend your copies: members without the episode watch from yours")
    }
    let readers = Set(stopped.map(\.borrowerName)).sorted()
    let who = readers.isEmpty ? "" : " (\(readers.joined(separator: ", ")) no longer read yours)"
    return .note("you stopped lending your copies\(who)")
  }

  /// The participant a person means: by a name, exact first, then ignoring case.
  private func participant(_ person: PersonRef) async -> ParticipantID? {
    guard case .named(let name) = person else {
      guard case .id(let id) = person else { return nil }
      return id
    }
    let people = await client.groupState.participants
    return
      (people.first { $0.name == name }
      ?? people.first { $0.name.lowercased() == name.lowercased() })?.id
  }

  /// The room's queue, by places as `status` lists it (from 1).
  private mutating func queue(_ action: QueueAction) async -> ActionOutput {
    let state = await client.groupState
    func entry(at ref: QueueRef) -> QueueEntry? {
      switch ref {
      case .place(let place):
        place >= 1 && place <= state.queue.count ? state.queue[place - 1] : nil
      case .entry(let id): state.queue.first { $0.id == id }
      }
    }
    let empty = "the queue has \(state.queue.count) \(state.queue.count == 1 ? "item" : "items")"
    switch action {
    case .add(let item):
      switch await series(for: item) {
      case .success(let series):
        return Self.outcome(await client.send(.queueAdd(series: series, item: item)))
      case .failure(let problem): return .error(problem.description)
      }
    case .remove(let ref):
      guard let entry = entry(at: ref) else { return .error("no \(ref.shown): \(empty)") }
      return Self.outcome(await client.send(.queueRemove(entry: entry.id)))
    case .move(let ref, let to):
      guard let entry = entry(at: ref) else { return .error("no \(ref.shown): \(empty)") }
      return Self.outcome(await client.send(.queueMove(entry: entry.id, to: to - 1)))
    case .clear:
      return Self.outcome(await client.send(.queueClear))
    case .play(let ref, let confirmed):
      guard let entry = entry(at: ref), let info = entry.info else {
        return .error("no \(ref.shown): \(empty)")
      }
      // Nothing watched: it simply starts. Otherwise it switches everyone: asked first.
      guard state.session != nil, !confirmed else {
        return Self.outcome(await client.send(.playQueued(entry: entry.id)))
      }
      pendingSwitch = nil
      pendingQueued = entry.id
      return .prompt(.confirmSwitch(info))
    }
  }

  private mutating func askToSwitch(_ series: SeriesInfo, _ item: ItemInfo) -> ActionOutput {
    pendingQueued = nil
    pendingSwitch = (series, item.id)
    return .prompt(.confirmSwitch(item))
  }

  private static func outcome(_ result: Result<Void, ClientError>) -> ActionOutput {
    switch result {
    case .success: .done
    case .failure(.rejected(let rejection)): .refused(ClientError.rejected(rejection).description)
    case .failure(let error): .error(error.description)
    }
  }
}

extension PersonRef {
  /// How the person was named, for "nobody called … is in the room".
  var shown: String {
    switch self {
    case .named(let name): name
    case .id(let id): id.rawValue
    }
  }
}

extension QueueRef {
  var shown: String {
    switch self {
    case .place(let place): "place \(place)"
    case .entry(let id): "entry \(id)"
    }
  }
}

extension ActionPerformer {
  /// Carries out, with a performer of its own, what the person does in the player's own
  /// window, until the client stops: for a runner that has no other input to take them in
  /// order with (the Syncplay port, whose client's pauses come only from its player).
  /// `told`: what came of each, for a log.
  public static func followPlayer(
    of client: ParticipantClient, catalog: [SeriesInfo] = [],
    told: @escaping @Sendable (ParticipantAction, ActionOutput) -> Void = { _, _ in }
  ) -> Task<Void, Never> {
    Task(executorPreference: client.clock.taskExecutor) {
      var performer = ActionPerformer(client: client, catalog: catalog)
      for await action in client.playerActions { told(action, await performer.perform(action)) }
    }
  }
}
