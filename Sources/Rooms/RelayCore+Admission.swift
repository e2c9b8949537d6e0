import PlaybackCoordination
import WireProtocol

/// Hello, resume and proof: a connection becoming a member of a room (who may enter is
/// ``RoomAdmission``'s to decide; this performs what it decides on the core's state).
extension RelayCore {
  // MARK: - Hello

  mutating func hello(
    _ id: ConnectionID, _ hello: RoomAdmission.Hello, at now: GroupInstant
  ) -> [RelayAction] {
    var hello = hello
    hello.address = connections[id]?.address
    let existing = rooms[hello.room]
    switch admission.decide(hello, existing: existing, at: now) {
    case .refuse(let code, let text):
      return fatal(id, code, text, at: now)
    case .resume(let token):
      return resume(id, token, in: hello.room, at: now)
    case .challenge(let name, let protection):
      let nonce = Array(makeSecret().utf8)
      connections[id]?.entry = PendingEntry(
        name: name, room: hello.room, protection: protection, nonce: nonce,
        resumeKey: hello.resumeKey, challenged: now)
      return [
        .send(.challenge(RoomChallenge(derivation: protection.derivation, nonce: nonce)), to: id)
      ]
    case .enter(let name, let room):
      return enter(
        id, name: name, room: room, named: hello.room, isNew: existing == nil,
        resumeKey: hello.resumeKey ?? [], at: now)
    }
  }

  /// A member takes its place again on connection `id` (after a dropped connection, or
  /// from another one that is then closed), with the messages it missed meanwhile.
  mutating func resume(
    _ id: ConnectionID, _ resume: ResumeToken, in roomName: String, at now: GroupInstant
  ) -> [RelayAction] {
    guard var room = rooms[roomName], var member = room.members[resume.participant] else {
      return []
    }
    var actions: [RelayAction] = []
    if let old = member.connection, old != id {
      connections[old]?.member = nil
      actions.append(.close(old))
    }
    let wasDisconnected = member.disconnectedAt != nil
    member.connection = id
    member.disconnectedAt = nil
    let (pending, missed) = member.messages.resume(received: resume.messagesReceived)
    room.members[resume.participant] = member
    rooms[roomName] = room
    connections[id]?.member = (roomName, resume.participant)
    markChanged(roomName, member: resume.participant)
    foundSuccessor(resume.participant, in: roomName)
    accountedFor(resume.participant, in: roomName)
    if feedsSuccessors { successionsToSettle.insert(roomName) }
    if wasDisconnected {
      actions += applyInternal(
        .setConnected(true), from: resume.participant, in: roomName, at: now, except: id)
    }
    let welcome = Welcome(
      participant: resume.participant, room: roomName,
      resume: ResumeToken(participant: resume.participant),
      configuration: configuration.engine, state: rooms[roomName]!.engine.state, resumed: true,
      relayEpoch: epoch, relays: peers, keepsRooms: configuration.maximumKeptRooms > 0)
    actions.insert(.send(.welcome(welcome), to: id), at: 0)
    if missed > 0 {
      let text =
        "\(missed) \(missed == 1 ? "message" : "messages") sent to you while you were away could not be kept"
      actions.append(.send(.error(code: .messagesLost, message: text, fatal: false), to: id))
    }
    actions += pending.map { .send($0, to: id) }
    actions += settleCutOff(roomName, at: now)
    if let notice = cutOffNotice(roomName) { actions.append(.send(notice, to: id)) }
    actions.append(
      .log(.info, "\(roomName)/\(resume.participant) resumed on \(id)", about: id))
    return actions
  }

  /// A new member enters `room` (created now when `isNew`) on connection `id`.
  mutating func enter(
    _ id: ConnectionID, name: String, room: Room, named roomName: String, isNew: Bool,
    resumeKey: [UInt8], at now: GroupInstant
  ) -> [RelayAction] {
    if room.carrying.cutOff.isCutOff {
      // Whoever enters now would not be in the room the others may be running elsewhere.
      let text =
        "room \(roomName) lost touch with \(Self.names(room.carrying.cutOff.unaccounted, in: room)), most of its people: nobody new enters until they are back"
      return fatal(id, .cutOff, text, at: now)
    }
    var room = room
    let participant = ParticipantID("p\(room.nextNumber)")
    let origin = connections[id]?.origin ?? .cowatch
    room.nextNumber += 1
    var engine = room.engine
    let before = engine.state.sequence
    if case .failure(let rejection) = engine.apply(
      .enter(name: name, origin: origin), from: participant, at: now)
    {
      return fatal(id, .invalidHello, rejection.description, at: now)
    }
    if isNew, let creator = room.creator { admission.created(by: creator) }
    room.engine = engine
    room.engineDeadline = engine.nextDeadline()
    var messages = MessageLog(
      maximumCount: configuration.maximumPendingMessages,
      maximumBytes: configuration.maximumPendingMessageBytes)
    // What the room said before this member came, once, in order: numbered in its log
    // like any payload, so that a resume neither repeats nor loses it.
    let earlier = room.backlog.entries.map { stored in
      let message = RoomBacklog.markedEarlier(stored.message)
      messages.append(message, size: stored.bytes, live: true)
      return message
    }
    room.keptSince = nil
    room.members[participant] = Member(
      name: name, resumeKey: resumeKey, connection: id,
      requests: RequestWindow(capacity: configuration.requestWindow),
      messages: messages)
    rooms[roomName] = room
    connections[id]?.member = (roomName, participant)
    markChanged(roomName, member: participant)
    if feedsSuccessors { successionsToSettle.insert(roomName) }
    let welcome = Welcome(
      participant: participant, room: roomName,
      resume: ResumeToken(participant: participant),
      configuration: configuration.engine, state: engine.state, resumed: false,
      relayEpoch: epoch, relays: peers, keepsRooms: configuration.maximumKeptRooms > 0)
    return [.send(.welcome(welcome), to: id)] + earlier.map { RelayAction.send($0, to: id) } + [
      .log(.info, "\(roomName)/\(participant) \"\(name)\" entered on \(id)", about: id)
    ]
      + broadcastStep(
        in: roomName, before: before, at: now,
        input: .command(.enter(name: name, origin: origin), from: participant), except: id)
  }

  /// The proof answering a challenge: right, the hello goes on as if just received; wrong,
  /// one clear error and the connection closes, counted against the address and the room.
  mutating func prove(
    _ id: ConnectionID, entry: PendingEntry, signature: [UInt8], at now: GroupInstant
  ) -> [RelayAction] {
    connections[id]?.entry = nil
    let address = connections[id]?.address
    guard admission.prove(entry, signature: signature, address: address, at: now) else {
      return fatal(id, .wrongPassword, "wrong password for room \(entry.room)", at: now)
    }
    // The room may have gone (everyone left) while the proof was made: it comes back with
    // the same protection.
    let protect = rooms[entry.room] == nil ? entry.protection : nil
    return hello(
      id,
      RoomAdmission.Hello(
        version: ProtocolVersion.current, name: entry.name, room: entry.room, resume: nil,
        protect: protect, resumeKey: entry.resumeKey, proven: true),
      at: now)
  }
}
