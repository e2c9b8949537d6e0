/// Wire format (protocol 2): an object with every stored property by name; `session` and
/// `lastChange` are omitted when absent.
///
/// Written by hand, not synthesized, so that the format is a decision that a Swift
/// refactor cannot change by accident; see docs/PROTOCOL.md.
extension GroupState: Codable {
  private enum CodingKeys: String, CodingKey {
    case sequence, participants, session, lastChange, sessionCounter
  }

  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    sequence = try c.decode(UInt64.self, forKey: .sequence)
    participants = try c.decode([Participant].self, forKey: .participants)
    session = try c.decodeIfPresent(WatchSession.self, forKey: .session)
    lastChange = try c.decodeIfPresent(ChangeEvent.self, forKey: .lastChange)
    sessionCounter = try c.decode(UInt64.self, forKey: .sessionCounter)
  }

  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(sequence, forKey: .sequence)
    try c.encode(participants, forKey: .participants)
    try c.encodeIfPresent(session, forKey: .session)
    try c.encodeIfPresent(lastChange, forKey: .lastChange)
    try c.encode(sessionCounter, forKey: .sessionCounter)
  }
}
