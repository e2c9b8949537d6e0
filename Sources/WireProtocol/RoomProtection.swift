import Foundation
import PlaybackCoordination

/// What makes a room password-protected, as its creator sends it and the relay keeps it:
/// how keys are derived, and the public key that checks entrants' proofs.
///
/// The relay holds no secret: the verifier is an Ed25519 public key derived from the
/// password, so it can check a proof but not make one. (Whoever copies it can still try
/// passwords offline, each at the derivation's cost; see docs/SECURITY.md.)
public struct RoomProtection: Hashable, Sendable {
  public var derivation: KeyDerivation
  /// An Ed25519 public key, 32 bytes.
  public var verifier: [UInt8]

  /// The messenger kind payloads in a protected room travel under, sealed; the real kind
  /// is inside. The relay routes no other kind there.
  public static let sealedKind = MessageKind.sealed

  public init(derivation: KeyDerivation, verifier: [UInt8]) {
    self.derivation = derivation
    self.verifier = verifier
  }
}

extension RoomProtection: Codable {
  private enum CodingKeys: String, CodingKey { case derivation, verifier }

  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    derivation = try c.decode(KeyDerivation.self, forKey: .derivation)
    verifier = try c.decodeBase64(forKey: .verifier, bytes: 32...32)
  }

  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(derivation, forKey: .derivation)
    try c.encode(Data(verifier).base64EncodedString(), forKey: .verifier)
  }
}
