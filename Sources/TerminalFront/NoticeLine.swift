import Narration
import PlaybackCoordination

/// One line in the notices pane.
public struct NoticeLine: Hashable, Sendable {
  public enum Kind: Hashable, Sendable {
    /// A change in the group ("bob paused at 12:34").
    case event
    /// A chat message ("bob: hi").
    case chat
    /// Something went wrong or was refused (shown in the warning colour).
    case error
  }

  /// How a line of the conversation stands out from the rest.
  public enum Emphasis: Hashable, Sendable {
    case none
    /// A chat line that names this person: highlighted (the bell rang once for it).
    case mention
    /// A reaction at a moment of the film.
    case reaction
    /// Said before this person entered (the room's backlog): dimmed, marked "earlier".
    case earlier
  }

  public var text: String
  /// Group time it was posted; notices dim and then disappear as it ages.
  public var at: GroupInstant
  public var kind: Kind
  public var emphasis: Emphasis

  public init(_ text: String, at: GroupInstant, kind: Kind = .event, emphasis: Emphasis = .none) {
    self.text = text
    self.at = at
    self.kind = kind
    self.emphasis = emphasis
  }
}
