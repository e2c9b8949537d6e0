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
