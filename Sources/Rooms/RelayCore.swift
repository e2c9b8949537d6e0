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

  private var connections: [ConnectionID: Connection] = [:]
  var rooms: [String: Room] = [:]
  /// Makes resume secrets. The relay's runtime gives a cryptographically secure one
  /// (``RelayCore/systemSecret()``); tests may give a predictable one.
  private let makeSecret: @Sendable () -> String
  /// Who may enter which room, and the counters against guessing.
  private var admission: RoomAdmission

  /// Checks a proof for a password-protected room: whether `signature` signs `signed` for
  /// the Ed25519 public key `verifier`. Injected (the runtime gives swift-crypto's) so that
  /// this core stays free of a crypto library; without one, no proof is ever right.
  /// `(signature, signed bytes, verifier) -> valid`.
  public typealias ProofVerifier =
    @Sendable (
      _ signature: [UInt8], _ signed: [UInt8], _ verifier: [UInt8]
    ) -> Bool
  private var lastSweep: GroupInstant?

  /// Names this relay run in every welcome (see ``Welcome/relayEpoch``).
  public let epoch: String

  /// Whether the core notes what changed for a ``RoomStore`` (see
  /// ``takeStoreChanges(clock:)``); without a store it keeps no such list.
  public let tracksStoreChanges: Bool
  var storeChanges = StoreChanges()

  /// Other relays of the same database, listed in every welcome (see ``Welcome/relays``).
  public var peers: [RelayEndpoint] = []
  /// Set while the relay cannot store changes (its database is unreachable): says why, and
  /// commands that would change a room are refused with it instead of being applied and
  /// then lost. Reports and readiness still apply: they only describe players.
  public var refusingChanges: String?

  public init(
    configuration: RelayConfiguration = .init(), epoch: String = "",
    tracksStoreChanges: Bool = false,
    makeSecret: @escaping @Sendable () -> String = RelayCore.systemSecret,
    verifyProof: @escaping ProofVerifier = { _, _, _ in false }
  ) {
    self.configuration = configuration
    self.epoch = epoch
    self.tracksStoreChanges = tracksStoreChanges
    self.makeSecret = makeSecret
    admission = RoomAdmission(configuration: configuration, verifyProof: verifyProof)
  }

  // MARK: - State kept per connection and per room

  private struct Connection {
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
    /// When the whole state was last sent in answer to `resync`.
    var lastResync: GroupInstant?
    /// A `resync` asked for too soon after the last one: answered once, when allowed.
    var resyncPending = false
    /// A hello for a password-protected room, waiting for the proof that answers its
    /// challenge.
    var entry: PendingEntry?
  }

  struct Member {
    var name: String
    /// SHA-256 of the resume secret: the secret itself is only ever in the welcome.
    var secretHash: [UInt8]
    var connection: ConnectionID?
    var disconnectedAt: GroupInstant?
    var requests: RequestWindow
    var messages: MessageLog
  }

  struct Room {
    var engine: GroupEngine
    var members: [ParticipantID: Member] = [:]
    var nextNumber: UInt64 = 1
    var engineDeadline: GroupInstant?
    /// The address whose hello created it, while it counts against that address.
    var creator: String?
    /// Set by its creator's hello: entrants then prove they know the password.
    var protection: RoomProtection?

    var connections: [ConnectionID] {
      members.values.compactMap(\.connection).sorted()
    }
  }

  // MARK: - Introspection (for the edge's status and for tests)

  public var roomNames: [String] { rooms.keys.sorted() }
  public func hasRoom(_ name: String) -> Bool { rooms[name] != nil }
  public var connectionCount: Int { connections.count }
  public func state(ofRoom name: String) -> GroupState? { rooms[name]?.engine.state }
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
      bucket: TokenBucket(burst: configuration.messageBurst, at: now))
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
    for id in room.connections {
      connections[id] = nil
      actions.append(
        .send(.error(code: .storeUnavailable, message: reason, fatal: false), to: id))
      actions.append(.close(id))
    }
    return actions
  }

  private mutating func dropRoom(_ name: String) {
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
  private mutating func charge(_ id: ConnectionID, at now: GroupInstant) -> [RelayAction]? {
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
      if case .hello(let version, let name, let room, let resume, let protect) = message {
        return hello(
          id,
          RoomAdmission.Hello(
            version: version, name: name, room: room, resume: resume, protect: protect),
          at: now)
      }
      return fatal(id, .helloRequired, "say hello first", at: now)
    }
    switch message {
    case .hello, .proof:
      return [
        .send(.error(code: .alreadyGreeted, message: "already said hello", fatal: false), to: id)
      ]
    case .ping(let pingID, let t0):
      return [.pong(to: id, id: pingID, t0: t0, t1: now)]
    case .command(let commandID, let command):
      if let refusal = refusingChanges, !Self.describesPlayer(command) {
        return request(commandID, from: member.participant, in: member.room, via: id) { _ in
          ([], .rejected(id: commandID, reason: .unavailable(refusal)))
        }
      }
      return request(commandID, from: member.participant, in: member.room, via: id) {
        $0.apply(command, id: commandID, from: member.participant, in: member.room, at: now)
      }
    case .send(let seq, let to, let kind, let body):
      return request(seq, from: member.participant, in: member.room, via: id) {
        $0.deliver(
          seq: seq, to: to, kind: kind, body: body, from: member.participant, in: member.room)
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
    }
  }

  /// The transport closed. A member keeps its place for the reconnect grace.
  public mutating func disconnected(_ id: ConnectionID, at now: GroupInstant) -> [RelayAction] {
    guard let connection = connections.removeValue(forKey: id) else { return [] }
    guard let (roomName, participant) = connection.member,
      var room = rooms[roomName], var member = room.members[participant],
      member.connection == id
    else { return [] }
    member.connection = nil
    member.disconnectedAt = now
    room.members[participant] = member
    rooms[roomName] = room
    return applyInternal(.setConnected(false), from: participant, in: roomName, at: now)
      + [.log(.info, "\(roomName)/\(participant) disconnected; keeping its place")]
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
    return actions
  }

  /// A gap between ticks longer than this, seconds, is a stall of the relay itself.
  static let stallThreshold = 1.0

  private mutating func forgiveSilence(of seconds: Double) {
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

  private mutating func answerResync(_ id: ConnectionID, at now: GroupInstant) -> [RelayAction] {
    guard let member = connections[id]?.member, let state = rooms[member.room]?.engine.state
    else { return [] }
    connections[id]?.lastResync = now
    connections[id]?.resyncPending = false
    return [.send(.update(state: state, events: []), to: id)]
  }

  // MARK: - Hello

  private mutating func hello(
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
        name: name, room: hello.room, protection: protection, nonce: nonce, challenged: now)
      return [
        .send(.challenge(RoomChallenge(derivation: protection.derivation, nonce: nonce)), to: id)
      ]
    case .enter(let name, let room):
      return enter(id, name: name, room: room, named: hello.room, isNew: existing == nil, at: now)
    }
  }

  /// A member takes its place again on connection `id` (after a dropped connection, or
  /// from another one that is then closed), with the messages it missed meanwhile.
  private mutating func resume(
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
    if wasDisconnected {
      actions += applyInternal(
        .setConnected(true), from: resume.participant, in: roomName, at: now, except: id)
    }
    let welcome = Welcome(
      participant: resume.participant, room: roomName,
      resume: ResumeToken(participant: resume.participant, secret: resume.secret),
      configuration: configuration.engine, state: rooms[roomName]!.engine.state, resumed: true,
      relayEpoch: epoch, relays: peers)
    actions.insert(.send(.welcome(welcome), to: id), at: 0)
    if missed > 0 {
      let text =
        "\(missed) \(missed == 1 ? "message" : "messages") sent to you while you were away could not be kept"
      actions.append(.send(.error(code: .messagesLost, message: text, fatal: false), to: id))
    }
    actions += pending.map { .send($0, to: id) }
    actions.append(
      .log(.info, "\(roomName)/\(resume.participant) resumed on \(id)", about: id))
    return actions
  }

  /// A new member enters `room` (created now when `isNew`) on connection `id`.
  private mutating func enter(
    _ id: ConnectionID, name: String, room: Room, named roomName: String, isNew: Bool,
    at now: GroupInstant
  ) -> [RelayAction] {
    var room = room
    let participant = ParticipantID("p\(room.nextNumber)")
    let origin = connections[id]?.origin ?? .cowatch
    room.nextNumber += 1
    let secret = makeSecret()
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
    room.members[participant] = Member(
      name: name, secretHash: SecretHash.of(secret), connection: id,
      requests: RequestWindow(capacity: configuration.requestWindow),
      messages: MessageLog(
        maximumCount: configuration.maximumPendingMessages,
        maximumBytes: configuration.maximumPendingMessageBytes))
    rooms[roomName] = room
    connections[id]?.member = (roomName, participant)
    markChanged(roomName, member: participant)
    let welcome = Welcome(
      participant: participant, room: roomName,
      resume: ResumeToken(participant: participant, secret: secret),
      configuration: configuration.engine, state: engine.state, resumed: false,
      relayEpoch: epoch, relays: peers)
    return [
      .send(.welcome(welcome), to: id),
      .log(.info, "\(roomName)/\(participant) \"\(name)\" entered on \(id)", about: id),
    ]
      + broadcastStep(
        in: roomName, before: before, at: now,
        input: .command(.enter(name: name, origin: origin), from: participant), except: id)
  }

  /// The proof answering a challenge: right, the hello goes on as if just received; wrong,
  /// one clear error and the connection closes, counted against the address and the room.
  private mutating func prove(
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
        protect: protect, proven: true),
      at: now)
  }

  // MARK: - Commands

  /// Runs the room's time-driven rules that fell due before `now`, so that a command is
  /// applied to the state the group is really in (an item that ended has advanced, a wait
  /// that timed out is over).
  private mutating func catchUp(_ roomName: String, at now: GroupInstant) -> [RelayAction] {
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
  private mutating func request(
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

  private mutating func apply(
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

  // MARK: - Messenger

  /// A messenger kind names a message type ("chat", "reaction"), bytes.
  public static let maximumKindBytes = 64

  private mutating func deliver(
    seq: UInt64, to recipients: Recipients, kind: MessageKind, body: String,
    from participant: ParticipantID, in roomName: String
  ) -> (actions: [RelayAction], answer: ServerMessage) {
    guard var room = rooms[roomName], let sender = room.members[participant] else {
      return ([], .rejected(id: seq, reason: .unknownParticipant(participant)))
    }
    if body.utf8.count + kind.rawValue.utf8.count > configuration.maximumMessageBytes {
      let text =
        "message of \(body.utf8.count) bytes is over the \(configuration.maximumMessageBytes)-byte limit"
      return ([], .rejected(id: seq, reason: .invalidValue(text)))
    }
    do throws(Rejection) {
      try DisplayText.check(
        kind.rawValue, as: "a message kind", maximumBytes: Self.maximumKindBytes)
    } catch {
      return ([], .rejected(id: seq, reason: error))
    }
    if room.protection != nil, kind != RoomProtection.sealedKind {
      let text = "room \(roomName) has a password: its messages travel sealed end to end"
      return ([], .rejected(id: seq, reason: .invalidValue(text)))
    }
    let targets: [ParticipantID]
    switch recipients {
    case .all:
      targets = room.members.keys.filter { $0 != participant }.sorted()
    case .only(let ids):
      let unknown = ids.filter { room.members[$0] == nil }
      guard unknown.isEmpty else {
        let text = "not in this room: \(unknown.map(\.rawValue).joined(separator: ", "))"
        return ([], .rejected(id: seq, reason: .invalidValue(text)))
      }
      targets = Array(Set(ids)).sorted()
    }
    let privately: [ParticipantID]? =
      if case .only = recipients { targets } else { nil }
    let message = ServerMessage.message(
      from: participant, fromName: sender.name, seq: seq, kind: kind, body: body, to: privately)
    var live: [ConnectionID] = []
    let size = kind.rawValue.utf8.count + body.utf8.count + sender.name.utf8.count + 64
    var notices: [RelayAction] = []
    for target in targets {
      guard var member = room.members[target] else { continue }
      if let c = member.connection { live.append(c) }
      let dropped = member.messages.append(message, size: size, live: member.connection != nil)
      room.members[target] = member
      markChanged(roomName, member: target)
      // Nothing lost silently: whoever sent a payload that had to be dropped hears of it
      // (the member hears how many on its return).
      var bySender: [ParticipantID: Int] = [:]
      for case .message(let from, _, _, _, _, _) in dropped { bySender[from, default: 0] += 1 }
      for (from, n) in bySender.sorted(by: { $0.key < $1.key }) {
        guard let c = room.members[from]?.connection else { continue }
        let text =
          "\(n) of your messages to \(member.name) \(n == 1 ? "was" : "were") dropped: \(member.name) is away and more than the relay keeps are waiting"
        notices.append(.send(.error(code: .messagesLost, message: text, fatal: false), to: c))
      }
    }
    rooms[roomName] = room
    let sequence = room.engine.state.sequence
    return (
      (live.isEmpty ? [] : [.broadcast(message, to: live)]) + notices,
      .accepted(id: seq, sequence: sequence)
    )
  }

  // MARK: - Membership housekeeping

  /// "5 s", "2.5 s": a limit as the person who reads the error would write it.
  static func seconds(_ value: Double) -> String {
    value == value.rounded() && abs(value) < 1e9 ? "\(Int(value)) s" : "\(value) s"
  }

  private mutating func sweepConnections(at now: GroupInstant) -> [RelayAction] {
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
        if let since = member.disconnectedAt,
          now.seconds(since: since) > configuration.reconnectGrace
        {
          actions += removeMember(participant, from: name, reason: .disconnected, at: now)
        }
      }
    }
    return actions
  }

  private mutating func remove(
    connection id: ConnectionID, reason: ExitReason, at now: GroupInstant
  ) -> [RelayAction] {
    guard let connection = connections.removeValue(forKey: id),
      let (roomName, participant) = connection.member,
      rooms[roomName]?.members[participant]?.connection == id
    else { return [] }
    return removeMember(participant, from: roomName, reason: reason, at: now)
  }

  private mutating func removeMember(
    _ participant: ParticipantID, from roomName: String, reason: ExitReason, at now: GroupInstant
  ) -> [RelayAction] {
    guard var room = rooms[roomName], room.members[participant] != nil else { return [] }
    room.members[participant] = nil
    rooms[roomName] = room
    markDeparted(roomName, member: participant)
    var actions = applyInternal(.exit(reason: reason), from: participant, in: roomName, at: now)
    actions.append(.log(.info, "\(roomName)/\(participant) left (\(reason.rawValue))"))
    if rooms[roomName]?.members.isEmpty == true {
      dropRoom(roomName)
      actions.append(.log(.info, "room \(roomName) is empty; dropped"))
    }
    return actions
  }

  /// After the owner removed `target` in the engine: its connection is told and closed, and
  /// its place (resume secret, pending messages, answers) forgotten, so that it cannot come
  /// back as the same member.
  private mutating func dismiss(
    _ target: ParticipantID, from roomName: String, by owner: ParticipantID
  ) -> [RelayAction] {
    guard var room = rooms[roomName], let member = room.members.removeValue(forKey: target) else {
      return []
    }
    let ownerName = room.members[owner]?.name ?? "the room's owner"
    rooms[roomName] = room
    markDeparted(roomName, member: target)
    var actions: [RelayAction] = [.log(.info, "\(roomName)/\(target) removed by \(owner)")]
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

  private mutating func fatal(
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
  private func broadcastStep(
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

  // MARK: - Validation

  public static func isValidRoom(_ room: String) -> Bool {
    (1...64).contains(room.count)
      && room.unicodeScalars.allSatisfy {
        ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0)))
          || $0 == "-" || $0 == "_" || $0 == "."
      }
  }
}
