import PlaybackCoordination
import WireProtocol

/// What the relay's edge must do after feeding an event to ``RelayCore``.
public enum RelayAction: Sendable, Hashable {
  case send(ServerMessage, to: ConnectionID)
  /// The same message to several connections: the edge encodes it once.
  case broadcast(ServerMessage, to: [ConnectionID])
  /// Answer a ping. The edge stamps `t2` as late as it can, just before writing.
  case pong(to: ConnectionID, id: UInt64, t0: LocalInstant, t1: GroupInstant)
  /// Close the connection after writing what was queued before it.
  case close(ConnectionID)
  /// A line for the relay's log; `about` is the connection whose doing it reports, so
  /// that the edge can limit each connection's share of the log.
  case log(RelayLogLevel, String, about: ConnectionID? = nil)
  /// Ask the relay at `endpoint` whether it runs `room` now (`locate`); if it says so,
  /// tell the core (``RelayCore/located(_:at:at:)``).
  case locate(room: String, at: RelayEndpoint)
  /// Find out whether the relay `participant` offered at `endpoint` can be reached from
  /// here (a `locate` that gets any answer), and tell the core
  /// (``RelayCore/reachability(of:in:at:reachable:at:)``).
  case checkReachable(room: String, participant: ParticipantID, at: RelayEndpoint)
  /// Both halves of a tunnel of `room` are there: tell each ``ServerMessage/tunnelReady``,
  /// then carry bytes between the two connections (which are no longer line connections),
  /// and report its end with ``RelayCore/tunnelEnded(_:at:)``.
  case splice(TunnelID, ConnectionID, ConnectionID, room: String)
  /// Close a spliced tunnel's two connections (one of its members left the room).
  case closeTunnel(TunnelID)
}

public enum RelayLogLevel: String, Sendable, Hashable {
  case debug, info, notice, warning
}
