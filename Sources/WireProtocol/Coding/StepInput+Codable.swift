import PlaybackCoordination

/// Wire format: `{"type":"command","command":COMMAND,"from":"p2"}` or
/// `{"type":"tick"}`. Written by hand so that the format is a decision; see
/// docs/PROTOCOL.md.
extension StepInput: Codable {
  private enum CodingKeys: String, CodingKey {
    case type, command, from
  }

  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    switch try c.decodeWireType(Self.self, forKey: .type) {
    case .command:
      self = .command(
        try c.decode(GroupCommand.self, forKey: .command),
        from: try c.decode(ParticipantID.self, forKey: .from))
    case .tick:
      self = .tick
    }
  }

  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(wireType.rawValue, forKey: .type)
    switch self {
    case .command(let command, let from):
      try c.encode(command, forKey: .command)
      try c.encode(from, forKey: .from)
    case .tick:
      break
    }
  }
}
