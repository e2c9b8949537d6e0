import PlaybackCoordination
import WireProtocol

/// The relay's logic: rooms by name, one ``GroupEngine`` per room that sequences every
/// change, hello and resume, heartbeats, limits and messenger routing.
///
/// Pure: the edge (TCP or in-memory) feeds it connection events with the group time and
/// performs the ``RelayAction``s it returns. One value serves every room, so that all
/// changes of a room go through one engine in one order.
public struct RelayCore: Sendable {
  public let configuration: RelayConfiguration

  var connections: [ConnectionID: Connection] = [:]
  var rooms: [String: Room] = [:]
  /// Makes resume secrets. The relay's runtime gives a cryptographically secure one
  /// (``RelayCore/systemSecret()``); tests may give a predictable one.
  let makeSecret: @Sendable () -> String
  /// Who may enter which room, and the counters against guessing.
  var admission: RoomAdmission

  /// Checks a proof for a password-protected room: whether `signature` signs `signed` for
  /// the Ed25519 public key `verifier`. Injected (the runtime gives swift-crypto's) so that
  /// this core stays free of a crypto library; without one, no proof is ever right.
  /// `(signature, signed bytes, verifier) -> valid`.
  public typealias ProofVerifier =
    @Sendable (
      _ signature: [UInt8], _ signed: [UInt8], _ verifier: [UInt8]
    ) -> Bool
  var lastSweep: GroupInstant?

  /// Names this relay run in every welcome (see ``Welcome/relayEpoch``).
  public let epoch: String
  /// The secret its own machine's participant proves itself by (see ``RelayKey``); nil:
  /// no participant runs this relay (`cowatch serve`).
  let ownerKey: String?

  /// Whether the core notes what changed for a ``RoomStore`` (see
  /// ``takeStoreChanges(clock:)``); without a store it keeps no such list.
  public let tracksStoreChanges: Bool
  var storeChanges = StoreChanges()
  /// Whether the core passes rooms on to successors (see ``RelayCore/takeSuccessorFeed()``).
  public let feedsSuccessors: Bool
  /// What changed since the successors were last fed, and rooms whose succession may have.
  var successorChanges = StoreChanges()
  var successionsToSettle: Set<String> = []
  /// Reachability checks of offered relays under way ("room/participant"), and those
  /// waiting for one of them to end (see ``RelayCore/maximumReachabilityChecks``).
  var reachabilityChecks: Set<String> = []
  var reachabilityWaiting: [(room: String, participant: ParticipantID)] = []
  /// Tunnels between members for lent copies (see ``RelayCore/openTunnel``).
  var tunnels = TunnelBook()

  /// Other relays of the same database, listed in every welcome (see ``Welcome/relays``).
  public var peers: [RelayEndpoint] = []
  /// Set while the relay cannot store changes (its database is unreachable): says why, and
  /// commands that would change a room are refused with it instead of being applied and
  /// then lost. Reports and readiness still apply: they only describe players.
  public var refusingChanges: String?

  public init(
    configuration: RelayConfiguration = .init(), epoch: String = "", ownerKey: String? = nil,
    tracksStoreChanges: Bool = false, feedsSuccessors: Bool = false,
    makeSecret: @escaping @Sendable () -> String = RelayCore.systemSecret,
    verifyProof: @escaping ProofVerifier = { _, _, _ in false }
  ) {
    self.configuration = configuration
    self.epoch = epoch
    self.ownerKey = ownerKey
    self.tracksStoreChanges = tracksStoreChanges
    self.feedsSuccessors = feedsSuccessors
    self.makeSecret = makeSecret
    admission = RoomAdmission(configuration: configuration, verifyProof: verifyProof)
  }

  /// How resume proofs addressed to this relay are checked.
  public var resumeCheck: ResumeCheck { admission.resumeCheck }

  /// The relay serves with a renewed certificate too: proofs that name it are accepted
  /// (the old one's still are, for members that connected before).
  public mutating func servesCertificate(_ fingerprint: String) {
    guard !admission.resumeCheck.relays.contains(fingerprint) else { return }
    admission.resumeCheck.relays.append(fingerprint)
  }

  // MARK: - State kept per connection and per room

