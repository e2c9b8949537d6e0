import Crypto
import PlaybackCoordination
import WireProtocol

/// A participant's key for taking its place again after a dropped connection: an Ed25519
/// key pair made from the system's CSPRNG when the participant starts. Its public half
/// goes to the relay in the first hello and is all a relay, its store, or a successor fed
/// a copy of the room ever holds; a resume proves the private half by signing the room,
/// the member and the relay it is sent to (``ResumeProof``). So no relay learns anything
/// it could resume with elsewhere, and nothing secret travels in a hello.
public struct ResumeKey: Sendable {
  /// The private key's bytes (swift-crypto's keys are not `Sendable`).
  private let privateBytes: [UInt8]
  /// The public half, as the hello sends it (32 bytes).
  public let publicKey: [UInt8]

  private var privateKey: Curve25519.Signing.PrivateKey {
    // The bytes came out of a key made from them, so this cannot fail.
    try! Curve25519.Signing.PrivateKey(rawRepresentation: privateBytes)
  }

  /// A new key pair, from the system's CSPRNG.
  public static func generate() -> ResumeKey {
    ResumeKey(Curve25519.Signing.PrivateKey())
  }

  private init(_ key: Curve25519.Signing.PrivateKey) {
    privateBytes = Array(key.rawRepresentation)
    publicKey = Array(key.publicKey.rawRepresentation)
  }

  /// The proof for a resume as `participant` in `room`, addressed to the relay whose
  /// certificate has `relay` as fingerprint (nil over plain TCP).
  public func prove(room: String, participant: ParticipantID, relay: String?) -> [UInt8] {
    let signed = ResumeProof.signedBytes(room: room, participant: participant, relay: relay)
    // Signing with a valid key does not fail.
    return Array(try! privateKey.signature(for: signed))
  }
}
