/// Wire format (protocol 2): `{"before":7,"after":8,"at":NS,"input":INPUT}`.
///
/// Written by hand, not synthesized, so that the format is a decision that a Swift
/// refactor cannot change by accident; see docs/PROTOCOL.md.
extension SequencedStep: Codable {
  private enum CodingKeys: String, CodingKey {
    case before, after, at, input
  }

  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    before = try c.decode(UInt64.self, forKey: .before)
    after = try c.decode(UInt64.self, forKey: .after)
    at = try c.decode(GroupInstant.self, forKey: .at)
    input = try c.decode(StepInput.self, forKey: .input)
  }

  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(before, forKey: .before)
    try c.encode(after, forKey: .after)
    try c.encode(at, forKey: .at)
    try c.encode(input, forKey: .input)
  }
}
