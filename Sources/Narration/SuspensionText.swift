import PlaybackCoordination

/// Suspension reasons in the words people read: "bob stepped away — a call".
public enum SuspensionText {
  public static func describe(_ reason: SuspensionReason) -> String {
    switch reason {
    case .interrupted: "a call"
    case .stallRecovery: "buffering"
    case .userActionRequired: "their player needs them"
    case .changingTime: "choosing a time"
    case .playerUnavailable: "their player can't play this"
    default: reason.rawValue
    }
  }

  /// "stepped away — a call"; said of oneself, "your player…" rather than "their player…".
  public static func steppedAway(_ reason: SuspensionReason, you: Bool = false) -> String {
    let text = describe(reason)
    return "stepped away — \(you && text.hasPrefix("their ") ? "your " + text.dropFirst(6) : text)"
  }

  /// Longest reason of one's own to type, in characters (the engine takes 64 bytes).
  public static let maximumLength = DisplayText.maximumReasonBytes
}
