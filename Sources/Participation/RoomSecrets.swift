import PlaybackCoordination
import RoomCrypto
import WireProtocol

/// The room's password as this participant holds it: the keys derived from it prove it at
/// the relay's challenge, and seal and open the messages the relay only routes.
///
/// The password itself stays with the runtime, which derives the keys off the actor
/// (scrypt is slow on purpose); this holds what came of it.
struct RoomSecrets: Sendable {
  /// Whether the person gave the room's password.
  let isGiven: Bool
  private let room: String
  /// The room's keys, once derived.
  private(set) var keys: RoomKeys?

  /// What to do about a relay's challenge.
  enum Answer: Sendable {
    case prove(ClientMessage)
    /// Derive the keys with these parameters first.
    case derive(KeyDerivation)
    case fail(ClientError)
  }

  init(isGiven: Bool, room: String) {
    self.isGiven = isGiven
    self.room = room
  }

  /// What a hello asks the room to be protected with, when this participant creates it.
  var protection: RoomProtection? { keys?.protection }

  mutating func derived(_ keys: RoomKeys) {
    guard isGiven else { return }
    self.keys = keys
  }

  func answer(_ challenge: RoomChallenge) -> Answer {
    guard isGiven else { return .fail(.passwordRequired(room: room)) }
    guard challenge.derivation.isValid else {
      return .fail(.invalid("the relay asked for a key derivation outside the protocol's limits"))
    }
    guard let keys, keys.derivation == challenge.derivation else {
      return .derive(challenge.derivation)
    }
    return .prove(.proof(signature: keys.proof(room: room, nonce: challenge.nonce)))
  }

  /// A request as it goes on the wire: in a room with a password, a messenger payload is
  /// sealed, at each sending, for the participant id it goes out as.
  func wire(_ request: OutboxRequest, as participant: ParticipantID?) -> ClientMessage {
    guard case .message(let kind, let text, let to) = request.body, let keys, let participant
    else { return request.message }
    let sealed = keys.seal(kind: kind, body: text, room: room, sender: participant.rawValue)
    return .send(
      seq: request.id, to: to, kind: RoomKeys.sealedKind, body: sealed, keep: request.body.keep)
  }

  /// A messenger payload as the person may see it. With a password, only what opens with
  /// the room's key is shown; anything else is reported, never shown as if it were theirs.
  func open(
    from: ParticipantID, name: String, kind: MessageKind, body: String, to: [ParticipantID]?
  ) -> ClientEvent {
    guard let keys else {
      if kind == RoomKeys.sealedKind {
        return .notice(.messageHidden(from: name, .sealedWithoutPassword))
      }
      return .message(from: from, name: name, kind: kind, body: body, to: to)
    }
    guard kind == RoomKeys.sealedKind else {
      return .notice(.messageHidden(from: name, .notSealed))
    }
    do throws(RoomCryptoError) {
      let (innerKind, text) = try keys.open(body, room: room, sender: from.rawValue)
      return .message(from: from, name: name, kind: innerKind, body: text, to: to)
    } catch {
      return .notice(.messageHidden(from: name, .unopenable(error.description)))
    }
  }
}
