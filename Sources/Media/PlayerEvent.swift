import PlaybackCoordination

/// Things a simulated player reports to its owner, stamped with the local instant they
/// happened (which may be earlier than the call that collects them). The session layer uses
/// `stallBegan`/`stallEnded` to begin and end a `stallRecovery` suspension (or `.stalled`
/// readiness).
public enum PlayerEvent: Hashable, Sendable {
  case loaded(ItemID, at: LocalInstant)
  /// The resolver did not know the item; the player is idle.
  case loadFailed(ItemID, at: LocalInstant)
  case stallBegan(at: LocalInstant, position: Double)
  /// The stall is over: it ran its course, or a pause, seek or unload cut it short.
  case stallEnded(at: LocalInstant, position: Double)
  /// Playing reached the end of the item.
  case ended(ItemID, at: LocalInstant)
}
