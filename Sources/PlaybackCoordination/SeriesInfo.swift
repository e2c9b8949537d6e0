/// What the engine needs to know about one playable item. The relay never reads media
/// files: the participant that starts or switches a session sends these facts along.
public struct ItemInfo: Hashable, Sendable {
  public var id: ItemID
  public var title: String
  /// Duration in seconds; positive.
  public var duration: Double

  public init(id: ItemID, title: String, duration: Double) {
    self.id = id
    self.title = title
    self.duration = duration
  }
}

/// An ordered list of items watched one after another; the order drives "next" and
/// auto-advance. A single item (e.g. a test pattern) is a series of one.
public struct SeriesInfo: Hashable, Sendable {
  public var id: String
  public var title: String
  public var items: [ItemInfo]

  public init(id: String, title: String, items: [ItemInfo]) {
    self.id = id
    self.title = title
    self.items = items
  }

  public func item(_ id: ItemID) -> ItemInfo? { items.first { $0.id == id } }

  /// The item after `id`, or nil after the last one.
  public func item(after id: ItemID) -> ItemInfo? {
    guard let i = items.firstIndex(where: { $0.id == id }), i + 1 < items.count else { return nil }
    return items[i + 1]
  }
}
