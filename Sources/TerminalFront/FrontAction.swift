import LinkConsent
import PlaybackCoordination

/// What a key or a prompt's answer came to. What goes to the group is a
/// ``ParticipantAction`` (`act`), the one vocabulary headless mode and the demo share, which
/// the participant runtime carries out; the rest is the front's own: its player while
/// watching alone or stepped away, its screen, quitting.
public enum FrontAction: Hashable, Sendable {
  /// Something for the group (playback, sessions, the queue, the owner's commands, chat),
  /// already asked about where the front asks.
  case act(ParticipantAction)
  /// Watch an item alone ("Only me"): this person's player plays it; the group does not.
  case watchAlone(ItemID)
  /// While stepped away or watching alone: move only this player by this many seconds
  /// (to pick a time to bring everyone to, or just to watch).
  case seekLocally(by: Double)
  /// Watching alone: play or pause this person's own player.
  case localPlayPause
  /// Watching alone: this person's own player a step faster or slower.
  case localRate(faster: Bool)
  /// Quit the program (after leaving or ending the session when in one).
  case quit
  /// Render again now (help toggled, a prompt changed, the terminal resized).
  case redraw
  /// Feedback for this person only, e.g. "no next episode" (post it as an error notice).
  case localNotice(String)
  /// Scroll the notices pane back (positive) or towards now (negative), in lines.
  case scrollNotices(Int)
  /// Start the local player again (it quit).
  case restartPlayer
  /// Put this text on the clipboard of the terminal (OSC 52).
  case copyToClipboard(String)
  /// Open a link (`/play LINK`, `/queue LINK` in the chat line): read with this person's
  /// player first, then started or queued for everyone.
  case openLink(String, LinkUse)
  /// This person's answer about a link someone else wants to play.
  case answerLink(String, LinkAnswer)
}

/// What a link typed in the front is for.
public enum LinkUse: String, Hashable, Sendable {
  /// Watch it now (start, or switch everyone after asking).
  case play
  /// Add it to the room's queue.
  case queue
}
