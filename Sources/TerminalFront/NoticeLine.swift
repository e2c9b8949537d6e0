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

  public var text: String
  /// Group time it was posted; notices dim and then disappear as it ages.
  public var at: GroupInstant
  public var kind: Kind

  public init(_ text: String, at: GroupInstant, kind: Kind = .event) {
    self.text = text
    self.at = at
    self.kind = kind
  }
}
