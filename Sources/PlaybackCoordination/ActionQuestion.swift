/// A question performing an action puts to the person who asked for it, answered with
/// `confirm` or `cancel`: typed, so that a front, headless output and a demo script each
/// say it their own way without reading it back from words.
public enum ActionQuestion: Hashable, Sendable {
  /// "Switch everyone to …?": a manual switch (or a queued entry played now) changes what
  /// everyone watches, so it is asked first.
  case confirmSwitch(ItemInfo)

  /// Its name in headless output and demo scripts (`"prompt":"confirm-switch"`).
  public var kind: String {
    switch self {
    case .confirmSwitch: "confirm-switch"
    }
  }

  public var text: String {
    switch self {
    case .confirmSwitch(let item): "Switch everyone to \(item.title) (\(item.id))?"
    }
  }

  /// The answers, as the words that give them.
  public var options: [String] { ["confirm", "cancel"] }
}
