import LinkConsent
import PlaybackCoordination

/// What the person asked for. The front only emits these; whoever wires it to the session
/// client turns them into group commands (or local effects such as quitting).
public enum FrontAction: Hashable, Sendable {
  /// A playback intent for the group. Play/pause and the relative ones (a seek or a speed
  /// step) are decided by the client from what it last asked for while an answer is on its
  /// way, so that quick presses alternate or add up: the screen moves only when the
  /// relay's answer arrives.
  case playback(PlaybackIntent)
  /// Switch everyone to another item; already confirmed by the person.
  case switchTo(ItemID)
  /// Start a new watch session of an item in the room (`together`), or watch it alone.
  case start(ItemID, together: Bool)
  case suspend(SuspensionReason)
  /// End all of this participant's suspensions and jump back to where the group is.
  case resume
  /// End all of this participant's suspensions, moving everyone to this item time.
  case resumeProposing(Double)
  /// While stepped away or watching alone: move only this player by this many seconds
  /// (to pick a time to bring everyone to, or just to watch).
  case seekLocally(by: Double)
  /// Watching alone: play or pause this person's own player.
  case localPlayPause
  /// Watching alone: this person's own player a step faster or slower.
  case localRate(faster: Bool)
  case setAutoAdvance(Bool)
  case chat(String)
  /// A chat line for these people only (`/tell`).
  case tell([ParticipantID], String)
  case joinSession
  /// "Not now" to an offered session.
  case declineSession
  /// Leave the watch session only (stay in the room).
  case leave
  case endForEveryone
  /// Quit the program (after `leave` or `endForEveryone` when in a session).
  case quit
  /// Render again now (help toggled, a prompt changed, the terminal resized).
  case redraw
  /// Feedback for this person only, e.g. "no next episode" (post it as an error notice).
  case localNotice(String)
  /// Scroll the notices pane back (positive) or towards now (negative), in lines.
  case scrollNotices(Int)
  /// Start the local player again (it quit).
  case restartPlayer
  /// One of the owner's commands (lock, playback control, hand over, remove).
  case roomCommand(GroupCommand)
  /// Put this text on the clipboard of the terminal (OSC 52).
  case copyToClipboard(String)
  /// Move this person's player further ahead of the group by `seconds` (negative: behind),
  /// from the offset the client last set, so that quick presses add up.
  case changePersonalOffset(by: Double)
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
