import PlaybackCoordination

/// Wire format: an object with every stored property by name;
/// `playerOffset` is omitted until reported, `origin` when it is `cowatch`,
/// `personalOffset` when it is 0 (read as 0 when absent), `sealingKey` until announced,
/// `lender` when it is nil, `readyToWatch` when false (read as false when absent).
///
/// Written by hand, not synthesized, so that the format is a decision that a Swift
/// refactor cannot change by accident; see docs/PROTOCOL.md.
extension Participant: Codable {
  private enum CodingKeys: String, CodingKey {
    case id, name, isJoined, readiness, suspensions, autoAdvance, isConnected, roundTrip,
      startupLatency, playerOffset, origin, personalOffset, sealingKey, lender, readyToWatch
  }

  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    let id = try c.decode(ParticipantID.self, forKey: .id)
    let name = try c.decode(String.self, forKey: .name)
    let isJoined = try c.decode(Bool.self, forKey: .isJoined)
    let readiness = try c.decode(Readiness.self, forKey: .readiness)
    let suspensions = try c.decode([SuspensionReason].self, forKey: .suspensions)
    let autoAdvance = try c.decode(Bool.self, forKey: .autoAdvance)
    let isConnected = try c.decode(Bool.self, forKey: .isConnected)
    let roundTrip = try c.decode(Double.self, forKey: .roundTrip)
    let startupLatency = try c.decode(Double.self, forKey: .startupLatency)
    let playerOffset = try c.decodeIfPresent(Double.self, forKey: .playerOffset)
    let origin = try c.decodeIfPresent(ParticipantOrigin.self, forKey: .origin) ?? .cowatch
    let personalOffset = try c.decodeIfPresent(Double.self, forKey: .personalOffset) ?? 0
    guard personalOffset.isFinite, abs(personalOffset) <= Participant.maximumPersonalOffset else {
      throw DecodingError.dataCorruptedError(
        forKey: .personalOffset, in: c,
        debugDescription: "a personal offset is at most \(Participant.maximumPersonalOffset) s")
    }
    let sealingKey = try c.decodeIfPresent(String.self, forKey: .sealingKey)
    if let sealingKey, !Participant.isSealingKey(sealingKey) {
      throw DecodingError.dataCorruptedError(
        forKey: .sealingKey, in: c, debugDescription: "a sealing key is 64 lower-case hex digits")
    }
    let lender = try c.decodeIfPresent(ParticipantID.self, forKey: .lender)
    let readyToWatch = try c.decodeIfPresent(Bool.self, forKey: .readyToWatch) ?? false
    self.init(
      id: id, name: name, isJoined: isJoined, readiness: readiness, suspensions: suspensions,
      autoAdvance: autoAdvance, isConnected: isConnected, roundTrip: roundTrip,
      startupLatency: startupLatency, playerOffset: playerOffset, origin: origin,
      personalOffset: personalOffset, sealingKey: sealingKey, lender: lender,
      readyToWatch: readyToWatch)
  }

  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(id, forKey: .id)
    try c.encode(name, forKey: .name)
    try c.encode(isJoined, forKey: .isJoined)
    try c.encode(readiness, forKey: .readiness)
    try c.encode(suspensions, forKey: .suspensions)
    try c.encode(autoAdvance, forKey: .autoAdvance)
    try c.encode(isConnected, forKey: .isConnected)
    try c.encode(roundTrip, forKey: .roundTrip)
    try c.encode(startupLatency, forKey: .startupLatency)
    try c.encodeIfPresent(playerOffset, forKey: .playerOffset)
    if origin != .cowatch { try c.encode(origin, forKey: .origin) }
    if personalOffset != 0 { try c.encode(personalOffset, forKey: .personalOffset) }
    try c.encodeIfPresent(sealingKey, forKey: .sealingKey)
    try c.encodeIfPresent(lender, forKey: .lender)
    if readyToWatch { try c.encode(readyToWatch, forKey: .readyToWatch) }
  }
}
