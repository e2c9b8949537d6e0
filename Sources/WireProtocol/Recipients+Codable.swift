import PlaybackCoordination

/// Wire format (protocol 2): `{"type":"all"}` or `{"type":"only","participants":["p2"]}`.
/// Written by hand so that the format is a decision; see docs/PROTOCOL.md.
extension Recipients: Codable {
  private enum CodingKeys: String, CodingKey {
    case type, participants
  }

  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    let type = try c.decode(String.self, forKey: .type)
    switch type {
    case "all":
      self = .all
    case "only":
      self = .only(try c.decode([ParticipantID].self, forKey: .participants))
    default:
      throw DecodingError.dataCorruptedError(
        forKey: .type, in: c, debugDescription: "unknown recipients type \"\(type)\"")
    }
  }

  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    switch self {
    case .all:
      try c.encode("all", forKey: .type)
    case .only(let participants):
      try c.encode("only", forKey: .type)
      try c.encode(participants, forKey: .participants)
    }
  }
}
