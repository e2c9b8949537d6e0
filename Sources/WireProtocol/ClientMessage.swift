import Foundation
import PlaybackCoordination

/// Who a messenger payload goes to.
public enum Recipients: Hashable, Sendable {
  case all
  case only([ParticipantID])
}

/// A message from a participant to the relay. One JSON object per line; see
/// docs/PROTOCOL.md.
public enum ClientMessage: Hashable, Sendable {
  /// First message on a connection. `resume` (the participant id from a previous
  /// `welcome`, with a proof signed by the participant's resume key) rebinds the connection
  /// to the same participant after a dropped connection. `protect`, from someone who has
  /// the room's password, creates the room protected by it if it does not exist yet; it is
  /// refused for an existing room without a password. `resumeKey`, from a new member: the
  /// Ed25519 public key (32 bytes) its later resumes prove themselves with. The relay keeps
  /// only that key, so nothing it holds, or feeds to successors, lets anyone resume.
  case hello(
    version: Int, name: String, room: String, resume: ResumeToken?,
    protect: RoomProtection? = nil, resumeKey: [UInt8]? = nil)
  /// Answers the relay's ``ServerMessage/challenge(_:)``: an Ed25519 signature (64 bytes)
  /// of ``RoomChallenge/signedBytes(room:nonce:)`` with the key derived from the password.
  case proof(signature: [UInt8])
  /// A group command. `id` is a request id: it increases per participant across commands
  /// and messenger payloads, and the relay answers each with `accepted` or `rejected`
  /// once, however often it is resent.
  case command(id: UInt64, GroupCommand)
  /// Clock sync and heartbeat: `t0` is the sender's local time.
  case ping(id: UInt64, t0: LocalInstant)
  /// A messenger payload (chat, reactions, ...); `seq` is a request id from the same
  /// counter as commands' ids, answered with `accepted` or `rejected`. `keep`: part of the
  /// room's conversation (chat or a reaction to everyone), which the relay keeps for people
  /// who enter later; the sender says so because the relay cannot read a sealed payload's
  /// kind (version 17).
  case send(seq: UInt64, to: Recipients, kind: MessageKind, body: String, keep: Bool = false)
  /// Settles a request sent before a reconnection that has since gone stale: if the relay
  /// applied `id` it answers as it did then; otherwise it never applies it and answers
  /// `rejected`. Either way the participant learns the request's fate exactly once.
  case expire(id: UInt64)
  /// Asks for the whole room state (answered with `update`), after a missed step.
  case resync
  /// Leaving the room on purpose.
  case bye
  /// Offers to carry the room if its relay goes: this participant's machine runs a relay
  /// that listens on `offer.port`. Sent after each welcome by a participant that can.
  case carry(CarryOffer)
  /// Instead of a hello: does this relay run `room`? Asked by a relay that lost its
  /// successors without a word (its machine slept, or its network went), to learn whether
  /// one of them carries the room on now; answered with `located`, then closed.
  case locate(room: String)
  /// Asks for a tunnel to `lender`, a member of the same room, to read its lent copy through
  /// the relay when it cannot be reached directly. `ref` (the asker's choice) comes back in
  /// the answer: ``ServerMessage/tunnelTicket(ref:secret:)`` or
  /// ``ServerMessage/tunnelRefused(ref:reason:)``.
  case tunnelOpen(ref: UInt64, lender: ParticipantID)
  /// Instead of a hello, on a fresh connection: this connection is one half of a tunnel,
  /// the borrower's (`secret` from its ticket) or the lender's (from its call). Once both
  /// halves are there the relay answers
  /// ``ServerMessage/tunnelReady`` and from then on carries bytes, not lines.
  case tunnel(secret: String)
}

/// Lets a participant resume its place in a room after a dropped connection: who it was,
/// and (in a hello) a proof that it holds the resume key it entered with — an Ed25519
/// signature of ``ResumeProof/signedBytes(room:participant:relay:)``, which names the relay
/// it is addressed to, so that the relay that reads it cannot resume as the member anywhere
/// else. Empty in a welcome.
public struct ResumeToken: Hashable, Sendable {
  public var participant: ParticipantID
  public var proof: [UInt8]
  /// Sent back by the participant when it resumes: how many messenger payloads it has
  /// received as this member. The relay resends the ones after it that it still holds, so
  /// a payload lost with a dropped connection is not lost for good. The relay leaves it
  /// out.
  public var messagesReceived: UInt64?
  public init(participant: ParticipantID, proof: [UInt8] = [], messagesReceived: UInt64? = nil) {
    self.participant = participant
    self.proof = proof
    self.messagesReceived = messagesReceived
  }
}

