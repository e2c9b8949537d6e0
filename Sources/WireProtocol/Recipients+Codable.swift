import PlaybackCoordination

/// Wire format (protocol 2): `{"type":"all"}` or `{"type":"only","participants":["p2"]}`.
/// Written by hand so that the format is a decision; see docs/PROTOCOL.md.
extension Recipients: Codable {
  private enum CodingKeys: String, CodingKey {
    case type, participants
  }

  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    switch try c.decodeWireType(Self.self, forKey: .type) {
    case .all:
      self = .all
    case .only:
      self = .only(try c.decode([ParticipantID].self, forKey: .participants))
    }
  }

  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(wireType.rawValue, forKey: .type)
    switch self {
    case .only(let participants):
      try c.encode(participants, forKey: .participants)
    case .all:
      break
    }
  }
}
