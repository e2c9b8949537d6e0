import Participation
import SyncplayProtocol

/// What the bridge's runtime does for its core.
public enum SyncplayBridgeEffect: Hashable, Sendable {
  /// A line to the Syncplay client.
  case send(SyncplayServerMessage)
  /// Enter the Cowatch room as this participant (the hello was good). `password`: the
  /// room password as the client sent it (see docs/SYNCPLAY.md).
  case enter(name: String, room: String, password: String?)
  /// A request of the Cowatch participant that stands for the client.
  case request(ParticipantRequest)
  /// Close the connection after what is queued (and leave the room).
  case close
  /// Upgrade the connection to TLS once what is queued (the answer that says so) is out.
  case startTLS
}
