import PlaybackCoordination

/// Why the group waits for someone, in words people use ("buffering", "stepped away — a
/// call"), never an internal name.
public enum WaitText {
  /// `you`: the wait is for the person reading it ("your player…"). `lender`: whose copy
  /// the one waited for reads (``lender(of:in:local:)``), said with loading and buffering
  /// ("loading from ann's copy"): the wait is the lender's link as much as their own.
  public static func describe(_ cause: WaitCause, you: Bool = false, lender: String? = nil)
    -> String
  {
    let from = lender.map { " " + fromCopy($0) } ?? ""
    return switch cause {
    case .answering: "asked to join"
    case .loading: "loading" + from
    case .stalled, .suspended(.stallRecovery): "buffering" + from
    case .suspended(let reason): SuspensionText.steppedAway(reason, you: you)
    }
  }

  /// "from ann's copy" ("from your copy" when `lender` is "you").
  public static func fromCopy(_ lender: String) -> String {
    "from \(lender == "you" ? "your" : "\(lender)'s") copy"
  }

  /// The name of whoever lends `participant` the copy it reads ("you" when that is
  /// `local`), or nil when it reads its own.
  public static func lender(
    of participant: ParticipantID, in state: GroupState, local: ParticipantID? = nil
  ) -> String? {
    guard let lender = state.participant(participant)?.lender else { return nil }
    if lender == local { return "you" }
    return state.participant(lender)?.name ?? lender.rawValue
  }

  /// "waiting for dan: buffering, 4 s left", fitted to `width` columns by shortening the
  /// reason first: the name and the time left are what the line is for.
  /// `you`: the wait is for the person reading it (`name` is then "you").
  public static func line(
    name: String, cause: WaitCause, secondsLeft: Int, width: Int, you: Bool = false,
    lender: String? = nil
  ) -> String {
    let head = "⏳ \(name): "
    let tail = ", \(secondsLeft) s left"
    var reason = describe(cause, you: you, lender: lender)
    let fixed = head.count + 1 + tail.count  // ⏳ takes two columns
    if fixed + reason.count > width {
      let room = max(0, width - fixed - 1)
      reason = room > 0 ? String(reason.prefix(room)) + "…" : ""
    }
    return head + reason + tail
  }
}
