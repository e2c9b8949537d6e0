/// One subtitle: `text` is shown from `start` (inclusive) to `end` (exclusive), item
/// seconds. Multi-line text keeps its line breaks (`\n`).
public struct SubtitleCue: Hashable, Sendable {
  /// The cue's number in its file.
  public var index: Int
  public var start: Double
  public var end: Double
  public var text: String

  public init(index: Int, start: Double, end: Double, text: String) {
    self.index = index
    self.start = start
    self.end = end
    self.text = text
  }

  public func contains(_ time: Double) -> Bool { start <= time && time < end }
}
