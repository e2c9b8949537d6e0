import PlaybackCoordination

/// A message from the relay to a participant. One JSON object per line; see
/// docs/PROTOCOL.md.
public enum ServerMessage: Hashable, Sendable {
  /// Answer to `hello`: who you are in the room, how to resume, and the full state, so a
  /// late joiner starts where the group is at once.
  case welcome(Welcome)
  /// Answer to a hello for a password-protected room: prove you know the password
  /// (``ClientMessage/proof(signature:)``) before the welcome. A resume with a valid token
  /// needs no proof.
  case challenge(RoomChallenge)
  /// The room's whole state: the answer to `resync`, and after a resume. `events` may
  /// carry the changes that led to it.
  case update(state: GroupState, events: [ChangeEvent])
  /// One input the relay applied to the room's engine, in order; participants replay it on
  /// their replica (``GroupEngine/replay(_:)``) to reach the same state and changes.
  case step(SequencedStep)
  /// The command `id` was applied (or was a resend of one already taken); its change, if
  /// any, reached the room (the sender too) as a `step` sent before this.
  case accepted(id: UInt64, sequence: UInt64)
  /// The command `id` did not apply; nothing changed.
  case rejected(id: UInt64, reason: Rejection)
  /// Answer to `ping`: `t1` when the relay received it, `t2` when it answered (group
  /// clock).
  case pong(id: UInt64, t0: LocalInstant, t1: GroupInstant, t2: GroupInstant)
  /// A messenger payload from another participant; `to` lists its recipients when it was
  /// meant for some people only (nil: for everyone in the room). `earlier`: said before
  /// this member entered, from the room's backlog (sent once, right after a new member's
  /// welcome; version 17).
  case message(
    from: ParticipantID, fromName: String, seq: UInt64, kind: MessageKind, body: String,
    to: [ParticipantID]? = nil, earlier: Bool = false)
  /// Something was wrong; if `fatal`, the relay closes the connection after it.
  case error(code: ErrorCode, message: String, fatal: Bool)
  /// The room lives on another relay of the same database: connect there with the same
  /// hello (the relay closes this connection after it).
  case redirect(room: String, relay: RelayEndpoint)
  /// The members ready to carry the room if this relay goes, in the order they take it
  /// (the longest present first); sent to everyone whenever it changes, and after a
  /// welcome. Empty: nobody can.
  case succession([Successor])
  /// To a successor only: what changed in the room (the whole room, member by member,
  /// when it becomes one), so that its relay can carry the room on from where it is.
  case replica(RoomChange)
  /// To the first successor only, when the relay hands the room over (its host left):
  /// carry `room` now; the others are redirected to you after this.
  case handover(room: String)
  /// Answer to `locate`: whether this relay runs `room` now, and at which term (see
  /// ``StoredRoom/term``; the connection closes after it).
  case located(room: String, here: Bool, term: UInt64? = nil)
  /// Answer to `tunnelOpen` `ref`: the ticket's secret, for the tunnel's first line
  /// (``ClientMessage/tunnel(secret:)``). The lender was called with a secret of its own.
  case tunnelTicket(ref: UInt64, secret: String)
  /// Answer to `tunnelOpen` `ref`: no tunnel, and why, in words.
  case tunnelRefused(ref: UInt64, reason: String)
  /// To a lender: `borrower` asked for a tunnel to you; open the other half with `secret`.
  case tunnelCall(secret: String, borrower: ParticipantID)
  /// On a tunnel's connection: both halves are there; what follows is the other side's bytes.
  case tunnelReady
}

/// The relay's answer to a hello.
public struct Welcome: Hashable, Sendable {
  public var participant: ParticipantID
  public var room: String
  public var resume: ResumeToken
  public var configuration: EngineConfiguration
  public var state: GroupState
  /// True when this connection resumed an existing place in the room.
  public var resumed: Bool
  /// Chosen at random when the relay process starts: a participant that sees it change
  /// knows the relay restarted (its sequence numbers start again).
  public var relayEpoch: String
  /// Other relays sharing this relay's database, alive a moment ago: where to reconnect
  /// when this one stops answering (empty for a relay on its own).
  public var relays: [RelayEndpoint]
  /// Whether this relay keeps a room nobody is in when its owner asks
  /// (``RoomControl/kept``): a front offers that only where it works (a `cowatch host`
  /// relay ends with its room, so it keeps none).
  public var keepsRooms: Bool

