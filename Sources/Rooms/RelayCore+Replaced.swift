import PlaybackCoordination
import WireProtocol

/// A relay that was replaced while it was away: its machine slept (or was stopped), or its
/// network went, for longer than its members waited, and they elected one of its
/// successors meanwhile. When it runs again, the successors' connections are gone without
/// a word; it asks their relays (`locate`) whether one of them carries the room now, and
/// if one does, it never runs the room on beside it: it sends whoever is still here there
/// (`redirect`) and lets the room go.
///
/// Only a relay that passes its rooms on (``RelayCore/feedsSuccessors``) does this.
extension RelayCore {
  /// Seconds between two rounds of `locate` while successors are lost.
  public static let locateInterval = 1.0

  /// A successor's connection went without a goodbye: remember where its relay listens.
  mutating func lostSuccessor(
    _ participant: ParticipantID, at endpoint: RelayEndpoint, in roomName: String,
    at now: GroupInstant
  ) {
    guard feedsSuccessors, var room = rooms[roomName] else { return }
    room.lostSuccessors[participant] = endpoint
    // Asked at once (the next sweep): a relay waking from a long stop runs the room beside
    // the one that replaced it until it hears back, and that is a time to keep short.
    if room.nextLocate == nil { room.nextLocate = now }
    rooms[roomName] = room
  }

  /// The member is back here, or gone for good: its relay need not be asked any more.
  mutating func foundSuccessor(_ participant: ParticipantID, in roomName: String) {
    guard var room = rooms[roomName], room.lostSuccessors[participant] != nil else { return }
    room.lostSuccessors[participant] = nil
    if room.lostSuccessors.isEmpty { room.nextLocate = nil }
    rooms[roomName] = room
  }

  /// The relays of lost successors to ask now, one `locate` each per round.
  mutating func locateLostSuccessors(at now: GroupInstant) -> [RelayAction] {
    var actions: [RelayAction] = []
    for name in rooms.keys.sorted() {
      guard var room = rooms[name], let due = room.nextLocate, due <= now else { continue }
      room.nextLocate = now.advanced(bySeconds: Self.locateInterval)
      rooms[name] = room
      var asked: Set<String> = []
      for (_, endpoint) in room.lostSuccessors.sorted(by: { $0.key < $1.key })
      where asked.insert(endpoint.address).inserted {
        actions.append(.locate(room: name, at: endpoint))
      }
    }
    return actions
  }

  /// What the relay at `endpoint` answered about `roomName`. When it runs the room now and
  /// is one of the successors this relay lost, the room goes on there: everyone here is
  /// sent there, and the room is dropped here. When nothing listens there, the successors
  /// that offered that address are gone for good (their process is): they cannot carry the
  /// room on, nor vote for one that does (see ``settleCutOff(_:at:)``). Returns the
  /// actions, and whether the room was let go.
  public mutating func located(
    _ roomName: String, at endpoint: RelayEndpoint, _ answer: LocateAnswer, at now: GroupInstant
  ) -> (actions: [RelayAction], letGo: Bool) {
    guard let room = rooms[roomName],
      let relay = room.lostSuccessors.values.first(where: { $0.address == endpoint.address })
    else { return ([], false) }
    switch answer {
    case .here: break
    case .nothingListening:
      for (participant, lost) in room.lostSuccessors where lost.address == endpoint.address {
        foundSuccessor(participant, in: roomName)
        accountedFor(participant, in: roomName)
      }
      return (settleCutOff(roomName, at: now), false)
    case .elsewhere, .noAnswer:
      return ([], false)
    }
    var actions: [RelayAction] = []
    for connection in room.connections {
      actions.append(.send(.redirect(room: roomName, relay: relay), to: connection))
      actions.append(.close(connection))
      connections[connection] = nil
    }
    dropRoom(roomName)
    actions.append(
      .log(
        .notice,
        "room \(roomName) went on at \(relay.address) while this relay was away; its people here are sent there"
      ))
    return (actions, true)
  }

  /// Answers a `locate`: whether `room` runs here, then closes the connection.
  mutating func answerLocate(_ roomName: String, on id: ConnectionID) -> [RelayAction] {
    connections[id] = nil
    return [.send(.located(room: roomName, here: rooms[roomName] != nil), to: id), .close(id)]
  }
}
