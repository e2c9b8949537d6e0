import PlaybackCoordination
import WireProtocol

/// What the core exposes to a ``RoomStore``: the rooms and members that changed since the
/// last write, and rooms brought back from a store. The core never writes: the runtime takes
/// the changes (``takeStoreChanges(clock:)``) and writes them off the path that forwards
/// steps.
extension RelayCore {
  /// Rooms and members changed since the last ``takeStoreChanges(clock:)``: only kept when
  /// the core was made with `tracksStoreChanges`.
  struct StoreChanges: Sendable {
    var rooms: Set<String> = []
    var members: [String: Set<ParticipantID>] = [:]
    var departed: [String: Set<ParticipantID>] = [:]
    var removed: Set<String> = []
    /// Rooms whose backlog changed (written, and fed, only then).
    var backlogs: Set<String> = []

    var isEmpty: Bool { rooms.isEmpty && removed.isEmpty }

    mutating func changed(_ room: String, member: ParticipantID?) {
      rooms.insert(room)
      if let member { members[room, default: []].insert(member) }
    }

    mutating func departed(_ room: String, member: ParticipantID) {
      rooms.insert(room)
      members[room]?.remove(member)
      departed[room, default: []].insert(member)
    }

    mutating func backlogChanged(_ room: String) {
      rooms.insert(room)
      backlogs.insert(room)
    }

    mutating func removed(_ room: String) {
      rooms.remove(room)
      backlogs.remove(room)
      members[room] = nil
      departed[room] = nil
      removed.insert(room)
    }
  }

  mutating func markChanged(_ room: String, member: ParticipantID? = nil) {
    if tracksStoreChanges { storeChanges.changed(room, member: member) }
    if feedsSuccessors { successorChanges.changed(room, member: member) }
  }

  mutating func markBacklogChanged(_ room: String) {
    if tracksStoreChanges { storeChanges.backlogChanged(room) }
    if feedsSuccessors { successorChanges.backlogChanged(room) }
  }

  mutating func markDeparted(_ room: String, member: ParticipantID) {
    if tracksStoreChanges { storeChanges.departed(room, member: member) }
    if feedsSuccessors {
      successorChanges.departed(room, member: member)
      successionsToSettle.insert(room)
    }
  }

  mutating func markRemoved(_ room: String) {
    if tracksStoreChanges { storeChanges.removed(room) }
    if feedsSuccessors { successorChanges.removed(room) }
  }

  /// Answers kept in a stored member (of the ``RelayConfiguration/requestWindow`` kept in
  /// memory): each of a member's requests rewrites its row, so the row stays small.
  public static let storedAnswers = 32

  /// Whether anything changed since the last ``takeStoreChanges(clock:)``.
  public var hasStoreChanges: Bool { !storeChanges.isEmpty }

  /// What changed since the last call, as one batch to write, and forgets it. Rooms removed
  /// and then made again come out in both lists: removals are written first.
  public mutating func takeStoreChanges(clock: ClockReading) -> RoomStoreBatch {
    let changes = storeChanges
    storeChanges = StoreChanges()
    var batch = RoomStoreBatch(removed: changes.removed.sorted(), clock: clock)
    for name in changes.rooms.sorted() {
      guard let stored = stored(room: name, members: changes.members[name] ?? []) else {
        continue
      }
      batch.changed.append(
        RoomChange(
          name: name, state: stored.state, nextNumber: stored.nextNumber,
          members: stored.members, departed: (changes.departed[name] ?? []).sorted(),
          protection: stored.protection, term: stored.term,
          backlog: changes.backlogs.contains(name) ? stored.backlog : nil))
    }
    return batch
  }

  /// Puts a batch's rooms back among the changes, when writing it failed: the next batch
  /// writes them again with what they hold then.
  public mutating func requeue(_ batch: RoomStoreBatch) {
    guard tracksStoreChanges else { return }
    for name in batch.removed where rooms[name] == nil { storeChanges.removed.insert(name) }
    for change in batch.changed where rooms[change.name] != nil {
      storeChanges.rooms.insert(change.name)
      if change.backlog != nil { storeChanges.backlogs.insert(change.name) }
      for member in change.members {
        storeChanges.members[change.name, default: []].insert(member.participant)
      }
      for member in change.departed {
        storeChanges.departed[change.name, default: []].insert(member)
      }
    }
  }

  /// Every room as a store would hold it (for a full write and for tests).
  public func storedRooms() -> [StoredRoom] {
    rooms.keys.sorted().compactMap { name in
      stored(room: name, members: nil)
    }
  }

