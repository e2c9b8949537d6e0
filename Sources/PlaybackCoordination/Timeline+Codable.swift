/// Wire format (protocol 2): `{"itemTime":12.5,"groupTime":3600000000000,"rate":1}`;
/// `groupTime` in integer nanoseconds of the group clock.
///
/// Written by hand, not synthesized, so that the format is a decision that a Swift
/// refactor cannot change by accident; see docs/PROTOCOL.md.
extension Timeline: Codable {
  private enum CodingKeys: String, CodingKey {
    case itemTime, groupTime, rate
  }

  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    itemTime = try c.decode(Double.self, forKey: .itemTime)
    groupTime = try c.decode(GroupInstant.self, forKey: .groupTime)
    rate = try c.decode(Double.self, forKey: .rate)
  }

  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(itemTime, forKey: .itemTime)
    try c.encode(groupTime, forKey: .groupTime)
    try c.encode(rate, forKey: .rate)
  }
}
