import PlaybackCoordination

/// What a ``SimulatedPlayer`` needs to know about an item it loads.
public struct SimulatedItem: Hashable, Sendable {
  public var id: ItemID
  public var title: String
  /// Seconds; the player stops here and reports `ended`.
  public var duration: Double
  public var subtitles: SubtitleTrack?

  public init(id: ItemID, title: String, duration: Double, subtitles: SubtitleTrack? = nil) {
    self.id = id
    self.title = title
    self.duration = duration
    self.subtitles = subtitles
  }
}
