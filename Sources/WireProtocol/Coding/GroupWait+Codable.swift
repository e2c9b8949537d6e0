import PlaybackCoordination

/// Wire format: `{"participant":"p2","cause":CAUSE,"since":NS,"deadline":NS}`.
///
/// Written by hand, not synthesized, so that the format is a decision that a Swift
/// refactor cannot change by accident; see docs/PROTOCOL.md.
extension GroupWait: Codable {
  private enum CodingKeys: String, CodingKey {
    case participant, cause, since, deadline
  }

  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    let participant = try c.decode(ParticipantID.self, forKey: .participant)
    let cause = try c.decode(WaitCause.self, forKey: .cause)
    let since = try c.decode(GroupInstant.self, forKey: .since)
    let deadline = try c.decode(GroupInstant.self, forKey: .deadline)
    self.init(participant: participant, cause: cause, since: since, deadline: deadline)
  }

  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(participant, forKey: .participant)
    try c.encode(cause, forKey: .cause)
    try c.encode(since, forKey: .since)
    try c.encode(deadline, forKey: .deadline)
  }
}
