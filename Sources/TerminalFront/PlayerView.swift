import Narration
import PlaybackCoordination

/// What the local player shows, as plain values (filled from the media player by whoever
/// wires the front; the front does not depend on the player's types).
public struct PlayerView: Hashable, Sendable {
  public enum Activity: String, Hashable, Sendable {
    case idle, loading, playing, paused, stalled, ended
  }

  public var item: ItemID?
  public var itemTitle: String?
  public var seriesTitle: String?
  /// Item time the player shows, seconds.
  public var position: Double
  /// Item duration, seconds; nil when unknown (the session's item is used then).
  public var duration: Double?
  /// The rate the player advances at now (0 when paused or stalled).
  public var rate: Double
  public var activity: Activity
  /// The subtitle line on screen now, if any.
  public var subtitle: String?
  /// One frame of the test pattern as a line of text (the player's picture).
  public var testPattern: String?

  public init(
    item: ItemID? = nil, itemTitle: String? = nil, seriesTitle: String? = nil, position: Double = 0,
    duration: Double? = nil, rate: Double = 0, activity: Activity = .idle, subtitle: String? = nil,
    testPattern: String? = nil
  ) {
    self.item = item
    self.itemTitle = itemTitle
    self.seriesTitle = seriesTitle
    self.position = position
    self.duration = duration
    self.rate = rate
    self.activity = activity
    self.subtitle = subtitle
    self.testPattern = testPattern
  }
}
