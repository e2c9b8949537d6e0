import PlaybackCoordination

/// A participant's request in a few words, for the notices that say it went nowhere
/// ("not sent: pause at 12:34 — gave up reconnecting to the relay").
public enum RequestText {
  public static func command(_ command: GroupCommand) -> String {
    switch command {
    case .play: "play"
    case .pause(_, let at): "pause at \(TimeFormat.clock(at))"
    case .seek(_, let to): "seek to \(TimeFormat.clock(to))"
    case .setRate(_, let rate): "speed \(rate)"
    case .replace(_, let item, _): "switch to \(item)"
    case .start(_, let item): "start \(item)"
    default: "\(command)".split(separator: "(").first.map(String.init) ?? "command"
    }
  }

  /// A messenger payload: a chat line quoted (cut at 40 characters), anything else by kind.
  public static func message(kind: MessageKind, body: String) -> String {
    if kind == .chat {
      let words = body.count > 40 ? body.prefix(40) + "…" : Substring(body)
      return "your chat message “\(words)”"
    }
    return "a \(kind) message"
  }
}
