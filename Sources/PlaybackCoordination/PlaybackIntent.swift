/// What a person asks of the group's playback, in the one vocabulary every front speaks: a
/// key in the terminal front, a headless or script line, a participant program.
///
/// Absolute intents say where or how fast; relative ones (`togglePlayback`, `seekBy`,
/// `changeRate`) count from what this participant last asked for while the answer is on
/// its way, so that quick repeats of a key add up instead of each starting from a state
/// the group has not reached yet. The participant core resolves them into a
/// ``GroupCommand``.
public enum PlaybackIntent: Hashable, Sendable {
  /// Play; at this rate, or at the one the group last played at.
  case play(rate: Double?)
  /// Pause where this participant's player is (or where the group is).
  case pause
  /// Play if paused, pause if playing.
  case togglePlayback
  case seek(to: Double)
  /// Seek by this many seconds.
  case seekBy(Double)
  case setRate(Double)
  /// Change the rate by this much, within the room's range.
  case changeRate(by: Double)
}