extension ClientMessage: Codable {
  private enum CodingKeys: String, CodingKey {
    case type, version, name, room, resume, protect, signature, id, command, t0, seq, to, kind,
      body, keep, port, fingerprint, runsRelay, relayKey, resumeKey, ref, lender, secret
  }

  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    switch try c.decodeWireType(Self.self, forKey: .type) {
    case .hello:
      self = .hello(
        version: try c.decode(Int.self, forKey: .version),
        name: try c.decode(String.self, forKey: .name),
        room: try c.decode(String.self, forKey: .room),
        resume: try c.decodeIfPresent(ResumeToken.self, forKey: .resume),
        protect: try c.decodeIfPresent(RoomProtection.self, forKey: .protect),
        resumeKey: try c.contains(.resumeKey)
          ? c.decodeBase64(forKey: .resumeKey, bytes: 32...32) : nil)
    case .proof:
      self = .proof(signature: try c.decodeBase64(forKey: .signature, bytes: 64...64))
    case .command:
      self = .command(
        id: try c.decode(UInt64.self, forKey: .id),
        try c.decode(GroupCommand.self, forKey: .command))
    case .ping:
      self = .ping(
        id: try c.decode(UInt64.self, forKey: .id), t0: try c.decode(LocalInstant.self, forKey: .t0)
      )
    case .send:
      self = .send(
        seq: try c.decode(UInt64.self, forKey: .seq),
        to: try c.decode(Recipients.self, forKey: .to),
        kind: try c.decode(MessageKind.self, forKey: .kind),
        body: try c.decode(String.self, forKey: .body),
        keep: try c.decodeIfPresent(Bool.self, forKey: .keep) ?? false)
    case .expire:
      self = .expire(id: try c.decode(UInt64.self, forKey: .id))
    case .resync:
      self = .resync
    case .bye:
      self = .bye
    case .carry:
      let port = try c.decode(Int.self, forKey: .port)
      guard (1...65535).contains(port) else {
        throw DecodingError.dataCorruptedError(
          forKey: .port, in: c, debugDescription: "a port number 1–65535")
      }
      let fingerprint = try c.decodeIfPresent(String.self, forKey: .fingerprint)
      if let fingerprint, !RelayEndpoint.isPlausible(fingerprint: fingerprint) {
        throw DecodingError.dataCorruptedError(
          forKey: .fingerprint, in: c, debugDescription: "not a certificate fingerprint")
      }
      let relayKey = try c.decodeIfPresent(String.self, forKey: .relayKey)
      if let relayKey, !RelayKey.isPlausible(relayKey) {
        throw DecodingError.dataCorruptedError(
          forKey: .relayKey, in: c, debugDescription: "not a relay key")
      }
      self = .carry(
        CarryOffer(
          port: port, fingerprint: fingerprint,
          runsRelay: try c.decodeIfPresent(Bool.self, forKey: .runsRelay) ?? false,
          relayKey: relayKey))
    case .locate:
      self = .locate(room: try c.decode(String.self, forKey: .room))
    case .tunnelOpen:
      self = .tunnelOpen(
        ref: try c.decode(UInt64.self, forKey: .ref),
        lender: try c.decode(ParticipantID.self, forKey: .lender))
    case .tunnel:
      let secret = try c.decode(String.self, forKey: .secret)
      guard TunnelSecret.isPlausible(secret) else {
        throw DecodingError.dataCorruptedError(
          forKey: .secret, in: c, debugDescription: "not a tunnel secret (32 hex digits)")
      }
      self = .tunnel(secret: secret)
    }
  }

  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(wireType.rawValue, forKey: .type)
    switch self {
    case .hello(let version, let name, let room, let resume, let protect, let resumeKey):
      try c.encode(version, forKey: .version)
      try c.encode(name, forKey: .name)
      try c.encode(room, forKey: .room)
      try c.encodeIfPresent(resume, forKey: .resume)
      try c.encodeIfPresent(protect, forKey: .protect)
      if let resumeKey {
        try c.encode(Data(resumeKey).base64EncodedString(), forKey: .resumeKey)
      }
    case .proof(let signature):
      try c.encode(Data(signature).base64EncodedString(), forKey: .signature)
    case .command(let id, let command):
      try c.encode(id, forKey: .id)
      try c.encode(command, forKey: .command)
    case .ping(let id, let t0):
      try c.encode(id, forKey: .id)
      try c.encode(t0, forKey: .t0)
    case .send(let seq, let to, let kind, let body, let keep):
      try c.encode(seq, forKey: .seq)
      try c.encode(to, forKey: .to)
      try c.encode(kind, forKey: .kind)
      try c.encode(body, forKey: .body)
      if keep { try c.encode(true, forKey: .keep) }
    case .expire(let id):
      try c.encode(id, forKey: .id)
    case .carry(let offer):
      try c.encode(offer.port, forKey: .port)
      try c.encodeIfPresent(offer.fingerprint, forKey: .fingerprint)
      if offer.runsRelay { try c.encode(true, forKey: .runsRelay) }
      try c.encodeIfPresent(offer.relayKey, forKey: .relayKey)
    case .locate(let room):
      try c.encode(room, forKey: .room)
    case .tunnelOpen(let ref, let lender):
      try c.encode(ref, forKey: .ref)
      try c.encode(lender, forKey: .lender)
    case .tunnel(let secret):
      try c.encode(secret, forKey: .secret)
    case .resync, .bye:
      break
    }
  }
}
