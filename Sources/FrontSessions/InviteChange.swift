import Invites

/// News about where a hosted room can be reached, for the front: a new link (the router
/// forwards the port: the public address first), or only a note (friends outside cannot
/// reach the room, and what to do).
public struct InviteChange: Hashable, Sendable {
  public var link: InviteLink?
  public var note: String
  /// Whether the note is a warning (shown as one).
  public var warning: Bool

  public init(link: InviteLink?, note: String, warning: Bool) {
    self.link = link
    self.note = note
    self.warning = warning
  }
}
