import Narration
import Participation
import PlaybackCoordination
import SyncplayProtocol

/// What the Cowatch side says: the group's state and changes, messages, refusals.
extension SyncplayBridgeCore {
  // MARK: - From the Cowatch participant

  public mutating func clientEvent(_ event: ClientEvent, at now: LocalInstant)
    -> [SyncplayBridgeEffect]
  {
    guard phase != .closed else { return [] }
    switch event {
    case .welcomed(let id, _, _, _, _):
      participant = id
      guard phase == .entering, let hello else { return [] }
      phase = .inRoom
      // Syncplay's server names the room's playlist and where it is in it right after the
      // Hello; a client with shared playlists opens its file only once it has heard them.
      return [
        .send(
          .hello(
            username: hello.username, room: hello.room, version: hello.version,
            motd: configuration.motd))
      ] + playlist(always: true)
    case .state(let newState, let events):
      return adopt(newState, events: events, at: now)
    case .message(_, let name, let kind, let body, let to, let earlier):
      guard kind == .chat else { return [] }
      let text = earlier ? "(earlier) \(body)" : to == nil ? body : "(to you) \(body)"
      return [.send(.chat(username: name, message: String(text.prefix(1000))))]
    case .notice(let told):
      guard phase == .inRoom else { return [] }
      return [notice(told.description)]
    case .rejected(_, let rejection, _):
      return [notice("not done: \(rejection)")]
    case .session(.invalidated(.removed(let why))):
      return refuse("removed from the room: \(why)")
    case .session(.invalidated(.relayLost)), .connection(.disconnected):
      // While entering, the refusal that follows says why in the relay's words.
      guard phase == .inRoom else { return [] }
      return refuse("the Cowatch relay closed this room's connection")
    case .reaction(_, let name, let reaction, let earlier):
      // Syncplay has no reactions: a line of chat says it.
      let line = ChangeNarrator.reaction(from: name, reaction)
      return [
        .send(.chat(username: name, message: earlier ? "(earlier) \(line)" : line))
      ]
    case .session, .connection, .succession:
      return []
    }
  }

  mutating func adopt(_ newState: GroupState, events: [ChangeEvent], at now: LocalInstant)
    -> [SyncplayBridgeEffect]
  {
    state = newState
    var effects: [SyncplayBridgeEffect] = []
    for event in events {
      if let text = ChangeNarrator.notice(for: event, in: newState, local: participant),
        Self.isWorthTelling(event.kind)
      {
        effects.append(notice(text))
      }
    }
    effects += announcePeople()
    if newState.control.owner != announcedOwner, phase == .inRoom {
      // Syncplay shows a room's operator ("controller"): the owner, listed anew.
      announcedOwner = newState.control.owner
      effects.append(.send(list()))
    }
    let shown = PlaylistShown(
      session: newState.session?.id, item: newState.session?.item.id,
      queue: newState.queue.map(\.id))
    if shown != playlistShown,
      playlistShown != nil || newState.session != nil || !newState.queue.isEmpty
    {
      playlistShown = shown
      effects += playlist(always: true)
    }
    if let session = newState.session, let participant,
      let mine = newState.participant(participant), !mine.isJoined, joinRequested != session.id
    {
      joinRequested = session.id
      effects.append(.request(.command(.join)))
    }
    if newState.session == nil {
      target = .idle
      pending = nil
      effects += startFromFileIfIdle()
    }
    return effects
  }

  /// Changes Syncplay cannot show on its own (it shows plays, pauses and seeks by
  /// itself, from the `setBy` of the forced state).
  static func isWorthTelling(_ kind: ChangeKind) -> Bool {
    switch kind {
    case .played, .paused, .seeked, .reported, .sealingKeyAnnounced, .readinessChanged,
      .connectionChanged,
      .entered, .exited, .joined, .left, .waitEnded:
      false
    default: true
    }
  }

  /// Everyone in the room as Syncplay users: joined, left, ready or not.
  mutating func announcePeople() -> [SyncplayBridgeEffect] {
    guard phase == .inRoom, let hello else { return [] }
    var effects: [SyncplayBridgeEffect] = []
    var present: Set<ParticipantID> = []
    for person in state.participants where person.id != participant {
      present.insert(person.id)
      let ready = isReady(person)
      if let known = announced[person.id] {
        if known.isReady != ready {
          effects.append(
            .send(.ready(username: person.name, isReady: ready, manuallyInitiated: false)))
        }
      } else {
        effects.append(
          .send(.user(name: person.name, room: hello.room, file: itemFile, event: .joined)))
        effects.append(
          .send(.ready(username: person.name, isReady: ready, manuallyInitiated: false)))
      }
      announced[person.id] = Announced(name: person.name, isReady: ready)
    }
    for (id, known) in announced where !present.contains(id) {
      announced[id] = nil
      effects.append(.send(.user(name: known.name, room: hello.room, file: nil, event: .left)))
    }
    return effects
  }

  /// Ready, as Syncplay means it: able to play now.
  func isReady(_ person: Participant) -> Bool {
    person.isConnected && person.readiness == .ready && person.suspensions.isEmpty
  }

  /// The group's item as a Syncplay file, for the user list: the client's own file when it
  /// is that item (so that Syncplay sees everyone on the same file), else the item's title.
  var itemFile: SyncplayFile? {
    guard let session = state.session else { return nil }
    if let file, SyncplayItemMatch.matches(file, session.item, in: session.series) { return file }
    return SyncplayFile(name: session.item.title, duration: session.item.duration)
  }

  /// Syncplay's shared playlist: while the room's queue holds anything, the item watched
  /// now and then the queue (Syncplay's own use of a playlist: what plays next); else the
  /// series' episodes. And where the group is in it.
  func playlist(always: Bool = false) -> [SyncplayBridgeEffect] {
    if !state.queue.isEmpty {
      let queued = state.queue.map { $0.info?.title ?? $0.item.rawValue }
      let current = state.session.map { [itemFile?.name ?? $0.item.title] } ?? []
      return [
        .send(.playlistChange(user: lastOriginator, files: current + queued)),
        .send(.playlistIndex(user: lastOriginator, index: current.isEmpty ? nil : 0)),
      ]
    }
    guard let session = state.session else {
      return always
        ? [
          .send(.playlistChange(user: nil, files: [])),
          .send(.playlistIndex(user: nil, index: nil)),
        ]
        : []
    }
    let names = session.series.items.map { item in
      item.id == session.item.id
        && file.map { SyncplayItemMatch.matches($0, item, in: session.series) } == true
        ? file!.name : item.title
    }
    let index = session.series.items.firstIndex { $0.id == session.item.id }
    return [
      .send(.playlistChange(user: lastOriginator, files: names)),
      .send(.playlistIndex(user: lastOriginator, index: index)),
    ]
  }

  /// A room with nothing to watch starts the client's file, as a Syncplay room would play
  /// whatever its people open.
  mutating func startFromFileIfIdle() -> [SyncplayBridgeEffect] {
    guard phase == .inRoom, state.session == nil, let file, file != startedFor,
      let (series, item) = SyncplayItemMatch.series(for: file)
    else { return [] }
    startedFor = file
    // Opening a file in Syncplay does not play it for the room: the session starts paused
    // at its beginning, and plays when someone presses play.
    return [
      .request(.command(.start(series: series, item: item))),
      .request(.command(.pause(item: item, at: 0))),
    ]
  }
}
