import PlaybackCoordination

/// A series of the catalog: items in watching order (the order drives "next" and
/// auto-advance). A single item, such as the sync test pattern, is a series of one.
public struct CatalogSeries: Hashable, Sendable {
  public var id: String
  public var title: String
  /// Never empty in a loaded catalog.
  public var items: [CatalogItem]
  public var line: Int

  public init(id: String, title: String, items: [CatalogItem], line: Int = 0) {
    self.id = id
    self.title = title
    self.items = items
    self.line = line
  }

  /// The facts the engine needs.
  public func seriesInfo() -> SeriesInfo {
    SeriesInfo(id: id, title: title, items: items.map { $0.itemInfo() })
  }
}
