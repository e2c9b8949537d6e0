import PlaybackCoordination

/// Wire format: `{"itemTime":12.5,"groupTime":3600000000000,"rate":1}`;
/// `groupTime` in integer nanoseconds of the group clock. A change led in by a moving line
/// (a seek or rate change while playing) adds `"priorItemTime"` and `"priorRate"`; when
/// they are absent the position holds at `itemTime` before `groupTime`.
///
/// Written by hand, not synthesized, so that the format is a decision that a Swift
/// refactor cannot change by accident; see docs/PROTOCOL.md.
extension Timeline: Codable {
  private enum CodingKeys: String, CodingKey {
    case itemTime, groupTime, rate, priorItemTime, priorRate
  }

  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    let itemTime = try c.decode(Double.self, forKey: .itemTime)
    self.init(
      itemTime: itemTime,
      groupTime: try c.decode(GroupInstant.self, forKey: .groupTime),
      rate: try c.decode(Double.self, forKey: .rate),
      priorItemTime: try c.decodeIfPresent(Double.self, forKey: .priorItemTime) ?? itemTime,
      priorRate: try c.decodeIfPresent(Double.self, forKey: .priorRate) ?? 0)
  }

  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(itemTime, forKey: .itemTime)
    try c.encode(groupTime, forKey: .groupTime)
    try c.encode(rate, forKey: .rate)
    if !holdsBefore {
      try c.encode(priorItemTime, forKey: .priorItemTime)
      try c.encode(priorRate, forKey: .priorRate)
    }
  }
}
