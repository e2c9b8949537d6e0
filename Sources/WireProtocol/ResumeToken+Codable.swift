import PlaybackCoordination

/// Wire format (protocol 2): `{"participant":"p1","secret":"k2j3"}`, and in a resuming
/// hello also `"messagesReceived":12`. Written by hand so that
/// the format is a decision; see docs/PROTOCOL.md.
extension ResumeToken: Codable {
  private enum CodingKeys: String, CodingKey {
    case participant, secret, messagesReceived
  }

  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    participant = try c.decode(ParticipantID.self, forKey: .participant)
    secret = try c.decode(String.self, forKey: .secret)
    messagesReceived = try c.decodeIfPresent(UInt64.self, forKey: .messagesReceived)
  }

  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(participant, forKey: .participant)
    try c.encode(secret, forKey: .secret)
    try c.encodeIfPresent(messagesReceived, forKey: .messagesReceived)
  }
}
