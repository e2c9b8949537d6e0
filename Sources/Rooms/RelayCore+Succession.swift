import PlaybackCoordination
import WireProtocol

/// Successors: members whose machines offered to carry the room (`carry`) if this relay
/// goes. The relay names them to everyone (`succession`), keeps the first of them fed with
/// everything a store would keep (`replica`: members with their secrets' hashes, pending
/// messages, answers, the password verifier; the state itself only when one starts over,
/// since successors replay every step), and, when its host leaves, hands the room to the
/// first (`handover`) and sends everyone there (`redirect`).
///
/// Only a relay made with `feedsSuccessors` (one that a person's `cowatch` runs) does any
/// of it: a `serve` relay keeps its rooms in its own store.
extension RelayCore {
  /// Successors kept up to date (the others are named, and fed once they move up).
  public static let fedSuccessors = 3
  /// Checks of offered relays under way at once, for all rooms: each is an outbound
  /// connection that may wait ~15 s for an answer, so offers cannot multiply them.
  public static let maximumReachabilityChecks = 4

  /// A member offers to carry the room, at the address its connection comes from.
  mutating func carry(
    _ offer: CarryOffer, from participant: ParticipantID, in roomName: String, via id: ConnectionID
  ) -> [RelayAction] {
    guard feedsSuccessors, let host = connections[id]?.address else {
      // In-process participants (nil address) have no machine of their own to offer.
      return []
    }
    if offer.runsRelay {
      // Only the participant this relay's process gave its key to runs it: by the key,
      // not by the address (over a LAN address it looks like anyone else).
      guard let ownerKey, let key = offer.relayKey, RelayKey.same(key, ownerKey) else {
        return [
          .log(
            .notice, "\(roomName)/\(participant) said it runs this relay, without its key",
            about: id)
        ]
      }
      guard var room = rooms[roomName] else { return [] }
      room.carrying.host = participant
      if room.members[participant]?.carry != nil {
        room.members[participant]?.carry = nil
        successionsToSettle.insert(roomName)
      }
      rooms[roomName] = room
      // Told to the fed successors at once, not with the next feed: whoever is named a
      // successor after this knows whose vote will not count (a feed a few milliseconds
      // late, and a relay dying meanwhile, left them counting on it).
      var actions: [RelayAction] = [
        .log(.info, "\(roomName)/\(participant) runs this relay", about: id)
      ]
      let targets = room.carrying.feed.members.sorted().compactMap {
        room.members[$0]?.connection
      }
      if !targets.isEmpty {
        let change = RoomChange(
          name: roomName, state: nil, nextNumber: room.nextNumber, members: [], departed: [],
          protection: room.protection, host: participant, term: room.term)
        actions.append(.broadcast(.replica(change), to: targets))
      }
      return actions
    }
    guard connections[id]?.offered == false else {
      return [.log(.info, "\(roomName)/\(participant) offered to carry again; ignored", about: id)]
    }
    connections[id]?.offered = true
    let endpoint = offer.endpoint(host: host)
    guard RelayEndpoint.isPlausible(address: endpoint.address) else { return [] }
    rooms[roomName]?.members[participant]?.carry = endpoint
    rooms[roomName]?.members[participant]?.carryReachable = nil
    successionsToSettle.insert(roomName)
    return [.log(.info, "\(roomName)/\(participant) can carry the room at \(endpoint)", about: id)]
      + checkReachability(of: participant, in: roomName)
  }

  /// Starts a check of the relay `participant` offered, unless one of its own is under
  /// way or the checks are all taken: then it waits its turn.
  mutating func checkReachability(of participant: ParticipantID, in roomName: String)
    -> [RelayAction]
  {
    let key = "\(roomName)/\(participant)"
    guard !reachabilityChecks.contains(key),
      reachabilityChecks.count < Self.maximumReachabilityChecks
    else {
      if !reachabilityWaiting.contains(where: { $0 == (roomName, participant) }) {
        reachabilityWaiting.append((roomName, participant))
      }
      return []
    }
    guard let endpoint = rooms[roomName]?.members[participant]?.carry else { return [] }
    reachabilityChecks.insert(key)
    return [.checkReachable(room: roomName, participant: participant, at: endpoint)]
  }

