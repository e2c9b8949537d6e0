import PlaybackCoordination

/// Wire format: `{"type":"answering"}`, `{"type":"loading"}`, `{"type":"stalled"}` or
/// `{"type":"suspended","reason":"interrupted"}`. An object even for the cases without a
/// payload, so that a reader always finds the cause in `type`. Written by hand so that the
/// format is a decision; see docs/PROTOCOL.md.
extension WaitCause: Codable {
  private enum CodingKeys: String, CodingKey {
    case type, reason
  }

  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    switch try c.decodeWireType(Self.self, forKey: .type) {
    case .answering:
      self = .answering
    case .loading:
      self = .loading
    case .stalled:
      self = .stalled
    case .suspended:
      self = .suspended(try c.decode(SuspensionReason.self, forKey: .reason))
    }
  }

  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(wireType.rawValue, forKey: .type)
    switch self {
    case .suspended(let reason):
      try c.encode(reason, forKey: .reason)
    case .answering, .loading, .stalled:
      break
    }
  }
}
