import PlaybackCoordination

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
