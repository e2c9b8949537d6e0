import PlaybackCoordination
import RoomCrypto
import Rooms
import WireProtocol

/// Resume keys for members `p1`, `p2`, `p3` of room `lobby`, as tests of a standby relay's
/// election use them: the members' public keys for a copy, and their resumes, proven or
/// forged, checked as a relay in memory checks them (proofs name no relay).
public enum ResumeKeys {
  /// Each member's resume key.
  public static let keys = Dictionary(
    uniqueKeysWithValues: ["p1", "p2", "p3"].map { ($0, ResumeKey.generate()) })

  /// How a relay in memory checks proofs.
  public static let check = ResumeCheck(
    relays: [], verify: RoomKeys.verify(signature:of:verifier:))

  /// `id`'s member of a copy, with its public key.
  public static func member(_ id: String) -> StoredMember {
    StoredMember(participant: ParticipantID(id), name: id, resumeKey: keys[id]!.publicKey)
  }

  /// `id`'s resume in `lobby`, proven by its key; `forged`: a proof that is not its key's.
  public static func token(_ id: String, forged: Bool = false) -> ResumeToken {
    let key = forged ? ResumeKey.generate() : keys[id]!
    return ResumeToken(
      participant: ParticipantID(id),
      proof: key.prove(room: "lobby", participant: ParticipantID(id), relay: nil))
  }
}