  struct Connection {
    /// Where it comes from (nil: in-process), for the rooms-per-address limit.
    var address: String?
    /// What kind of participant it carries: decided by the relay's edge that accepted it
    /// (the Syncplay port's bridge), never by what the peer says.
    var origin: ParticipantOrigin = .cowatch
    var since: GroupInstant
    var lastSeen: GroupInstant
    var member: (room: String, participant: ParticipantID)?
    /// Lines it may still send: a sustained rate with a burst.
    var bucket: TokenBucket
    /// Messenger bytes it may still have delivered (see
    /// ``RelayConfiguration/messageBytesPerSecond``).
    var messageBytes: TokenBucket
    /// When the whole state was last sent in answer to `resync`.
    var lastResync: GroupInstant?
    /// A `resync` asked for too soon after the last one: answered once, when allowed.
    var resyncPending = false
    /// A hello for a password-protected room, waiting for the proof that answers its
    /// challenge.
    var entry: PendingEntry?
    /// Whether it offered to carry the room already: one offer per connection is acted
    /// on (each costs a check of the offered address and a new succession for everyone).
    var offered = false
  }

  struct Member {
    var name: String
    /// The public key the member's resumes prove themselves with (empty: none given).
    var resumeKey: [UInt8]
    var connection: ConnectionID?
    var disconnectedAt: GroupInstant?
    var requests: RequestWindow
    var messages: MessageLog
    /// Where its machine offered to carry the room, while it is connected.
    var carry: RelayEndpoint?
    /// Whether this relay reached that address (nil: not known yet; counted as reachable
    /// meanwhile, as on the LAN where it almost always is).
    var carryReachable: Bool?
    /// When it was last sent the whole room as a successor (recent ones only): a member
    /// whose connection keeps going while it is fed would be fed from the start forever.
    var wholeRoomFeeds: [GroupInstant] = []
    /// Until when it is passed over as a successor (it could not be fed): named last,
    /// marked so, never fed or handed the room.
    var passedOverUntil: GroupInstant?
  }

  struct Room {
    var engine: GroupEngine
    var members: [ParticipantID: Member] = [:]
    var nextNumber: UInt64 = 1
    /// Which of the room's successive relays this one is (see ``StoredRoom/term``).
    var term: UInt64 = 1
    var engineDeadline: GroupInstant?
    /// The address whose hello created it, while it counts against that address.
    var creator: String?
    /// Set by its creator's hello: entrants then prove they know the password.
    var protection: RoomProtection?
    /// The relays that may carry it on: the host's, the successors fed, those lost, and
    /// whether it is cut off from them.
    var carrying = CarryingState()
    /// Its recent conversation, for people who enter later.
    var backlog = RoomBacklog()
    /// Since when nobody is in it, while the relay keeps it
    /// (``RelayConfiguration/maximumKeptRooms``).
    var keptSince: GroupInstant?
    /// The address of the member whose request keeps it (``RoomControl/kept``), counted
    /// against that address (``RelayConfiguration/maximumKeptRoomsPerAddress``); nil for a
    /// room restored from the store or not kept on request.
    var keeper: String?

    var connections: [ConnectionID] {
      members.values.compactMap(\.connection).sorted()
    }
  }

  // MARK: - Introspection (for the edge's status and for tests)

  public var roomNames: [String] { rooms.keys.sorted() }
  public func hasRoom(_ name: String) -> Bool { rooms[name] != nil }
  public var connectionCount: Int { connections.count }
  /// Members in all rooms, and how many of them are connected now.
  public var memberCounts: (members: Int, connected: Int) {
    // Read under the relay's lock at each scrape: counted without allocating.
    var members = 0
    var connected = 0
    for room in rooms.values {
      members += room.members.count
      for member in room.members.values where member.connection != nil { connected += 1 }
    }
    return (members, connected)
  }
  public func state(ofRoom name: String) -> GroupState? { rooms[name]?.engine.state }
  /// Which of the room's successive relays this one is, if it runs the room.
  public func term(ofRoom name: String) -> UInt64? { rooms[name]?.term }
  /// What may be told about each room to anyone on the local network (rooms nearby).
  public var roomSummaries: [RoomSummary] {
    rooms.keys.sorted().compactMap { name in
      guard let room = rooms[name] else { return nil }
      return RoomSummary(
        name: name,
        people: room.members.values.count { $0.connection != nil },
        password: room.protection != nil,
        host: room.carrying.host.flatMap { room.members[$0]?.name })
    }
  }
  public func participant(of connection: ConnectionID) -> (
    room: String, participant: ParticipantID
  )? {
    connections[connection]?.member
  }

  // MARK: - Events

