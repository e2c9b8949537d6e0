import PlaybackCoordination
import WireProtocol

/// What the participant runtime must do after feeding an input to ``ParticipantCore``, in
/// the order given.
public enum ParticipantEffect: Sendable {
  /// Open a new connection to the relay (nil: the one the participant was started with;
  /// else one another relay named); report ``ParticipantCore/connected(at:)`` or
  /// ``ParticipantCore/connectFailed(_:at:)``.
  case connect(RelayEndpoint?)
  /// Queue a message on the current connection (in order).
  case send(ClientMessage)
  /// Close the current connection (after what is queued).
  case closeConnection
  case player(PlayerCommand)
  case event(ClientEvent)
  /// The request with this ticket is settled: wake whoever waits for it.
  case answer(ticket: UInt64, Result<Void, ClientError>)
  /// Derive the room's keys from the password with these parameters (slow: off the
  /// actor), then report ``ParticipantCore/roomKeysDerived(_:at:)``.
  case deriveRoomKeys(KeyDerivation)
  /// The first entry into the room succeeded or failed.
  case started(Result<Void, ClientError>)
  /// The participant has stopped: end the event stream, release everything.
  case finished
  /// For this participant's own relay, ready to carry the room (see ``CarrierEffect``).
  case carrier(CarrierEffect)
}
