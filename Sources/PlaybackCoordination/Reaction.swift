/// A short reaction at a moment of the film ("😂", "what a twist"): its text and the film
/// time (the sender's group position) it was made at. Bounded so that it stays a reaction,
/// not a chat line: a few words, a few bytes, one line.
public struct Reaction: Hashable, Sendable {
  public var text: String
  /// Seconds into the item, where the group was when it was made.
  public var at: Double

  public init(text: String, at: Double) {
    self.text = text
    self.at = at
  }

  /// Words in a reaction, at most.
  public static let maximumWords = 5
  /// UTF-8 bytes in a reaction, at most (an emoji with modifiers is up to about 30).
  public static let maximumBytes = 40
  /// The quick picks a front offers, in order (a digit each, from 1).
  public static let quickPicks = ["👍", "😂", "😮", "😢", "❤️"]

  /// Why `text` (already trimmed) cannot be a reaction, in words; nil when it can.
  public static func refusal(_ text: String) -> String? {
    if text.isEmpty { return "a reaction is empty: say react and an emoji or a few words" }
    if text.utf8.count > maximumBytes {
      return
        "a reaction is at most \(maximumBytes) bytes (this one is \(text.utf8.count)): say more in the chat"
    }
    let words = text.split(whereSeparator: { $0 == " " }).count
    if words > maximumWords {
      return
        "a reaction is at most \(maximumWords) words (this one is \(words)): say more in the chat"
    }
    if text.unicodeScalars.contains(where: DisplayText.isUnsafe) {
      return "a reaction holds a control, separator or bidi character"
    }
    return nil
  }

  /// Whether the film time is one a reaction can carry: a real, non-negative number of
  /// seconds, within a day (nothing a peer sends can make a front print nonsense).
  public static func isPlausible(at seconds: Double) -> Bool {
    seconds.isFinite && seconds >= 0 && seconds <= 86_400 * 7
  }
}