  public init(
    participant: ParticipantID, room: String, resume: ResumeToken,
    configuration: EngineConfiguration, state: GroupState, resumed: Bool, relayEpoch: String,
    relays: [RelayEndpoint] = [], keepsRooms: Bool = false
  ) {
    self.keepsRooms = keepsRooms
    self.relays = relays
    self.participant = participant
    self.room = room
    self.resume = resume
    self.configuration = configuration
    self.state = state
    self.resumed = resumed
    self.relayEpoch = relayEpoch
  }
}

/// Machine-readable error codes; the message says the same for people.
public enum ErrorCode: String, Hashable, Sendable, CaseIterable {
  case malformedFrame
  case frameTooLarge
  case unsupportedVersion
  case helloRequired
  case alreadyGreeted
  case roomFull
  case invalidHello
  case rateLimited
  case messageTooLarge
  case unknownRecipient
  /// Fatal: the relay holds as many connections as it allows (in all, or from your
  /// address).
  case tooManyConnections
  /// Fatal: your address has created as many rooms (that still exist) as the relay allows.
  case tooManyRooms
  /// Not fatal: messenger payloads sent to you while away were more than the relay keeps.
  case messagesLost
  case heartbeatTimeout
  case serverShuttingDown
  /// Fatal: the room's owner locked it; nobody new enters (those with a place may resume).
  case roomLocked
  /// Fatal: the room's owner removed you; your place is gone (a resume enters anew).
  case removedFromRoom
  /// Fatal: the proof answering the room's challenge was wrong (or came too late).
  case wrongPassword
  /// Fatal: you asked for a password-protected room by that name, but it exists without
  /// one; entering it would give you none of the protection you asked for.
  case roomNotProtected
  /// Fatal, sent in the clear: a plain connection reached a relay that only speaks TLS.
  case tlsRequired
  /// Not fatal: the relay cannot reach the database its rooms are kept in, or no longer
  /// holds this room's lease there; try again (another relay, or in a moment).
  case storeUnavailable
  /// Fatal: the relay is ending for good and its rooms with it (the host whose process ran
  /// it left): reconnecting would find nothing, so clients stop and say why.
  case roomClosed
  /// Not fatal: the room's relay lost touch with enough of its members that they may be
  /// carrying the room on elsewhere (a network cut in two): changes and messages wait until
  /// they are back. Sent again, with other words, when they are.
  case cutOff
  /// Fatal, on a tunnel's connection: no tunnel has that secret (its ticket expired, or was
  /// never given), or this relay does not carry lent copies.
  case tunnelRefused
}