  public mutating func connected(
    _ id: ConnectionID, address: String? = nil, origin: ParticipantOrigin = .cowatch,
    at now: GroupInstant
  ) -> [RelayAction] {
    connections[id] = Connection(
      address: address, origin: origin, since: now, lastSeen: now, member: nil,
      bucket: TokenBucket(burst: configuration.messageBurst, at: now),
      messageBytes: TokenBucket(burst: configuration.messageByteBurst, at: now))
    return []
  }

  /// See ``RoomAdmission``: the limits on guessing passwords and resume secrets.
  public static let maximumWrongProofsPerAddress = RoomAdmission.maximumWrongProofsPerAddress
  public static let maximumWrongProofsPerRoom = RoomAdmission.maximumWrongProofsPerRoom
  public static let wrongProofWindow = RoomAdmission.wrongProofWindow
  public static let maximumWrongResumes = RoomAdmission.maximumWrongResumes
  public static let wrongResumeWindow = RoomAdmission.wrongResumeWindow

  /// Commands that only say what a player does (kept while changes are refused).
  static func describesPlayer(_ command: GroupCommand) -> Bool {
    switch command {
    case .report, .setReadiness: true
    default: false
    }
  }

  /// Stops running a room this relay no longer owns (its lease went to another relay, or
  /// could not be renewed): every member connected here is told why and disconnected, to
  /// reconnect where the room is now. Nothing is marked for the store: the room is not
  /// gone, only no longer this relay's to write.
  public mutating func evict(_ name: String, reason: String, at now: GroupInstant)
    -> [RelayAction]
  {
    guard let room = rooms.removeValue(forKey: name) else { return [] }
    storeChanges.rooms.remove(name)
    storeChanges.members[name] = nil
    storeChanges.departed[name] = nil
    if let creator = room.creator { admission.removed(createdBy: creator) }
    var actions: [RelayAction] = [.log(.notice, "room \(name) left to another relay: \(reason)")]
    actions += closeTunnels(of: nil, in: name)
    for id in room.connections {
      connections[id] = nil
      actions.append(
        .send(.error(code: .storeUnavailable, message: reason, fatal: false), to: id))
      actions.append(.close(id))
    }
    return actions
  }

  mutating func dropRoom(_ name: String) {
    guard let room = rooms.removeValue(forKey: name) else { return }
    markRemoved(name)
    if let creator = room.creator { admission.removed(createdBy: creator) }
  }

  /// Bytes that could not be framed or decoded: answer with one clear error and close.
  public mutating func receivedInvalid(
    _ error: WireError, from id: ConnectionID, at now: GroupInstant
  ) -> [RelayAction] {
    guard connections[id] != nil else { return [] }
    var actions: [RelayAction] = [
      .log(.notice, "\(id): \(error); closing", about: id),
      .send(.error(code: error.code, message: error.description, fatal: true), to: id),
      .close(id),
    ]
    actions += remove(connection: id, reason: .removed, at: now)
    return actions
  }

  /// An empty line: nothing to do, but it counts against the rate limit like any line, so
  /// that a flood of them costs its sender, not the relay.
  public mutating func receivedEmptyLine(from id: ConnectionID, at now: GroupInstant)
    -> [RelayAction]
  {
    guard connections[id] != nil else { return [] }
    return charge(id, at: now) ?? []
  }

  /// Takes one token from the connection's bucket (sustained rate plus a burst); the
  /// actions that close it when it has none left.
  mutating func charge(_ id: ConnectionID, at now: GroupInstant) -> [RelayAction]? {
    guard var connection = connections[id] else { return [] }
    let taken = connection.bucket.take(
      at: now, rate: configuration.messagesPerSecond, burst: configuration.messageBurst)
    connections[id] = connection
    if !taken {
      let text =
        "more than \(Int(configuration.messagesPerSecond)) messages a second; closing this connection"
      // Only the connection goes: a member keeps its place (and the answers to its
      // requests) for the reconnect grace, so what it resends is not applied twice.
      return [
        .log(.notice, "\(id): rate limited", about: id),
        .send(.error(code: .rateLimited, message: text, fatal: true), to: id),
        .close(id),
      ] + disconnected(id, at: now)
    }
    return nil
  }

  public mutating func received(
    _ message: ClientMessage, from id: ConnectionID, at now: GroupInstant
  ) -> [RelayAction] {
    let actions = handle(message, from: id, at: now)
    return successionsToSettle.isEmpty ? actions : actions + settleSuccessions(at: now)
  }

