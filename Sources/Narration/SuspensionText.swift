import PlaybackCoordination

/// Suspension reasons in words.
public enum SuspensionText {
  public static func describe(_ reason: SuspensionReason) -> String {
    switch reason {
    case .interrupted: "interrupted"
    case .stallRecovery: "recovering from a stall"
    case .userActionRequired: "needs to act"
    case .changingTime: "choosing a time"
    default: reason.rawValue
    }
  }
}
