import PlaybackCoordination

/// A refusal of the relay in the words people read: episodes by their labels ("S1E2 · The
/// Lighthouse Keeper"), never an item's id. Some refusals need no words at all: an
/// automatic request that lost a race the group has already settled.
public enum RefusalText {
  /// What to tell the person whose `command` was refused, or nil when there is nothing
  /// worth saying. `state` is the group as this participant holds it now (the relay sends
  /// the change that won a race before its answer to the one that lost it); `catalog`
  /// gives the labels of episodes the session does not hold.
  public static func describe(
    _ rejection: Rejection, of command: GroupCommand, in state: GroupState,
    catalog: [SeriesInfo] = []
  ) -> String? {
    func episode(_ id: ItemID) -> String {
      if let item = state.session?.series.item(id)
        ?? catalog.lazy.compactMap({ $0.item(id) }).first
      {
        return EpisodeLabel.describe(item)
      }
      return EpisodeLabel.code(id)
    }
    switch rejection {
    case .advanceNotApplicable(let ended):
      // Every player that reaches the end asks to advance; the first request wins. Another
      // participant's already moved the group on (another episode, or stopped at the end
      // without auto-advance), or the session is over: nothing went wrong.
      guard case .advance = command, let session = state.session,
        session.item.id == ended, !session.reachedEnd
      else { return nil }
      // The group is still on the episode, short of its end: this player ran ahead.
      return "your player reached the end of \(episode(ended)) before the group did"
    case .staleItem(let sent, let current):
      return "that was for \(episode(sent)), but the group is on \(episode(current))"
    case .unknownItem(let id):
      return "the relay does not know \(episode(id))"
    case .needsConfirmation(let id):
      return "switching everyone to \(episode(id)) needs confirmation"
    default:
      return rejection.description
    }
  }
}
