import PlaybackCoordination
import WireProtocol

/// What a participant's user (a front, a script, a test) asks for. Relative requests are
/// resolved in ``ParticipantCore`` against what this participant last asked for, so that
/// quick repeated key presses add up instead of each starting from a stale position.
public enum ParticipantRequest: Sendable, Hashable {
  case command(GroupCommand)
  /// Pause at what this participant's player shows (or where the group is).
  case pause
  case play(rate: Double?)
  /// Play if paused, pause if playing — by what this participant last asked for when an
  /// answer is still on its way, so that quick presses of one key alternate.
  case togglePlayback
  case seek(to: Double)
  /// Seek by this many seconds from the last requested position.
  case seekBy(Double)
  case setRate(Double)
  /// Change the rate by this much from the last requested rate, within the relay's range.
  case changeRate(by: Double)
  /// A messenger payload, reliable and ordered with this participant's commands.
  case message(kind: MessageKind, body: String, to: Recipients)
}