  /// A room with the given members (nil: all of them).
  func stored(room name: String, members wanted: Set<ParticipantID>?) -> StoredRoom? {
    guard let room = rooms[name] else { return nil }
    let members = room.members.filter { wanted?.contains($0.key) ?? true }
      .sorted { $0.key < $1.key }
      .map { id, member in
        let log = member.messages.stored
        let window = member.requests.stored(limit: Self.storedAnswers)
        return StoredMember(
          participant: id, name: member.name, resumeKey: member.resumeKey,
          messageCount: log.count, messagesSent: log.sent, messages: log.messages,
          answers: window.answers, answerFloor: window.floor)
      }
    return StoredRoom(
      name: name, state: room.engine.state, nextNumber: room.nextNumber, members: members,
      protection: room.protection, term: room.term, backlog: room.backlog.entries)
  }

  /// Brings back rooms a store kept, at group time `now`: every member away, keeping its
  /// place for the reconnect grace from now, as after a network cut (the engine hears that
  /// they are disconnected, as it would have). A room that does not hold together (a bad
  /// name, members the state does not know, a secret hash of the wrong size) is left out,
  /// with a log line that says why; rooms already here are not replaced.
  public mutating func restore(_ stored: [StoredRoom], at now: GroupInstant) -> [RelayAction] {
    var actions: [RelayAction] = []
    for room in stored.sorted(by: { $0.name < $1.name }) {
      // Kept on request or by a relay run with --keep-rooms: kept again, or, by a relay
      // that keeps no such room, let go.
      let kept = keeps(room.state)
      if room.members.isEmpty, !kept {
        markRemoved(room.name)
        actions.append(.log(.info, "stored room \(room.name) is empty and not kept; dropped"))
        continue
      }
      if let problem = Self.problem(with: room, kept: kept) {
        actions.append(.log(.warning, "stored room \(room.name) left out: \(problem)"))
        continue
      }
      guard rooms[room.name] == nil else { continue }
      var restored = Room(
        engine: GroupEngine(configuration: configuration.engine, state: room.state))
      restored.nextNumber = room.nextNumber
      restored.protection = room.protection
      restored.term = room.term
      restored.backlog.restore(
        room.backlog, maximumCount: configuration.maximumBacklogMessages,
        maximumBytes: configuration.maximumBacklogBytes)
      for stored in room.members {
        var messages = MessageLog(
          maximumCount: configuration.maximumPendingMessages,
          maximumBytes: configuration.maximumPendingMessageBytes)
        messages.restore(
          count: stored.messageCount, sent: stored.messagesSent, messages: stored.messages)
        var requests = RequestWindow(capacity: configuration.requestWindow)
        requests.restore(answers: stored.answers, floor: stored.answerFloor)
        restored.members[stored.participant] = Member(
          name: stored.name, resumeKey: stored.resumeKey, connection: nil,
          disconnectedAt: now, requests: requests, messages: messages)
      }
      if room.members.isEmpty { restored.keptSince = now }
      rooms[room.name] = restored
      markChanged(room.name)
      for participant in room.state.participants where participant.isConnected {
        actions += applyInternal(.setConnected(false), from: participant.id, in: room.name, at: now)
      }
      if var current = rooms[room.name] {
        current.engineDeadline = current.engine.nextDeadline()
        rooms[room.name] = current
      }
      actions.append(
        .log(
          .info,
          "room \(room.name) restored at sequence \(room.state.sequence) with \(room.members.count) \(room.members.count == 1 ? "member" : "members")"
        ))
    }
    return actions
  }

  /// Why a stored room cannot be brought back, if it cannot. `kept`: the relay keeps this
  /// room when nobody is in it (``RelayConfiguration/maximumKeptRooms``), so one without
  /// members is whole.
  static func problem(with room: StoredRoom, kept: Bool = false) -> String? {
    guard RoomName.isValid(room.name) else { return "not a valid room name" }
    guard !room.members.isEmpty || kept else { return "no members" }
    let ids = room.members.map(\.participant)
    guard Set(ids).count == ids.count else { return "a member appears twice" }
    guard Set(ids) == Set(room.state.participants.map(\.id)) else {
      return "its members and its state's participants differ"
    }
    guard room.members.allSatisfy({ $0.resumeKey.isEmpty || $0.resumeKey.count == 32 }) else {
      return "a resume key is not 32 bytes"
    }
    let highest = ids.compactMap { UInt64($0.rawValue.dropFirst()) }.max() ?? 0
    guard room.nextNumber > highest else { return "its next member number is already taken" }
    return nil
  }
}
