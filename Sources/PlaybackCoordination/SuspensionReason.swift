/// Why a participant has detached from the group. Open-ended like
/// `AVCoordinatedPlaybackSuspension.Reason`: the well-known reasons are constants, and any
/// other string is a custom reason shown to everyone as it is.
public struct SuspensionReason: StringIdentifier {
  public var rawValue: String
  public init(_ rawValue: String) { self.rawValue = rawValue }

  /// Something else took over, e.g. a call came in.
  public static let interrupted = SuspensionReason("interrupted")
  /// The player stalled and is recovering.
  public static let stallRecovery = SuspensionReason("stallRecovery")
  /// The participant must do something first (e.g. dismiss a dialog).
  public static let userActionRequired = SuspensionReason("userActionRequired")
  /// The participant is scrubbing and will propose a new time.
  public static let changingTime = SuspensionReason("changingTime")
  /// The participant's player cannot follow (its program quit, the file is missing): it
  /// steps away rather than hold the group.
  public static let playerUnavailable = SuspensionReason("playerUnavailable")
}
