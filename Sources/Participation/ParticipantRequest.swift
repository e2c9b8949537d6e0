import PlaybackCoordination
import WireProtocol

/// What a participant's user (a front, a script, a test) asks for: a group command as it
/// is, a playback intent (resolved in ``ParticipantCore`` against what this participant
/// last asked for), or a message for the others.
public enum ParticipantRequest: Sendable, Hashable {
  case command(GroupCommand)
  case playback(PlaybackIntent)
  /// A messenger payload, reliable and ordered with this participant's commands.
  case message(kind: MessageKind, body: String, to: Recipients)
  /// A reaction to everyone (text already within ``Reaction``'s bounds), at where the group
  /// is now as this participant sees it: the core adds the film time.
  case react(String)
}
