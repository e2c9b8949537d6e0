import PlaybackCoordination

/// One call the runner makes on the participant client for the front. Requests are made one
/// after the other, in the order the reducer asked for them, by one worker: a slow answer
/// from the relay then never freezes the keys or the screen, and a burst of keys reaches
/// the relay in the order it was typed.
public enum FrontRequest: Hashable, Sendable {
  /// A group command as it is (start, switch, join, suspend, auto-advance…).
  case send(GroupCommand)
  /// A playback intent; relative ones count from what the client last asked for, so that
  /// a burst of keys adds up even before the relay has answered the first.
  case playback(PlaybackIntent)
  /// Move this person's player further ahead of the group (negative: behind), from the
  /// offset last set.
  case changePersonalOffset(by: Double)
  /// Say something to everyone.
  case chat(String)
  /// Say something to these people only (`/tell bob,carol …`).
  case tell([ParticipantID], String)
  /// Leave the watch session; skipped when the relay is not there (on the way out, do not
  /// wait for it).
  case leave
  /// End the watch session for everyone; skipped like ``leave`` without a relay.
  case endForEveryone
  /// Stop the participant client; always the last request. Its end comes back to the
  /// reducer as ``FrontSession/Input/stopped``.
  case stop
}
