import PlaybackCoordination

/// What a simulated player's screen is doing.
public enum PlayerState: String, Hashable, Sendable, Codable {
  /// Nothing loaded.
  case idle
  case loading
  /// Told to play: waiting for its play latency or for a coordinated start (prerolled).
  case starting
  case paused
  case playing
  case seeking
  /// Stalled (re-buffering): not advancing until the stall ends.
  case stalled
  /// Stopped at the end of the item.
  case ended
}

/// Everything a screen needs to draw a simulated player at an instant.
public struct PlayerSnapshot: Hashable, Sendable {
  public var item: ItemID?
  public var title: String?
  public var duration: Double?
  /// Item seconds.
  public var position: Double
  /// The nominal rate while advancing, 0 otherwise.
  public var rate: Double
  public var state: PlayerState
  /// True while the position is not yet meaningful for drift (loading, seeking, starting,
  /// switching to a new play target).
  public var isBusy: Bool
  /// The subtitle shown at `position` (lines joined by `\n`), if any.
  public var subtitle: String?
  /// The test-pattern picture for `position` (see ``TestPattern``).
  public var frame: String
  /// Why the last load failed, if it did (e.g. an item the resolver does not know).
  public var problem: String?

  public init(
    item: ItemID?, title: String?, duration: Double?, position: Double, rate: Double,
    state: PlayerState,
    isBusy: Bool, subtitle: String?, frame: String, problem: String?
  ) {
    self.item = item
    self.title = title
    self.duration = duration
    self.position = position
    self.rate = rate
    self.state = state
    self.isBusy = isBusy
    self.subtitle = subtitle
    self.frame = frame
    self.problem = problem
  }
}