  private mutating func handle(
    _ message: ClientMessage, from id: ConnectionID, at now: GroupInstant
  ) -> [RelayAction] {
    guard connections[id] != nil else { return [] }
    connections[id]?.lastSeen = now
    if let closing = charge(id, at: now) { return closing }
    guard let connection = connections[id] else { return [] }

    guard let member = connection.member else {
      if let entry = connection.entry {
        guard case .proof(let signature) = message else {
          return fatal(
            id, .helloRequired, "answer the room's challenge with a proof first", at: now)
        }
        return prove(id, entry: entry, signature: signature, at: now)
      }
      if case .locate(let room) = message { return answerLocate(room, on: id) }
      if case .tunnel(let secret) = message {
        return attachTunnel(secret: secret, on: id, at: now)
      }
      if case .hello(let version, let name, let room, let resume, let protect, let key) = message {
        return hello(
          id,
          RoomAdmission.Hello(
            version: version, name: name, room: room, resume: resume, protect: protect,
            resumeKey: key),
          at: now)
      }
      return fatal(id, .helloRequired, "say hello first", at: now)
    }
    switch message {
    case .hello, .proof, .locate, .tunnel:
      return [
        .send(.error(code: .alreadyGreeted, message: "already said hello", fatal: false), to: id)
      ]
    case .ping(let pingID, let t0):
      return [.pong(to: id, id: pingID, t0: t0, t1: now)]
    case .command(let commandID, let command):
      if let refusal = refusingChanges ?? cutOffRefusal(member.room),
        !Self.describesPlayer(command)
      {
        return request(commandID, from: member.participant, in: member.room, via: id) { _ in
          ([], .rejected(id: commandID, reason: .unavailable(refusal)))
        }
      }
      return request(commandID, from: member.participant, in: member.room, via: id) {
        $0.apply(command, id: commandID, from: member.participant, in: member.room, at: now)
      }
    case .send(let seq, let to, let kind, let body, let keep):
      if let refusal = cutOffRefusal(member.room) {
        return request(seq, from: member.participant, in: member.room, via: id) { _ in
          ([], .rejected(id: seq, reason: .unavailable(refusal)))
        }
      }
      let recipients =
        switch to {
        case .all: max(0, (rooms[member.room]?.members.count ?? 1) - 1)
        case .only(let ids): ids.count
        }
      let cost =
        Double(EncodedSize.jsonString(body) + kind.rawValue.utf8.count) * Double(recipients)
      if connections[id]?.messageBytes.take(
        cost, at: now, rate: configuration.messageBytesPerSecond,
        burst: configuration.messageByteBurst) == false
      {
        let text =
          "messages are going out faster than \(Int(configuration.messageBytesPerSecond / 1024)) KiB a second; wait a moment"
        return request(seq, from: member.participant, in: member.room, via: id) { _ in
          ([], .rejected(id: seq, reason: .invalidValue(text)))
        }
      }
      return request(seq, from: member.participant, in: member.room, via: id) {
        $0.deliver(
          seq: seq, to: to, kind: kind, body: body, keep: keep, from: member.participant,
          in: member.room)
      }
    case .expire(let requestID):
      return request(requestID, from: member.participant, in: member.room, via: id) { _ in
        let reason = Rejection.invalidValue(
          "not applied: it waited too long for the connection to come back")
        return ([], .rejected(id: requestID, reason: reason))
      }
    case .resync:
      // The answer is the whole room state, so it is coalesced: at most one per
      // `resyncInterval` per connection; asking again meanwhile gets one answer later.
      if let last = connection.lastResync,
        now.seconds(since: last) < configuration.resyncInterval
      {
        connections[id]?.resyncPending = true
        return []
      }
      return answerResync(id, at: now)
    case .bye:
      return [.close(id)] + remove(connection: id, reason: .quit, at: now)
    case .carry(let offer):
      return carry(offer, from: member.participant, in: member.room, via: id)
    case .tunnelOpen(let ref, let lender):
      return openTunnel(
        ref: ref, to: lender, from: member.participant, in: member.room, via: id, at: now)
    }
  }

