import PlaybackCoordination

/// Wire format: `{"id":"harbour/s1e1","title":"Arrival","duration":150}`.
///
/// Written by hand, not synthesized, so that the format is a decision that a Swift
/// refactor cannot change by accident; see docs/PROTOCOL.md.
extension ItemInfo: Codable {
  private enum CodingKeys: String, CodingKey {
    case id, title, duration
  }

  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    let id = try c.decode(ItemID.self, forKey: .id)
    let title = try c.decode(String.self, forKey: .title)
    let duration = try c.decode(Double.self, forKey: .duration)
    self.init(id: id, title: title, duration: duration)
  }

  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(id, forKey: .id)
    try c.encode(title, forKey: .title)
    try c.encode(duration, forKey: .duration)
  }
}
