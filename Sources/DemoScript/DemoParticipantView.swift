import Media
import ParticipantRuntime
import Participation
import PlaybackCoordination

/// Everything a screen needs to follow one scripted participant: what its session client
/// knows, what its player shows, and what it has been told.
public struct DemoParticipantView: Sendable {
  public var name: String
  /// False until the participant has connected (see `arrives-at`).
  public var arrived: Bool
  /// The client's view: connection, session phase, group state, clock estimate.
  public var session: ParticipantSnapshot?
  /// The simulated player's screen: state, position, subtitle line, test-pattern frame.
  public var player: Media.PlayerSnapshot?
  /// The question waiting for an answer.
  public var prompt: ActionQuestion?
  /// Notice sentences it has been shown, oldest first.
  public var notices: [String]
  /// Messages it received, as `NAME: TEXT`.
  public var chats: [String]
  public var errors: [String]
}
