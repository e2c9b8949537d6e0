import PlaybackCoordination
import WireProtocol

/// What the relay asks of a participant's own relay, the one ready to carry the room: the
/// runtime hands it on as it comes, in order.
public enum CarrierEffect: Sendable, Hashable {
  /// Apply a change to the copy of the room (the relay feeds its first successors).
  case replica(RoomChange)
  /// Carry the room from now on: its relay is handing it over, and everyone is about to
  /// reconnect to this participant's relay. `state`: the room as this participant replayed
  /// it, up to the handover (the feed leaves the state out: every step reaches it anyway).
  case carry(room: String, state: GroupState)
}
