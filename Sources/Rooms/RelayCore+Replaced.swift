import PlaybackCoordination
import WireProtocol

/// A relay that was replaced while it was away: its machine slept (or was stopped), or its
/// network went, for longer than its members waited, and they elected one of its
/// successors meanwhile. When it runs again, the successors' connections are gone without
/// a word; it asks their relays (`locate`) whether one of them carries the room now, and
/// if one does, it never runs the room on beside it: it sends whoever is still here there
/// (`redirect`) and lets the room go.
///
/// A `here` is only evidence when it could be true: the room moves only when this relay
/// has lost most of its members (the relay's own left out, as elections leave it out), to
/// a successor it fed a copy (only those are asked). One member that drops its connection
/// and answers "here" — a client of its own — moves nobody while most are still here; a
/// majority of members can still move the room, as they can elect where it goes on.
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
    guard feedsSuccessors else { return }
    rooms[roomName]?.carrying.lost.lose(participant, at: endpoint, now: now)
  }

  /// The member is back here, or gone for good: its relay need not be asked any more.
  mutating func foundSuccessor(_ participant: ParticipantID, in roomName: String) {
    _ = rooms[roomName]?.carrying.lost.found(participant)
  }

  /// The relays of lost successors to ask now, one `locate` each per round.
  mutating func locateLostSuccessors(at now: GroupInstant) -> [RelayAction] {
    var actions: [RelayAction] = []
    for name in rooms.keys.sorted() {
      guard var room = rooms[name],
        room.carrying.lost.locateDue(at: now, every: Self.locateInterval)
      else { continue }
      rooms[name] = room
      var asked: Set<String> = []
      for (_, endpoint) in room.carrying.lost.endpoints.sorted(by: { $0.key < $1.key })
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
      let relay = room.carrying.lost.endpoints.values.first(where: {
        $0.address == endpoint.address
      })
    else { return ([], false) }
    switch answer {
    case .here(let term):
      // A relay that runs the room at this relay's term or an earlier one is not where the
      // room went on from here (a successor elected from this relay's copy runs it one
      // term later; one that says less, or nothing, is stale or lying).
      guard term > room.term else {
        return (
          [
            .log(
              .warning,
              "room \(roomName): the relay at \(endpoint.address) says it runs the room at term \(term), not after this relay's \(room.term); staying"
            )
          ], false
        )
      }
      guard Self.lostMajority(room) else {
        return (
          [
            .log(
              .warning,
              "room \(roomName): the relay at \(endpoint.address) says it runs the room, but most of its members are still here; staying"
            )
          ], false
        )
      }
    case .nothingListening:
      for (participant, lost) in room.carrying.lost.endpoints
      where lost.address == endpoint.address {
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

  /// Whether the members this relay lost without a word are more than half of those whose
  /// votes count (the relay's own member left out): only then can they have elected
  /// another relay without the ones still here.
  static func lostMajority(_ room: Room) -> Bool {
    let connected = room.members.filter {
      $0.value.connection != nil && $0.key != room.carrying.host
    }
    let electorate = connected.count + room.carrying.cutOff.unaccounted.count
    return room.carrying.cutOff.unaccounted.count * 2 > electorate
  }

  /// Answers a `locate`, then closes the connection: `here` only for a room this relay
  /// carries on from another (a later term than the first): the only answer a relay that
  /// lost its successors can act on. For any other name — a room that began here, or none
  /// — the same `here: false`, so that a stranger cannot use `locate` to learn which rooms
  /// a relay runs.
  mutating func answerLocate(_ roomName: String, on id: ConnectionID) -> [RelayAction] {
    connections[id] = nil
    guard let room = rooms[roomName], room.term > 1 else {
      return [.send(.located(room: roomName, here: false), to: id), .close(id)]
    }
    return [.send(.located(room: roomName, here: true, term: room.term), to: id), .close(id)]
  }
}
