import PlaybackCoordination

/// The words of a ready check while it runs — the people pane's foot, the state line, mpv's
/// OSD — so that every screen says the same.
public enum ReadyText {
  /// "ready? waiting for bob, carol (1:52)": an open check and whom it still waits for.
  public static func waiting(for names: [String], secondsLeft: Int) -> String {
    let who = names.isEmpty ? "everyone" : names.joined(separator: ", ")
    return "ready? waiting for \(who) (\(TimeFormat.clock(Double(secondsLeft))))"
  }

  /// "▶ starting in 3…".
  public static func countdown(secondsLeft: Int) -> String { "▶ starting in \(secondsLeft)…" }

  /// Whole seconds (rounded up) until a ready check's countdown ends, while one runs at
  /// `now`; nil when none does (or something else moved the group since).
  public static func countdownLeft(_ session: WatchSession?, now: GroupInstant) -> Int? {
    guard let session, let end = session.countdown, end == session.timeline.groupTime,
      session.timeline.rate > 0, now < end
    else { return nil }
    return Int(end.seconds(since: now).rounded(.up))
  }

  /// The line for the group's readiness now: the countdown, or the open check; nil when
  /// neither runs.
  public static func line(_ state: GroupState, now: GroupInstant, local: ParticipantID?)
    -> String?
  {
    if let left = countdownLeft(state.session, now: now) { return countdown(secondsLeft: left) }
    guard let check = state.session?.readyCheck else { return nil }
    let names = state.notReadyToWatch.map { $0.id == local ? "you" : $0.name }
    let left = check.deadline.seconds(since: now)
    return waiting(for: names, secondsLeft: left <= 0 ? 0 : Int(left.rounded(.up)))
  }
}
