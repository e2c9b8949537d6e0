import PlaybackCoordination

/// Wire format: `{"id":"harbour","title":"Harbour Lights","items":[ITEM, …]}`,
/// items in watching order.
///
/// Written by hand, not synthesized, so that the format is a decision that a Swift
/// refactor cannot change by accident; see docs/PROTOCOL.md.
extension SeriesInfo: Codable {
  private enum CodingKeys: String, CodingKey {
    case id, title, items
  }

  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    let id = try c.decode(String.self, forKey: .id)
    let title = try c.decode(String.self, forKey: .title)
    let items = try c.decode([ItemInfo].self, forKey: .items)
    self.init(id: id, title: title, items: items)
  }

  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(id, forKey: .id)
    try c.encode(title, forKey: .title)
    try c.encode(items, forKey: .items)
  }
}
