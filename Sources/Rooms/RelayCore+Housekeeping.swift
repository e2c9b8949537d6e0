import PlaybackCoordination
import WireProtocol

/// The heartbeat sweep and the ways a member or connection leaves: silence past the
/// timeout, a grace that ran out, removal, a fatal error.
extension RelayCore {
  // MARK: - Membership housekeeping

  /// "5 s", "2.5 s": a limit as the person who reads the error would write it.
  static func seconds(_ value: Double) -> String {
    value == value.rounded() && abs(value) < 1e9 ? "\(Int(value)) s" : "\(value) s"
  }

  mutating func sweepConnections(at now: GroupInstant) -> [RelayAction] {
    admission.forgetExpired(at: now)
    var actions: [RelayAction] = []
    for (id, connection) in connections.sorted(by: { $0.key < $1.key }) {
      if connection.member == nil, let entry = connection.entry {
        if now.seconds(since: entry.challenged) > configuration.proofTimeout {
          actions += fatal(
            id, .helloRequired,
            "no proof of the room's password within \(Self.seconds(configuration.proofTimeout))",
            at: now)
        }
      } else if connection.member == nil,
        now.seconds(since: connection.since) > configuration.helloTimeout
      {
        actions += fatal(
          id, .helloRequired, "no hello within \(Self.seconds(configuration.helloTimeout))", at: now
        )
      } else if connection.member != nil,
        now.seconds(since: connection.lastSeen) > configuration.heartbeatTimeout
      {
        // Closed as a lost connection is: the member keeps its place for the reconnect
        // grace (a laptop lid closed for a moment, a stalled link), and the others read
        // that it lost the connection, not that it was removed.
        let heard = Self.seconds(configuration.heartbeatTimeout)
        let kept = Self.seconds(configuration.reconnectGrace)
        let text =
          "the relay heard nothing from you for \(heard) and closed the connection; a place is kept \(kept) for a way back"
        actions.append(.send(.error(code: .heartbeatTimeout, message: text, fatal: true), to: id))
        actions.append(.close(id))
        actions += disconnected(id, at: now)
      }
    }
    for name in rooms.keys.sorted() {
      guard let room = rooms[name] else { continue }
      for (participant, member) in room.members.sorted(by: { $0.key < $1.key }) {
        // Cut off, the members lost are what keeps the room from going on here: their
        // places stay until they are back, or found elsewhere.
        if room.carrying.cutOff.isCutOff, room.carrying.cutOff.unaccounted.contains(participant) {
          continue
        }
        if let since = member.disconnectedAt,
          now.seconds(since: since) > configuration.reconnectGrace
        {
          actions += removeMember(participant, from: name, reason: .disconnected, at: now)
        }
      }
    }
    return actions
  }

  mutating func remove(
    connection id: ConnectionID, reason: ExitReason, at now: GroupInstant
  ) -> [RelayAction] {
    guard let connection = connections.removeValue(forKey: id),
      let (roomName, participant) = connection.member,
      rooms[roomName]?.members[participant]?.connection == id
    else { return [] }
    return removeMember(participant, from: roomName, reason: reason, at: now)
  }

  mutating func removeMember(
    _ participant: ParticipantID, from roomName: String, reason: ExitReason, at now: GroupInstant
  ) -> [RelayAction] {
    guard var room = rooms[roomName], room.members[participant] != nil else { return [] }
    // The engine ends the session with the last member; a kept room keeps it.
    let session = room.engine.state.session
    room.members[participant] = nil
    _ = room.carrying.lost.found(participant)
    room.carrying.cutOff.accountedFor(participant)
    rooms[roomName] = room
    markDeparted(roomName, member: participant)
    var actions = closeTunnels(of: participant, in: roomName)
    actions += applyInternal(.exit(reason: reason), from: participant, in: roomName, at: now)
    actions.append(.log(.info, "\(roomName)/\(participant) left (\(reason.rawValue))"))
    if let room = rooms[roomName], room.members.isEmpty {
      if keeps(room.engine.state) {
        actions += keep(roomName, session: session, at: now)
      } else {
        dropRoom(roomName)
        actions.append(.log(.info, "room \(roomName) is empty; dropped"))
      }
    }
    return actions
  }

  /// Whether this relay keeps a room in `state` once nobody is in it: asked to
  /// (``RoomControl/kept``), or keeping all.
  func keeps(_ state: GroupState) -> Bool {
    configuration.maximumKeptRooms > 0 && (configuration.keepsAllRooms || state.control.kept)
  }

  /// Rooms whose owner asked for them to be kept, in use or not: each holds one of the
  /// relay's places (``RelayConfiguration/maximumKeptRooms``).
  var roomsKeptOnRequest: Int { rooms.values.count(where: { $0.engine.state.control.kept }) }

