import PlaybackCoordination

/// Why the group waits for someone, in words people use ("buffering", "stepped away — a
/// call"), never an internal name.
public enum WaitText {
  /// `you`: the wait is for the person reading it ("your player…").
  public static func describe(_ cause: WaitCause, you: Bool = false) -> String {
    switch cause {
    case .answering: "asked to join"
    case .loading: "loading"
    case .stalled, .suspended(.stallRecovery): "buffering"
    case .suspended(let reason): SuspensionText.steppedAway(reason, you: you)
    }
  }

  /// "waiting for dan: buffering, 4 s left", fitted to `width` columns by shortening the
  /// reason first: the name and the time left are what the line is for.
  /// `you`: the wait is for the person reading it (`name` is then "you").
  public static func line(
    name: String, cause: WaitCause, secondsLeft: Int, width: Int, you: Bool = false
  ) -> String {
    let head = "⏳ \(name): "
    let tail = ", \(secondsLeft) s left"
    var reason = describe(cause, you: you)
    let fixed = head.count + 1 + tail.count  // ⏳ takes two columns
    if fixed + reason.count > width {
      let room = max(0, width - fixed - 1)
      reason = room > 0 ? String(reason.prefix(room)) + "…" : ""
    }
    return head + reason + tail
  }
}
