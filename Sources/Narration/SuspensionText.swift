import PlaybackCoordination

/// Suspension reasons in the words people read: "bob stepped away — a call".
public enum SuspensionText {
  /// The reason in words; `you`: said to the person it is about ("your player isn't
  /// working" on their own screen, "their player isn't working" on the others'). A player
  /// that quit and one that cannot play the file are alike to the others; the person
  /// whose player it is reads which, in its own notice.
  public static func describe(_ reason: SuspensionReason, you: Bool = false) -> String {
    switch reason {
    case .interrupted: "a call"
    case .stallRecovery: "buffering"
    case .userActionRequired: you ? "your player needs you" : "their player needs them"
    case .changingTime: "choosing a time"
    case .playerUnavailable: you ? "your player isn't working" : "their player isn't working"
    default: reason.rawValue
    }
  }

  /// "stepped away — a call"; said of oneself, "your player…" rather than "their player…".
  public static func steppedAway(_ reason: SuspensionReason, you: Bool = false) -> String {
    "stepped away — \(describe(reason, you: you))"
  }

  /// Longest reason of one's own to type, in characters (the engine takes 64 bytes).
  public static let maximumLength = DisplayText.maximumReasonBytes
}
