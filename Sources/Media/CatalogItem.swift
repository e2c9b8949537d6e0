import PlaybackCoordination

/// One watchable item of the catalog, with its subtitles already parsed.
public struct CatalogItem: Hashable, Sendable {
  /// `SERIES/EPISODE`, e.g. `harbour/s1e1`.
  public var id: ItemID
  public var title: String
  /// Seconds; positive.
  public var duration: Double
  /// The subtitle file as resolved against the catalog's directory, if any.
  public var subtitlesPath: String?
  public var subtitles: SubtitleTrack?
  /// The line of the catalog where the item is defined.
  public var line: Int

  public init(
    id: ItemID, title: String, duration: Double, subtitlesPath: String? = nil,
    subtitles: SubtitleTrack? = nil, line: Int = 0
  ) {
    self.id = id
    self.title = title
    self.duration = duration
    self.subtitlesPath = subtitlesPath
    self.subtitles = subtitles
    self.line = line
  }

  /// The series part of the id (`harbour` in `harbour/s1e1`).
  public var seriesID: String { String(id.rawValue.split(separator: "/").first ?? "") }
  /// The episode part of the id (`s1e1` in `harbour/s1e1`).
  public var episodeID: String { String(id.rawValue.split(separator: "/").last ?? "") }

  /// The facts the engine needs.
  public func itemInfo() -> ItemInfo { ItemInfo(id: id, title: title, duration: duration) }

  /// What the simulated player needs to play it.
  public func simulatedItem() -> SimulatedItem {
    SimulatedItem(id: id, title: title, duration: duration, subtitles: subtitles)
  }
}
