import PlaybackCoordination

/// Wire format: an object with the stored properties by name;
/// `originator` and `originatorName` are omitted when absent (a change the group made by
/// itself). Written by hand so that the format is a decision; see docs/PROTOCOL.md.
extension ChangeEvent: Codable {
  private enum CodingKeys: String, CodingKey {
    case sequence, at, originator, originatorName, kind
  }

  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    let sequence = try c.decode(UInt64.self, forKey: .sequence)
    let at = try c.decode(GroupInstant.self, forKey: .at)
    let originator = try c.decodeIfPresent(ParticipantID.self, forKey: .originator)
    let originatorName = try c.decodeIfPresent(String.self, forKey: .originatorName)
    let kind = try c.decode(ChangeKind.self, forKey: .kind)
    self.init(
      sequence: sequence, at: at, originator: originator, originatorName: originatorName, kind: kind
    )
  }

  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(sequence, forKey: .sequence)
    try c.encode(at, forKey: .at)
    try c.encodeIfPresent(originator, forKey: .originator)
    try c.encodeIfPresent(originatorName, forKey: .originatorName)
    try c.encode(kind, forKey: .kind)
  }
}
