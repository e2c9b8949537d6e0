import Crypto
import Foundation
import PlaybackCoordination
import WireProtocol
import _CryptoExtras

/// The keys one room's password gives, for one ``KeyDerivation``: a signing key that proves
/// knowledge of the password to the relay, and a message key that seals what participants
/// write each other.
///
/// Both come from one slow scrypt derivation through HKDF with separate labels, so the
/// relay's verifier (the signing key's public half) says nothing about the message key.
public struct RoomKeys: Sendable {
  public let derivation: KeyDerivation
  /// The signing key's seed (swift-crypto 3's keys are not `Sendable`).
  private let signingSeed: [UInt8]
  private var signingKey: Curve25519.Signing.PrivateKey {
    // The seed came out of a key made from it, so this cannot fail.
    try! Curve25519.Signing.PrivateKey(rawRepresentation: signingSeed)
  }
  /// The message key's bytes (swift-crypto's `SymmetricKey` is not `Sendable`).
  private let messageKeyBytes: [UInt8]
  private var messageKey: SymmetricKey { SymmetricKey(data: messageKeyBytes) }

  /// Runs scrypt: deliberately slow (about 0.3 s and 128 MiB at the default cost), so call
  /// it off any thread that must stay responsive.
  public static func derive(password: RoomPassword, derivation: KeyDerivation)
    throws(RoomCryptoError)
    -> RoomKeys
  {
    guard derivation.isValid else { throw .invalidDerivation }
    let master: SymmetricKey
    do {
      master = try KDF.Scrypt.deriveKey(
        from: password.keyMaterial, salt: derivation.salt, outputByteCount: 32,
        rounds: 1 << derivation.cost, blockSize: 8, parallelism: 1)
    } catch {
      throw .derivationFailed(String(describing: error))
    }
    let seed = HKDF<SHA256>.deriveKey(
      inputKeyMaterial: master, info: Array("cowatch room auth v1".utf8), outputByteCount: 32)
    let messageKey = HKDF<SHA256>.deriveKey(
      inputKeyMaterial: master, info: Array("cowatch room messages v1".utf8), outputByteCount: 32)
    let signingKey: Curve25519.Signing.PrivateKey
    do {
      signingKey = try seed.withUnsafeBytes {
        try Curve25519.Signing.PrivateKey(rawRepresentation: $0)
      }
    } catch {
      throw .derivationFailed(String(describing: error))
    }
    return RoomKeys(
      derivation: derivation, signingSeed: Array(signingKey.rawRepresentation),
      messageKeyBytes: messageKey.withUnsafeBytes { Array($0) })
  }

  private init(
    derivation: KeyDerivation, signingSeed: [UInt8], messageKeyBytes: [UInt8]
  ) {
    self.derivation = derivation
    self.signingSeed = signingSeed
    self.messageKeyBytes = messageKeyBytes
  }

  /// What the room's creator gives the relay: the derivation and the public verifier.
  public var protection: RoomProtection {
    RoomProtection(derivation: derivation, verifier: Array(signingKey.publicKey.rawRepresentation))
  }

  /// The answer to a challenge for `room`.
  public func proof(room: String, nonce: [UInt8]) -> [UInt8] {
    let bytes = RoomChallenge.signedBytes(room: room, nonce: nonce)
    return (try? Array(signingKey.signature(for: bytes))) ?? []
  }

  /// Whether `signature` proves knowledge of the password behind `verifier` for this
  /// challenge. For the relay, which holds no key.
  public static func verify(
    proof signature: [UInt8], room: String, nonce: [UInt8], verifier: [UInt8]
  ) -> Bool {
    verify(
      signature: signature, of: RoomChallenge.signedBytes(room: room, nonce: nonce),
      verifier: verifier)
  }

  /// The check the relay's core is given (``RelayCore/ProofVerifier``).
  public static func verify(signature: [UInt8], of signed: [UInt8], verifier: [UInt8]) -> Bool {
    guard signature.count == 64,
      let key = try? Curve25519.Signing.PublicKey(rawRepresentation: verifier)
    else { return false }
    return key.isValidSignature(signature, for: signed)
  }

  // MARK: - Messages

  /// The messenger kind sealed payloads travel under: the real kind is inside.
  public static let sealedKind = RoomProtection.sealedKind

  /// Seals a messenger payload (its kind and body) so that only those who know the password
  /// can read it. The room and the sender's id are bound in as associated data: the relay
  /// can neither move it to another room nor pass it off as someone else's.
  public func seal(kind: MessageKind, body: String, room: String, sender: String) -> String {
    let plain = SealedPayload(kind: kind.rawValue, body: body)
    let data = (try? JSONEncoder().encode(plain)) ?? Data()
    let box = try? ChaChaPoly.seal(
      data, using: messageKey, authenticating: Self.associatedData(room: room, sender: sender))
    return box?.combined.base64EncodedString() ?? ""
  }

  /// Opens a sealed payload from `sender`, or says why it cannot.
  public func open(_ text: String, room: String, sender: String) throws(RoomCryptoError) -> (
    kind: MessageKind, body: String
  ) {
    guard let data = Data(base64Encoded: text), let box = try? ChaChaPoly.SealedBox(combined: data)
    else {
      throw .unreadableMessage
    }
    guard
      let plain = try? ChaChaPoly.open(
        box, using: messageKey, authenticating: Self.associatedData(room: room, sender: sender))
    else { throw .notSealedForThisRoom }
    guard let payload = try? JSONDecoder().decode(SealedPayload.self, from: plain) else {
      throw .unreadableMessage
    }
    return (MessageKind(payload.kind), payload.body)
  }

  private static func associatedData(room: String, sender: String) -> Data {
    Data("cowatch-message-v1\u{0}\(room)\u{0}\(sender)".utf8)
  }

  private struct SealedPayload: Codable {
    var kind: String
    var body: String
  }
}
