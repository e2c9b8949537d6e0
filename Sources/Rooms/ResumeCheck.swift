import WireProtocol

/// Whether a resume proves its member: an Ed25519 signature, by the key the member entered
/// with, of the room, the member and this relay (see ``ResumeProof``). The relay (and every
/// copy of the room it feeds) holds only public keys; a proof names the relay it was sent
/// to, so one read here is no good at any other relay.
public struct ResumeCheck: Sendable {
  /// The fingerprints of this relay's certificates (empty over plain TCP and in memory,
  /// where a proof names no relay).
  public var relays: [String]
  private let verify: RelayCore.ProofVerifier

  public init(relays: [String], verify: @escaping RelayCore.ProofVerifier) {
    self.relays = relays
    self.verify = verify
  }

  public func proves(_ token: ResumeToken, room: String, key: [UInt8]) -> Bool {
    guard key.count == 32, token.proof.count == 64 else { return false }
    let names: [String?] = relays.isEmpty ? [nil] : relays
    return names.contains { relay in
      verify(
        token.proof,
        ResumeProof.signedBytes(room: room, participant: token.participant, relay: relay), key)
    }
  }
}