  /// A check ended: the next waiting one whose offer still stands starts.
  mutating func reachabilityCheckEnded(of participant: ParticipantID, in roomName: String)
    -> [RelayAction]
  {
    reachabilityChecks.remove("\(roomName)/\(participant)")
    while !reachabilityWaiting.isEmpty {
      let (room, next) = reachabilityWaiting.removeFirst()
      guard let member = rooms[room]?.members[next], member.connection != nil,
        member.carry != nil, member.carryReachable == nil
      else { continue }
      return checkReachability(of: next, in: room)
    }
    return []
  }

  /// Whether this relay reached the relay `participant` offered at `endpoint`. One that
  /// cannot be reached (behind a NAT) stays named, marked so, but carries nothing: it is
  /// not fed, and the room is never handed to it.
  public mutating func reachability(
    of participant: ParticipantID, in roomName: String, at endpoint: RelayEndpoint,
    reachable: Bool, at now: GroupInstant
  ) -> [RelayAction] {
    let next = reachabilityCheckEnded(of: participant, in: roomName)
    guard let member = rooms[roomName]?.members[participant], member.carry == endpoint,
      member.carryReachable != reachable
    else { return next }
    rooms[roomName]?.members[participant]?.carryReachable = reachable
    successionsToSettle.insert(roomName)
    var actions: [RelayAction] = []
    if !reachable {
      actions.append(
        .log(
          .notice,
          "\(roomName)/\(participant) offered to carry the room at \(endpoint.address), which this relay cannot reach"
        ))
    }
    return next + actions + settleSuccessions(at: now)
  }

  /// The members that can carry `room` now, in the order they would: connected ones that
  /// offered, the longest present (the lowest member number) first.
  public func successors(ofRoom roomName: String) -> [Successor] { successors(of: roomName) }

  /// The ones this relay could not reach, or could not feed, come after the others,
  /// marked so.
  func successors(of roomName: String) -> [Successor] {
    guard let room = rooms[roomName] else { return [] }
    return room.members
      .compactMap { id, member -> (Bool, UInt64, Successor)? in
        guard member.connection != nil, let relay = member.carry else { return nil }
        let reachable = member.carryReachable ?? true
        let fed = member.passedOverUntil == nil
        return (
          !reachable || !fed, UInt64(id.rawValue.dropFirst()) ?? .max,
          Successor(
            participant: id, name: member.name, relay: relay, reachable: reachable,
            feedable: fed)
        )
      }
      .sorted { ($0.0 ? 1 : 0, $0.1) < ($1.0 ? 1 : 0, $1.1) }
      .prefix(Successor.maximumCount)
      .map(\.2)
  }

  /// The successors that can carry the room, in order.
  func carriers(of roomName: String) -> [Successor] {
    successors(of: roomName).filter(\.canCarry)
  }

  /// Whole-room feeds to one member, within ``wholeRoomFeedWindow``, after which it is
  /// passed over as a successor for ``passedOverDuration`` seconds.
  public static let maximumWholeRoomFeeds = 3
  public static let wholeRoomFeedWindow = 60.0
  public static let passedOverDuration = 300.0

  /// Members passed over long enough may be fed again.
  mutating func forgivePassedOver(at now: GroupInstant) {
    for (name, room) in rooms {
      for (id, member) in room.members
      where member.passedOverUntil.map({ $0 <= now }) == true {
        rooms[name]?.members[id]?.passedOverUntil = nil
        rooms[name]?.members[id]?.wholeRoomFeeds = []
        successionsToSettle.insert(name)
      }
    }
  }