  /// Keeps a room nobody is in (``RelayConfiguration/maximumKeptRooms``): its group paused
  /// where it was, nobody waited for, so that whoever comes back another night finds the
  /// item, the position and the queue as they were left. Rooms kept on request have their
  /// place (a request beyond the bound was refused); past the bound, the room kept without
  /// being asked that was unused longest goes, with a log line.
  mutating func keep(_ name: String, session: WatchSession?, at now: GroupInstant)
    -> [RelayAction]
  {
    guard var room = rooms[name] else { return [] }
    var state = room.engine.state
    if var session {
      let position = min(max(0, session.position(at: now)), session.item.duration)
      session.timeline = Timeline(itemTime: position, groupTime: now, rate: 0)
      session.intendedRate = 0
      session.waits = []
      session.invited = []
      session.catchingUp = []
      state.session = session
    }
    room.engine = GroupEngine(configuration: configuration.engine, state: state)
    room.engineDeadline = room.engine.nextDeadline()
    room.keptSince = now
    // Kept, it no longer counts against the address that made it.
    if let creator = room.creator { admission.removed(createdBy: creator) }
    room.creator = nil
    rooms[name] = room
    markChanged(name)
    let requested = state.control.kept
    var actions: [RelayAction] = [
      .log(.info, "room \(name) is empty; kept (\(requested ? "its owner asked" : "--keep-rooms"))")
    ]
    let places = roomsKeptOnRequest
    var unasked = rooms.compactMap { entry in
      entry.value.engine.state.control.kept ? nil : entry.value.keptSince.map { (entry.key, $0) }
    }
    .sorted(by: { ($0.1, $0.0) < ($1.1, $1.0) })
    while places + unasked.count > configuration.maximumKeptRooms, !unasked.isEmpty {
      let oldest = unasked.removeFirst()
      dropRoom(oldest.0)
      actions.append(
        .log(
          .notice,
          "kept room \(oldest.0) dropped: the relay keeps at most \(configuration.maximumKeptRooms) rooms, and it was unused longest"
        ))
    }
    return actions
  }

  /// Why this relay will not keep `roomName` for `participant` (its owner, who asked), if
  /// it will not: it keeps no rooms, its places are taken, or the asker's address asked for
  /// its share already. Checked before the command is sequenced, so that a refusal changes
  /// nothing.
  func keepRefusal(_ roomName: String, for participant: ParticipantID) -> Rejection? {
    guard let room = rooms[roomName], room.engine.state.control.owner == participant,
      !room.engine.state.control.kept
    else { return nil }  // The engine answers: not the owner, or nothing to change.
    let limit = configuration.maximumKeptRooms
    guard limit > 0 else {
      return .invalidValue(
        "this relay keeps no rooms once everyone has left (a cowatch host room ends with its last member); each of your machines still remembers where you stopped and offers to continue"
      )
    }
    let places = roomsKeptOnRequest
    guard places < limit else {
      return .invalidValue(
        "this relay keeps at most \(limit) rooms on request and has no place for another")
    }
    let address = room.members[participant]?.connection.flatMap { connections[$0]?.address }
    if let address {
      let share = configuration.maximumKeptRoomsPerAddress
      guard rooms.values.count(where: { $0.keeper == address }) < share else {
        return .invalidValue(
          "your address already asked this relay to keep \(share) rooms; let one of them go first (keep-room off in it)"
        )
      }
    }
    return nil
  }

  /// After the owner removed `target` in the engine: its connection is told and closed, and
  /// its place (resume secret, pending messages, answers) forgotten, so that it cannot come
  /// back as the same member.
  mutating func dismiss(
    _ target: ParticipantID, from roomName: String, by owner: ParticipantID
  ) -> [RelayAction] {
    guard var room = rooms[roomName], let member = room.members.removeValue(forKey: target) else {
      return []
    }
    let ownerName = room.members[owner]?.name ?? "the room's owner"
    rooms[roomName] = room
    markDeparted(roomName, member: target)
    var actions: [RelayAction] = [.log(.info, "\(roomName)/\(target) removed by \(owner)")]
    actions += closeTunnels(of: target, in: roomName)
    if let connection = member.connection {
      connections[connection]?.member = nil
      connections[connection] = nil
      actions += [
        .send(
          .error(
            code: .removedFromRoom, message: "\(ownerName) removed you from room \(roomName)",
            fatal: true), to: connection),
        .close(connection),
      ]
    }
    return actions
  }

  mutating func fatal(
    _ id: ConnectionID, _ code: ErrorCode, _ message: String, at now: GroupInstant
  ) -> [RelayAction] {
    var actions: [RelayAction] = [
      .log(.notice, "\(id): \(message); closing", about: id),
      .send(.error(code: code, message: message, fatal: true), to: id),
      .close(id),
    ]
    actions += remove(connection: id, reason: .removed, at: now)
    connections[id] = nil
    return actions
  }

  /// Tells the room about a step its engine took (if it changed anything), so that every
  /// participant's replica replays it.
  func broadcastStep(
    in roomName: String, before: UInt64, at now: GroupInstant, input: StepInput,
    except: ConnectionID? = nil
  ) -> [RelayAction] {
    guard let room = rooms[roomName], room.engine.state.sequence != before else { return [] }
    let targets = room.connections.filter { $0 != except }
    guard !targets.isEmpty else { return [] }
    let step = SequencedStep(
      before: before, after: room.engine.state.sequence, at: now, input: input)
    return [.broadcast(.step(step), to: targets)]
  }
}
