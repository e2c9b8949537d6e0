/// Which program a participant uses. Everyone sees it, so that a person knows why a friend
/// on Syncplay cannot follow a speed other than 1× or misses a sealed message.
///
/// Set by the relay from the kind of connection the participant came in on, never from
/// what the participant says, so nobody can pass for another program.
public enum ParticipantOrigin: String, Hashable, Sendable, CaseIterable {
  /// A Cowatch front, headless participant or script.
  case cowatch
  /// A Syncplay client, through the relay's Syncplay port.
  case syncplay
}