  /// Names the succession to every member of the rooms whose membership changed, and
  /// gives a successor that moved into the fed ones the whole room.
  mutating func settleSuccessions(at now: GroupInstant) -> [RelayAction] {
    guard feedsSuccessors, !successionsToSettle.isEmpty else { return [] }
    var actions: [RelayAction] = []
    for roomName in successionsToSettle.sorted() {
      guard var room = rooms[roomName] else { continue }
      let list = successors(of: roomName)
      let targets = room.connections
      if !targets.isEmpty { actions.append(.broadcast(.succession(list), to: targets)) }
      let fed = Set(list.filter(\.canCarry).prefix(Self.fedSuccessors).map(\.participant))
      let newcomers = room.carrying.feed.newcomers(among: fed)
      if !newcomers.isEmpty {
        // The others first get what is pending, so that from here on every fed successor
        // has every member's messages up to now.
        actions += takeSuccessorFeed()
        room = rooms[roomName] ?? room
        for (id, member) in room.members {
          room.carrying.feed.startAt(
            messages: member.messages.count,
            answer: member.requests.stored(limit: Self.storedAnswers).answers.map(\.id).max() ?? 0,
            for: id)
        }
      }
      room.carrying.feed.choose(fed)
      var passedOver: [ParticipantID] = []
      for participant in newcomers.sorted() {
        guard var member = room.members[participant], let connection = member.connection
        else { continue }
        // Fed from the start again and again (its connection keeps going while it is fed):
        // passed over for a while, said to everyone, rather than fed in a loop.
        member.wholeRoomFeeds = member.wholeRoomFeeds.filter {
          now.seconds(since: $0) < Self.wholeRoomFeedWindow
        }
        if member.wholeRoomFeeds.count >= Self.maximumWholeRoomFeeds {
          member.passedOverUntil = now.advanced(bySeconds: Self.passedOverDuration)
          room.carrying.feed.passOver(participant)
          room.members[participant] = member
          passedOver.append(participant)
          continue
        }
        member.wholeRoomFeeds.append(now)
        room.members[participant] = member
        actions += wholeRoom(roomName).map { .send(.replica($0), to: connection) }
      }
      rooms[roomName] = room
      for participant in passedOver {
        actions.append(
          .log(
            .notice,
            "\(roomName)/\(participant) was fed the whole room \(Self.maximumWholeRoomFeeds) times in \(Int(Self.wholeRoomFeedWindow)) s and lost its connection each time; passed over as a successor for \(Int(Self.passedOverDuration)) s"
          ))
      }
      if !passedOver.isEmpty {
        // Named again, marked, and the next one fed in its place.
        successionsToSettle.insert(roomName)
        return actions + settleSuccessions(at: now)
      }
    }
    successionsToSettle = []
    return actions
  }

  /// The whole room as replica messages: the state first (the successor starts its copy
  /// over), then the members, as many to a line as fit in ``feedLineBytes``.
  func wholeRoom(_ roomName: String) -> [RoomChange] {
    guard let stored = stored(room: roomName, members: nil) else { return [] }
    var changes = [
      RoomChange(
        name: roomName, state: stored.state, nextNumber: stored.nextNumber, members: [],
        departed: [], protection: stored.protection, restart: true,
        host: rooms[roomName]?.carrying.host,
        term: stored.term, backlog: stored.backlog)
    ]
    for group in Self.lines(of: stored.members) where !group.isEmpty {
      changes.append(
        RoomChange(
          name: roomName, state: nil, nextNumber: stored.nextNumber, members: group,
          departed: [], protection: stored.protection, term: stored.term))
    }
    return changes
  }

  /// About how many bytes of members one replica line carries at most: far below a
  /// participant's frame limit (1 MiB), however many messages wait for its members.
  static let feedLineBytes = 64 * 1024

  /// Members in groups of at most ``feedLineBytes`` (a member larger than that alone);
  /// one empty group when there are none (a line still says who departed).
  static func lines(of members: [StoredMember]) -> [[StoredMember]] {
    var groups: [[StoredMember]] = [[]]
    var bytes = 0
    for member in members {
      let size = 300 + member.answers.count * 24 + member.messages.reduce(0) { $0 + $1.bytes + 96 }
      if !groups[groups.count - 1].isEmpty, bytes + size > feedLineBytes {
        groups.append([])
        bytes = 0
      }
      groups[groups.count - 1].append(member)
      bytes += size
    }
    return groups
  }