extension ServerMessage: Codable {
  private enum CodingKeys: String, CodingKey {
    case type, welcome, challenge, state, events, step, id, sequence, reason, t0, t1, t2, from,
      fromName, seq
    case kind, body, code, message, fatal, room, relay, to, successors, change, here, term
    case ref, secret, borrower, earlier
  }

  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    switch try c.decodeWireType(Self.self, forKey: .type) {
    case .welcome:
      self = .welcome(try c.decode(Welcome.self, forKey: .welcome))
    case .challenge:
      self = .challenge(try c.decode(RoomChallenge.self, forKey: .challenge))
    case .update:
      self = .update(
        state: try c.decode(GroupState.self, forKey: .state),
        events: try c.decode([ChangeEvent].self, forKey: .events))
    case .step:
      self = .step(try c.decode(SequencedStep.self, forKey: .step))
    case .accepted:
      self = .accepted(
        id: try c.decode(UInt64.self, forKey: .id),
        sequence: try c.decode(UInt64.self, forKey: .sequence))
    case .rejected:
      self = .rejected(
        id: try c.decode(UInt64.self, forKey: .id),
        reason: try c.decode(Rejection.self, forKey: .reason))
    case .pong:
      self = .pong(
        id: try c.decode(UInt64.self, forKey: .id),
        t0: try c.decode(LocalInstant.self, forKey: .t0),
        t1: try c.decode(GroupInstant.self, forKey: .t1),
        t2: try c.decode(GroupInstant.self, forKey: .t2))
    case .message:
      self = .message(
        from: try c.decode(ParticipantID.self, forKey: .from),
        fromName: try c.decode(String.self, forKey: .fromName),
        seq: try c.decode(UInt64.self, forKey: .seq),
        kind: try c.decode(MessageKind.self, forKey: .kind),
        body: try c.decode(String.self, forKey: .body),
        to: try c.decodeIfPresent([ParticipantID].self, forKey: .to),
        earlier: try c.decodeIfPresent(Bool.self, forKey: .earlier) ?? false)
    case .error:
      self = .error(
        code: try c.decode(ErrorCode.self, forKey: .code),
        message: try c.decode(String.self, forKey: .message),
        fatal: try c.decode(Bool.self, forKey: .fatal))
    case .redirect:
      self = .redirect(
        room: try c.decode(String.self, forKey: .room),
        relay: try c.decode(RelayEndpoint.self, forKey: .relay))
    case .succession:
      let successors = try c.decode([Successor].self, forKey: .successors)
      guard successors.count <= Successor.maximumCount else {
        throw DecodingError.dataCorruptedError(
          forKey: .successors, in: c, debugDescription: "at most 8 successors")
      }
      self = .succession(successors)
    case .replica:
      self = .replica(try c.decode(RoomChange.self, forKey: .change))
    case .handover:
      self = .handover(room: try c.decode(String.self, forKey: .room))
    case .located:
      self = .located(
        room: try c.decode(String.self, forKey: .room),
        here: try c.decode(Bool.self, forKey: .here),
        term: try c.decodeIfPresent(UInt64.self, forKey: .term))
    case .tunnelTicket:
      let secret = try c.decode(String.self, forKey: .secret)
      guard TunnelSecret.isPlausible(secret) else {
        throw DecodingError.dataCorruptedError(
          forKey: .secret, in: c, debugDescription: "not a tunnel secret (32 hex digits)")
      }
      self = .tunnelTicket(ref: try c.decode(UInt64.self, forKey: .ref), secret: secret)
    case .tunnelRefused:
      self = .tunnelRefused(
        ref: try c.decode(UInt64.self, forKey: .ref),
        reason: try c.decode(String.self, forKey: .reason))
    case .tunnelCall:
      let secret = try c.decode(String.self, forKey: .secret)
      guard TunnelSecret.isPlausible(secret) else {
        throw DecodingError.dataCorruptedError(
          forKey: .secret, in: c, debugDescription: "not a tunnel secret (32 hex digits)")
      }
      self = .tunnelCall(
        secret: secret, borrower: try c.decode(ParticipantID.self, forKey: .borrower))
    case .tunnelReady:
      self = .tunnelReady
    }
  }

  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(wireType.rawValue, forKey: .type)
    switch self {
    case .welcome(let w):
      try c.encode(w, forKey: .welcome)
    case .challenge(let challenge):
      try c.encode(challenge, forKey: .challenge)
    case .update(let state, let events):
      try c.encode(state, forKey: .state)
      try c.encode(events, forKey: .events)
    case .step(let step):
      try c.encode(step, forKey: .step)
    case .accepted(let id, let sequence):
      try c.encode(id, forKey: .id)
      try c.encode(sequence, forKey: .sequence)
    case .rejected(let id, let reason):
      try c.encode(id, forKey: .id)
      try c.encode(reason, forKey: .reason)
    case .pong(let id, let t0, let t1, let t2):
      try c.encode(id, forKey: .id)
      try c.encode(t0, forKey: .t0)
      try c.encode(t1, forKey: .t1)
      try c.encode(t2, forKey: .t2)
    case .message(let from, let fromName, let seq, let kind, let body, let to, let earlier):
      try c.encode(from, forKey: .from)
      try c.encode(fromName, forKey: .fromName)
      try c.encode(seq, forKey: .seq)
      try c.encode(kind, forKey: .kind)
      try c.encode(body, forKey: .body)
      try c.encodeIfPresent(to, forKey: .to)
      if earlier { try c.encode(true, forKey: .earlier) }
    case .error(let code, let message, let fatal):
      try c.encode(code, forKey: .code)
      try c.encode(message, forKey: .message)
      try c.encode(fatal, forKey: .fatal)
    case .redirect(let room, let relay):
      try c.encode(room, forKey: .room)
      try c.encode(relay, forKey: .relay)
    case .succession(let successors):
      try c.encode(successors, forKey: .successors)
    case .replica(let change):
      try c.encode(change, forKey: .change)
    case .handover(let room):
      try c.encode(room, forKey: .room)
    case .located(let room, let here, let term):
      try c.encode(room, forKey: .room)
      try c.encode(here, forKey: .here)
      try c.encodeIfPresent(term, forKey: .term)
    case .tunnelTicket(let ref, let secret):
      try c.encode(ref, forKey: .ref)
      try c.encode(secret, forKey: .secret)
    case .tunnelRefused(let ref, let reason):
      try c.encode(ref, forKey: .ref)
      try c.encode(reason, forKey: .reason)
    case .tunnelCall(let secret, let borrower):
      try c.encode(secret, forKey: .secret)
      try c.encode(borrower, forKey: .borrower)
    case .tunnelReady:
      break
    }
  }
}