  /// The transport closed. A member keeps its place for the reconnect grace.
  public mutating func disconnected(_ id: ConnectionID, at now: GroupInstant) -> [RelayAction] {
    if tunnels.byHalf[id] != nil { return tunnelHalfClosed(id) }
    guard let connection = connections.removeValue(forKey: id) else { return [] }
    guard let (roomName, participant) = connection.member,
      var room = rooms[roomName], var member = room.members[participant],
      member.connection == id
    else { return [] }
    member.connection = nil
    member.disconnectedAt = now
    let carry = member.carry
    if carry != nil {
      member.carry = nil
      member.carryReachable = nil
      successionsToSettle.insert(roomName)
    }
    room.members[participant] = member
    if feedsSuccessors { room.carrying.cutOff.missing(participant) }
    rooms[roomName] = room
    // Only a successor that was fed holds a copy it could carry the room on with.
    if let carry, room.carrying.feed.members.contains(participant) {
      lostSuccessor(participant, at: carry, in: roomName, at: now)
    }
    return applyInternal(.setConnected(false), from: participant, in: roomName, at: now)
      + [.log(.info, "\(roomName)/\(participant) disconnected; keeping its place")]
      + settleCutOff(roomName, at: now) + settleSuccessions(at: now)
  }

  /// Time-driven rules: hello and heartbeat timeouts, expired reconnect graces, engine
  /// deadlines (waits, item ends).
  public mutating func tick(at now: GroupInstant) -> [RelayAction] {
    var actions: [RelayAction] = []
    // Ticks come at least every 0.2 s. A longer gap means the relay itself did not run
    // (stopped, suspended, starved of CPU): nobody could be heard meanwhile, so that time
    // does not count as anyone's silence.
    if let last = lastSweep, now.seconds(since: last) > Self.stallThreshold {
      let stalled = now.seconds(since: last) - 0.2
      forgiveSilence(of: stalled)
      actions.append(
        .log(
          .notice, "the relay did not run for \(Int(stalled.rounded())) s; not counted as silence"))
    }
    if lastSweep.map({ now.seconds(since: $0) >= 0.2 }) ?? true {
      lastSweep = now
      actions += sweepConnections(at: now)
      actions += expireTunnels(at: now)
      if feedsSuccessors {
        forgivePassedOver(at: now)
        actions += locateLostSuccessors(at: now)
        for name in rooms.keys.sorted() { actions += settleCutOff(name, at: now) }
      }
    }
    for (id, connection) in connections.sorted(by: { $0.key < $1.key })
    where connection.resyncPending
      && connection.lastResync.map({ now.seconds(since: $0) >= configuration.resyncInterval })
        ?? true
    {
      actions += answerResync(id, at: now)
    }
    for name in rooms.keys.sorted() where rooms[name]?.engineDeadline.map({ $0 <= now }) == true {
      actions += catchUp(name, at: now)
    }
    return actions + settleSuccessions(at: now)
  }

  /// A gap between ticks longer than this, seconds, is a stall of the relay itself.
  static let stallThreshold = 1.0

  mutating func forgiveSilence(of seconds: Double) {
    for (id, var connection) in connections {
      connection.lastSeen = connection.lastSeen.advanced(bySeconds: seconds)
      connection.since = connection.since.advanced(bySeconds: seconds)
      connections[id] = connection
    }
    for (name, var room) in rooms {
      for (participant, var member) in room.members {
        member.disconnectedAt = member.disconnectedAt?.advanced(bySeconds: seconds)
        room.members[participant] = member
      }
      rooms[name] = room
    }
  }

  /// The latest time by which ``tick(at:)`` should be called.
  public func nextDeadline(after now: GroupInstant) -> GroupInstant {
    var next = now.advanced(bySeconds: 0.2)
    for room in rooms.values {
      if let d = room.engineDeadline, d < next { next = d }
    }
    return next
  }

  mutating func answerResync(_ id: ConnectionID, at now: GroupInstant) -> [RelayAction] {
    guard let member = connections[id]?.member, let state = rooms[member.room]?.engine.state
    else { return [] }
    connections[id]?.lastResync = now
    connections[id]?.resyncPending = false
    return [.send(.update(state: state, events: []), to: id)]
  }

  // MARK: - Secrets

  /// 128 bits from the system's cryptographically secure generator (`getrandom` on
  /// Linux), as 32 hex digits: one member's secret says nothing about another's.
  public static func systemSecret() -> String {
    var generator = SystemRandomNumberGenerator()
    return [generator.next(), generator.next()].map { (word: UInt64) in
      let hex = String(word, radix: 16)
      return String(repeating: "0", count: 16 - hex.count) + hex
    }.joined()
  }
}
