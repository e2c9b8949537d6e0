import Foundation

/// The relay's answer to a hello for a password-protected room: derive the room's keys
/// with `derivation` and sign `nonce` (see ``ClientMessage/proof(signature:)``).
public struct RoomChallenge: Hashable, Sendable {
  public var derivation: KeyDerivation
  /// Fresh random bytes for this hello, so that a proof cannot be replayed.
  public var nonce: [UInt8]

  public static let nonceBytes = 16...64

  public init(derivation: KeyDerivation, nonce: [UInt8]) {
    self.derivation = derivation
    self.nonce = nonce
  }

  /// What an entrant signs: the nonce bound to the room's name, under a label that no
  /// other signature in Cowatch uses.
  public static func signedBytes(room: String, nonce: [UInt8]) -> [UInt8] {
    Array("cowatch-room-proof-v1\u{0}\(room)\u{0}".utf8) + nonce
  }
}

extension RoomChallenge: Codable {
  private enum CodingKeys: String, CodingKey { case derivation, nonce }

  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    derivation = try c.decode(KeyDerivation.self, forKey: .derivation)
    nonce = try c.decodeBase64(forKey: .nonce, bytes: Self.nonceBytes)
  }

  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(derivation, forKey: .derivation)
    try c.encode(Data(nonce).base64EncodedString(), forKey: .nonce)
  }
}