  /// Whether there is something to feed the successors.
  public var hasSuccessorFeed: Bool { !successorChanges.isEmpty }

  /// What changed since the last call, as replica messages to the fed successors of each
  /// room: changed members with only the messages they were not fed yet.
  public mutating func takeSuccessorFeed() -> [RelayAction] {
    let changes = successorChanges
    successorChanges = StoreChanges()
    var actions: [RelayAction] = []
    for roomName in changes.rooms.sorted() {
      guard var room = rooms[roomName], !room.carrying.feed.members.isEmpty else { continue }
      let targets = room.carrying.feed.members.sorted().compactMap {
        room.members[$0]?.connection
      }
      guard !targets.isEmpty else { continue }
      var members: [StoredMember] = []
      for id in (changes.members[roomName] ?? []).sorted() {
        guard let member = room.members[id] else { continue }
        let (after, answersAfter) = room.carrying.feed.pending(of: id)
        let stored = storedMember(id, member, messagesAfter: after, answersAfter: answersAfter)
        members.append(stored)
        room.carrying.feed.fed(
          id, messages: member.messages.count, answer: stored.answers.map(\.id).max())
      }
      for id in changes.departed[roomName] ?? [] { room.carrying.feed.forget(id) }
      rooms[roomName] = room
      let departed = (changes.departed[roomName] ?? []).sorted()
      // As few lines as fit: the state is not fed (successors replay every step).
      let groups = Self.lines(of: members)
      for (index, group) in groups.enumerated() {
        let change = RoomChange(
          name: roomName, state: nil, nextNumber: room.nextNumber, members: group,
          departed: index == 0 ? departed : [], protection: room.protection,
          host: room.carrying.host,
          term: room.term,
          backlog: index == 0 && changes.backlogs.contains(roomName) ? room.backlog.entries : nil)
        actions.append(.broadcast(.replica(change), to: targets))
      }
    }
    return actions
  }

  /// The room's host is leaving for good: each room goes to its first successor, fed with
  /// the last changes, and everyone else is sent there. Rooms with nobody to carry them
  /// stay (the caller closes them). Returns the actions and the rooms handed over, with
  /// the successor each went to.
  public mutating func handOver(at now: GroupInstant) -> (
    actions: [RelayAction], moved: [(room: String, to: Successor)]
  ) {
    var actions = takeSuccessorFeed()
    var moved: [(room: String, to: Successor)] = []
    for roomName in rooms.keys.sorted() {
      guard let first = carriers(of: roomName).first,
        let room = rooms[roomName], room.carrying.feed.members.contains(first.participant),
        let heir = room.members[first.participant]?.connection
      else { continue }
      actions.append(.send(.handover(room: roomName), to: heir))
      for connection in room.connections {
        actions.append(.send(.redirect(room: roomName, relay: first.relay), to: connection))
        actions.append(.close(connection))
        self.connections[connection] = nil
      }
      dropRoom(roomName)
      actions.append(
        .log(.notice, "room \(roomName) handed over to \(first.name) at \(first.relay)"))
      moved.append((roomName, first))
    }
    return (actions, moved)
  }

  private func storedMember(
    _ id: ParticipantID, _ member: Member, messagesAfter: UInt64, answersAfter: UInt64
  ) -> StoredMember {
    let log = member.messages.stored
    let window = member.requests.stored(limit: Self.storedAnswers)
    return StoredMember(
      participant: id, name: member.name, resumeKey: member.resumeKey,
      messageCount: log.count, messagesSent: log.sent,
      messages: log.messages.filter { $0.index > messagesAfter },
      answers: window.answers.filter { $0.id > answersAfter }, answerFloor: window.floor,
      keptFrom: log.messages.first?.index ?? (log.count + 1))
  }
}
