import PlaybackCoordination

/// One member of a stored room: who it is, the public key its resumes prove themselves
/// with (nothing that lets anyone resume), the messenger payloads held for it and the
/// answers to its latest requests.
public struct StoredMember: Sendable, Hashable, Codable {
  public var participant: ParticipantID
  public var name: String
  /// The member's Ed25519 resume key (32 bytes; empty: it cannot resume, e.g. it entered
  /// without one). Public: a copy of the store, or a successor's feed, does not let anyone
  /// resume as the member.
  public var resumeKey: [UInt8]
  /// Payloads numbered by ``MessageLog``: how many were numbered, how many were written to
  /// a connection, and the ones still kept (oldest first).
  public var messageCount: UInt64
  public var messagesSent: UInt64
  public var messages: [StoredMessage]
  /// The answers to the member's most recent requests, oldest first, and the id at or below
  /// which requests have left the window: a request resent after a restart is answered
  /// again, not applied twice.
  public var answers: [StoredAnswer]
  public var answerFloor: UInt64
  /// Set when `messages` and `answers` hold only what was not sent to a successor yet:
  /// the number of the oldest message the relay still keeps (the successor drops older
  /// ones, and answers at or below `answerFloor`). Nil in a store, where they are all.
  public var keptFrom: UInt64?

  /// Answers a successor keeps per member (as a store does).
  public static let fedAnswers = 32

  public init(
    participant: ParticipantID, name: String, resumeKey: [UInt8], messageCount: UInt64 = 0,
    messagesSent: UInt64 = 0, messages: [StoredMessage] = [], answers: [StoredAnswer] = [],
    answerFloor: UInt64 = 0, keptFrom: UInt64? = nil
  ) {
    self.keptFrom = keptFrom
    self.participant = participant
    self.name = name
    self.resumeKey = resumeKey
    self.messageCount = messageCount
    self.messagesSent = messagesSent
    self.messages = messages
    self.answers = answers
    self.answerFloor = answerFloor
  }

  private enum CodingKeys: String, CodingKey {
    case participant, name, resumeKey, messageCount, messagesSent, messages, answers
    case answerFloor, keptFrom
  }

  /// A member stored before protocol 14 has no `resumeKey` (it had a secret's hash): it
  /// comes back unable to resume, and enters anew when it returns.
  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    self.init(
      participant: try c.decode(ParticipantID.self, forKey: .participant),
      name: try c.decode(String.self, forKey: .name),
      resumeKey: try c.decodeIfPresent([UInt8].self, forKey: .resumeKey) ?? [],
      messageCount: try c.decode(UInt64.self, forKey: .messageCount),
      messagesSent: try c.decode(UInt64.self, forKey: .messagesSent),
      messages: try c.decode([StoredMessage].self, forKey: .messages),
      answers: try c.decode([StoredAnswer].self, forKey: .answers),
      answerFloor: try c.decode(UInt64.self, forKey: .answerFloor),
      keptFrom: try c.decodeIfPresent(UInt64.self, forKey: .keptFrom))
  }
}

/// One messenger payload held for a member, with its number and the bytes it counts.
public struct StoredMessage: Sendable, Hashable, Codable {
  public var index: UInt64
  public var message: ServerMessage
  public var bytes: Int

  public init(index: UInt64, message: ServerMessage, bytes: Int) {
    self.index = index
    self.message = message
    self.bytes = bytes
  }
}

/// The answer the relay gave to one request id. Encoded compactly (`{"i":7,"s":120}` for
/// the usual "accepted at sequence 120"): a member's row holds dozens and is rewritten with
/// each of its requests.
public struct StoredAnswer: Sendable, Hashable, Codable {
  public var id: UInt64
  public var answer: ServerMessage

  public init(id: UInt64, answer: ServerMessage) {
    self.id = id
    self.answer = answer
  }

  private enum CodingKeys: String, CodingKey { case i, s, m }

  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    id = try c.decode(UInt64.self, forKey: .i)
    if let sequence = try c.decodeIfPresent(UInt64.self, forKey: .s) {
      answer = .accepted(id: id, sequence: sequence)
    } else {
      answer = try c.decode(ServerMessage.self, forKey: .m)
    }
  }

  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(id, forKey: .i)
    if case .accepted(let answered, let sequence) = answer, answered == id {
      try c.encode(sequence, forKey: .s)
    } else {
      try c.encode(answer, forKey: .m)
    }
  }
}
