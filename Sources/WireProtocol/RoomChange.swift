import PlaybackCoordination

/// What changed in one room since the last write: its state, the members that are new or
/// changed and those that left. A ``RoomStore`` writes it; a successor (a participant's
/// machine ready to carry a host's room) is fed it over the wire and applies it to its
/// copy (see ``StoredRoom/applying(_:)``).
public struct RoomChange: Sendable, Hashable {
  public var name: String
  /// The room's whole state. A store's batches always carry it; a successor's feed only
  /// when it starts over (`restart`): a successor is a member, and replays every step.
  public var state: GroupState?
  public var nextNumber: UInt64
  /// Members that are new or changed.
  public var members: [StoredMember]
  /// Members that left.
  public var departed: [ParticipantID]
  /// The password verifier, for a room that has one.
  public var protection: RoomProtection?
  /// The first of a whole room: the receiver starts its copy over from it.
  public var restart: Bool
  /// The member whose machine runs the relay, when known: if that relay goes without a
  /// handover, its vote does not count in the election of who carries the room on.
  public var host: ParticipantID?
  /// The room's term at the relay that sent it (see ``StoredRoom/term``).
  public var term: UInt64
  /// The room's whole backlog (``StoredRoom/backlog``) when it changed; nil: as it was.
  public var backlog: [StoredMessage]?

  public init(
    name: String, state: GroupState?, nextNumber: UInt64, members: [StoredMember],
    departed: [ParticipantID], protection: RoomProtection? = nil, restart: Bool = false,
    host: ParticipantID? = nil, term: UInt64 = 1, backlog: [StoredMessage]? = nil
  ) {
    self.term = term
    self.backlog = backlog
    self.restart = restart
    self.host = host
    self.name = name
    self.state = state
    self.nextNumber = nextNumber
    self.members = members
    self.departed = departed
    self.protection = protection
  }
}

extension RoomChange: Codable {
  private enum CodingKeys: String, CodingKey {
    case name, state, nextNumber, members, departed, protection, restart, host, term, backlog
  }

  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    self.init(
      name: try c.decode(String.self, forKey: .name),
      state: try c.decodeIfPresent(GroupState.self, forKey: .state),
      nextNumber: try c.decode(UInt64.self, forKey: .nextNumber),
      members: try c.decode([StoredMember].self, forKey: .members),
      departed: try c.decode([ParticipantID].self, forKey: .departed),
      protection: try c.decodeIfPresent(RoomProtection.self, forKey: .protection),
      restart: try c.decodeIfPresent(Bool.self, forKey: .restart) ?? false,
      host: try c.decodeIfPresent(ParticipantID.self, forKey: .host),
      term: try c.decodeIfPresent(UInt64.self, forKey: .term) ?? 1,
      backlog: try StoredRoom.decodeBacklog(c, forKey: .backlog))
  }

  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(name, forKey: .name)
    try c.encodeIfPresent(state, forKey: .state)
    try c.encode(nextNumber, forKey: .nextNumber)
    try c.encode(members, forKey: .members)
    try c.encode(departed, forKey: .departed)
    try c.encodeIfPresent(protection, forKey: .protection)
    if restart { try c.encode(true, forKey: .restart) }
    try c.encodeIfPresent(host, forKey: .host)
    try c.encode(term, forKey: .term)
    try c.encodeIfPresent(backlog, forKey: .backlog)
  }
}

extension StoredRoom {
  /// The room with `change` applied: state (when it has one), numbering and protection
  /// replaced, members added or replaced, departed members removed. A room not known yet,
  /// or a change that starts over, starts from the change alone. A member fed with only
  /// what is new (``StoredMember/keptFrom`` set) keeps the messages it had from that index
  /// on and the answers above its floor.
  public static func applying(_ change: RoomChange, to room: StoredRoom?) -> StoredRoom {
    let previous = change.restart ? nil : room
    var room =
      previous
      ?? StoredRoom(
        name: change.name, state: change.state ?? GroupState(), nextNumber: 0, members: [])
    if let state = change.state { room.state = state }
    room.nextNumber = change.nextNumber
    room.protection = change.protection
    room.term = change.term
    if let backlog = change.backlog { room.backlog = backlog }
    let departed = Set(change.departed)
    let changed = Dictionary(change.members.map { ($0.participant, $0) }) { $1 }
    room.members = room.members.filter {
      !departed.contains($0.participant) && changed[$0.participant] == nil
    }
    let old = Dictionary((previous?.members ?? []).map { ($0.participant, $0) }) { $1 }
    room.members += change.members.filter { !departed.contains($0.participant) }.map { member in
      guard let keptFrom = member.keptFrom else { return member }
      var merged = member
      let known = Set(member.messages.map(\.index))
      merged.messages =
        ((old[member.participant]?.messages ?? []).filter {
          $0.index >= keptFrom && !known.contains($0.index)
        } + member.messages).sorted { $0.index < $1.index }
      let answered = Set(member.answers.map(\.id))
      merged.answers = Array(
        ((old[member.participant]?.answers ?? []).filter {
          $0.id > member.answerFloor && !answered.contains($0.id)
        } + member.answers).sorted { $0.id < $1.id }.suffix(StoredMember.fedAnswers))
      merged.keptFrom = nil
      return merged
    }
    room.members.sort { $0.participant < $1.participant }
    return room
  }
}
