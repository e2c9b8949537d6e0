import PlaybackCoordination

/// Wire format: `{"before":7,"after":8,"at":NS,"input":INPUT}`.
///
/// Written by hand, not synthesized, so that the format is a decision that a Swift
/// refactor cannot change by accident; see docs/PROTOCOL.md.
extension SequencedStep: Codable {
  private enum CodingKeys: String, CodingKey {
    case before, after, at, input
  }

  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    let before = try c.decode(UInt64.self, forKey: .before)
    let after = try c.decode(UInt64.self, forKey: .after)
    let at = try c.decode(GroupInstant.self, forKey: .at)
    let input = try c.decode(StepInput.self, forKey: .input)
    self.init(before: before, after: after, at: at, input: input)
  }

  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(before, forKey: .before)
    try c.encode(after, forKey: .after)
    try c.encode(at, forKey: .at)
    try c.encode(input, forKey: .input)
  }
}
