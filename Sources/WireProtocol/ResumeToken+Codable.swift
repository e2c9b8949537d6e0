import Foundation
import PlaybackCoordination

/// Wire format: `{"participant":"p1"}` in a welcome; in a resuming hello also
/// `"proof"` (base64 of the 64-byte signature) and `"messagesReceived":12`. Written by hand
/// so that the format is a decision; see docs/PROTOCOL.md.
extension ResumeToken: Codable {
  private enum CodingKeys: String, CodingKey {
    case participant, proof, messagesReceived
  }

  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    participant = try c.decode(ParticipantID.self, forKey: .participant)
    proof = try c.contains(.proof) ? c.decodeBase64(forKey: .proof, bytes: 64...64) : []
    messagesReceived = try c.decodeIfPresent(UInt64.self, forKey: .messagesReceived)
  }

  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(participant, forKey: .participant)
    if !proof.isEmpty { try c.encode(Data(proof).base64EncodedString(), forKey: .proof) }
    try c.encodeIfPresent(messagesReceived, forKey: .messagesReceived)
  }
}

/// What a resume proof signs: the room, the member, and the relay it is addressed to (its
/// certificate's fingerprint, as the participant checked it; empty over plain TCP). Bound
/// to the relay so that no relay that reads a proof — the host's, a successor's, or one
/// that lied its way into the room's path — can use it at another.
public enum ResumeProof {
  public static func signedBytes(room: String, participant: ParticipantID, relay: String?)
    -> [UInt8]
  {
    Array("cowatch-resume-v1\u{0}\(room)\u{0}\(participant.rawValue)\u{0}\(relay ?? "")".utf8)
  }
}
