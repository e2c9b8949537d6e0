import PlaybackCoordination

/// Wire format: `{"type":"<case>", <named fields>}`, e.g.
/// `{"type":"rateOutOfRange","rate":9,"allowed":{"min":0.25,"max":4}}`. Written by hand so
/// that the format is a decision; see docs/PROTOCOL.md.
extension Rejection: Codable {
  private enum CodingKeys: String, CodingKey {
    case type, participant, reasons, sent, current, item, position, duration, rate, allowed
    case name, message, owner, entry
  }

  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    switch try c.decodeWireType(Self.self, forKey: .type) {
    case .unknownParticipant:
      self = .unknownParticipant(try c.decode(ParticipantID.self, forKey: .participant))
    case .alreadyInRoom:
      self = .alreadyInRoom(try c.decode(ParticipantID.self, forKey: .participant))
    case .notJoined:
      self = .notJoined
    case .alreadyJoined:
      self = .alreadyJoined
    case .noSession:
      self = .noSession
    case .suspended:
      self = .suspended(try c.decode([SuspensionReason].self, forKey: .reasons))
    case .notSuspended:
      self = .notSuspended
    case .staleItem:
      self = .staleItem(
        sent: try c.decode(ItemID.self, forKey: .sent),
        current: try c.decode(ItemID.self, forKey: .current))
    case .unknownItem:
      self = .unknownItem(try c.decode(ItemID.self, forKey: .item))
    case .notInQueue:
      self = .notInQueue(entry: try c.decode(UInt64.self, forKey: .entry))
    case .positionOutOfRange:
      self = .positionOutOfRange(
        position: try c.decode(Double.self, forKey: .position),
        duration: try c.decode(Double.self, forKey: .duration))
    case .rateOutOfRange:
      self = .rateOutOfRange(
        rate: try c.decode(Double.self, forKey: .rate), allowed: try c.decodeRange(forKey: .allowed)
      )
    case .needsConfirmation:
      self = .needsConfirmation(try c.decode(ItemID.self, forKey: .item))
    case .advanceNotApplicable:
      self = .advanceNotApplicable(try c.decode(ItemID.self, forKey: .item))
    case .emptySeries:
      self = .emptySeries
    case .invalidName:
      self = .invalidName(try c.decode(String.self, forKey: .name))
    case .invalidValue:
      self = .invalidValue(try c.decode(String.self, forKey: .message))
    case .notOwner:
      self = .notOwner(owner: try c.decodeIfPresent(String.self, forKey: .owner))
    case .ownerControlsPlayback:
      self = .ownerControlsPlayback(owner: try c.decodeIfPresent(String.self, forKey: .owner))
    case .unavailable:
      self = .unavailable(try c.decode(String.self, forKey: .message))
    }
  }

  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(wireType.rawValue, forKey: .type)
    switch self {
    case .unknownParticipant(let participant):
      try c.encode(participant, forKey: .participant)
    case .alreadyInRoom(let participant):
      try c.encode(participant, forKey: .participant)
    case .suspended(let reasons):
      try c.encode(reasons, forKey: .reasons)
    case .staleItem(let sent, let current):
      try c.encode(sent, forKey: .sent)
      try c.encode(current, forKey: .current)
    case .notInQueue(let entry):
      try c.encode(entry, forKey: .entry)
    case .unknownItem(let item):
      try c.encode(item, forKey: .item)
    case .positionOutOfRange(let position, let duration):
      try c.encode(position, forKey: .position)
      try c.encode(duration, forKey: .duration)
    case .rateOutOfRange(let rate, let allowed):
      try c.encode(rate, forKey: .rate)
      try c.encodeRange(allowed, forKey: .allowed)
    case .needsConfirmation(let item):
      try c.encode(item, forKey: .item)
    case .advanceNotApplicable(let item):
      try c.encode(item, forKey: .item)
    case .invalidName(let name):
      try c.encode(name, forKey: .name)
    case .invalidValue(let message):
      try c.encode(message, forKey: .message)
    case .notOwner(let owner):
      try c.encodeIfPresent(owner, forKey: .owner)
    case .ownerControlsPlayback(let owner):
      try c.encodeIfPresent(owner, forKey: .owner)
    case .unavailable(let message):
      try c.encode(message, forKey: .message)
    case .notJoined, .alreadyJoined, .noSession, .notSuspended, .emptySeries:
      break
    }
  }
}
