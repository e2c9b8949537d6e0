import PlaybackCoordination
import WireProtocol

/// A member's command: sequenced by the room's engine, answered, and broadcast as a step
/// every replica replays.
extension RelayCore {
  // MARK: - Commands

  /// Runs the room's time-driven rules that fell due before `now`, so that a command is
  /// applied to the state the group is really in (an item that ended has advanced, a wait
  /// that timed out is over).
  mutating func catchUp(_ roomName: String, at now: GroupInstant) -> [RelayAction] {
    guard var room = rooms[roomName], let deadline = room.engineDeadline, deadline <= now else {
      return []
    }
    let before = room.engine.state.sequence
    _ = room.engine.tick(at: now)
    room.engineDeadline = room.engine.nextDeadline()
    rooms[roomName] = room
    if room.engine.state.sequence != before { markChanged(roomName) }
    return broadcastStep(in: roomName, before: before, at: now, input: .tick)
  }

  /// Runs one request (a command or a messenger payload) exactly once: a resent id gets
  /// the answer it got the first time, a new one is applied and its answer remembered.
  mutating func request(
    _ requestID: UInt64, from participant: ParticipantID, in roomName: String,
    via connection: ConnectionID,
    _ body: (inout RelayCore) -> (actions: [RelayAction], answer: ServerMessage)
  ) -> [RelayAction] {
    guard let member = rooms[roomName]?.members[participant] else { return [] }
    switch member.requests.lookup(requestID) {
    case .answered(let answer):
      return [.send(answer, to: connection)]
    case .forgotten:
      let reason = Rejection.invalidValue(
        "request \(requestID) is older than the last \(member.requests.capacity) and was not applied again"
      )
      return [.send(.rejected(id: requestID, reason: reason), to: connection)]
    case .new:
      let (actions, answer) = body(&self)
      rooms[roomName]?.members[participant]?.requests.record(requestID, answer)
      markChanged(roomName, member: participant)
      return actions + [.send(answer, to: connection)]
    }
  }

  mutating func apply(
    _ command: GroupCommand, id commandID: UInt64, from participant: ParticipantID,
    in roomName: String, at now: GroupInstant
  ) -> (actions: [RelayAction], answer: ServerMessage) {
    var actions = catchUp(roomName, at: now)
    guard var room = rooms[roomName] else {
      return (actions, .rejected(id: commandID, reason: .unknownParticipant(participant)))
    }
    switch command {
    case .enter, .exit, .setConnected:
      return (
        actions,
        .rejected(id: commandID, reason: .invalidValue("only the relay sends that command"))
      )
    case .setKept(true):
      if let refusal = keepRefusal(roomName, for: participant) {
        return (actions, .rejected(id: commandID, reason: refusal))
      }
    default: break
    }
    let before = room.engine.state.sequence
    let result = room.engine.apply(command, from: participant, at: now)
    room.engineDeadline = room.engine.nextDeadline()
    rooms[roomName] = room
    switch result {
    case .failure(let rejection):
      return (actions, .rejected(id: commandID, reason: rejection))
    case .success:
      if room.engine.state.sequence != before { markChanged(roomName) }
      // The step first: when the sender hears "accepted", its replica already shows the
      // change it asked for.
      actions += broadcastStep(
        in: roomName, before: before, at: now, input: .command(command, from: participant))
      if case .remove(let target) = command {
        actions += dismiss(target, from: roomName, by: participant)
      }
      if case .setKept(let kept) = command {
        // Counted against the address that asked, while it is kept.
        let address = room.members[participant]?.connection.flatMap { connections[$0]?.address }
        rooms[roomName]?.keeper = kept ? address : nil
      }
      return (actions, .accepted(id: commandID, sequence: room.engine.state.sequence))
    }
  }

  /// Commands the relay issues on a participant's behalf (connectivity, exits).
  mutating func applyInternal(
    _ command: GroupCommand, from participant: ParticipantID, in roomName: String,
    at now: GroupInstant, except: ConnectionID? = nil
  ) -> [RelayAction] {
    var actions = catchUp(roomName, at: now)
    guard var room = rooms[roomName] else { return actions }
    let before = room.engine.state.sequence
    let result = room.engine.apply(command, from: participant, at: now)
    room.engineDeadline = room.engine.nextDeadline()
    rooms[roomName] = room
    guard case .success = result else { return actions }
    if room.engine.state.sequence != before { markChanged(roomName) }
    actions += broadcastStep(
      in: roomName, before: before, at: now, input: .command(command, from: participant),
      except: except)
    return actions
  }
}
