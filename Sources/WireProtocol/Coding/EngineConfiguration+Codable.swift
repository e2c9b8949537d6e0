import PlaybackCoordination

/// Wire format: an object with every policy by name, all required but `answerTimeout`
/// (added in version 13), `readyCountdown` and `readyCheckTimeout` (added in version 17; a
/// stored configuration without them reads as the default), e.g.
/// `"allowedRates":{"min":0.25,"max":4}` and `"waitingReasons":["stallRecovery"]`.
///
/// `waitingReasons` is a set in Swift, whose iteration order changes from one process to
/// the next; it is written sorted so that the same configuration is always the same bytes.
/// Written by hand so that the format is a decision; see docs/PROTOCOL.md.
extension EngineConfiguration: Codable {
  private enum CodingKeys: String, CodingKey {
    case waitingReasons, answerTimeout, firstLoadTimeout, rebufferTimeout, suspensionWaitTimeout
    case roundTripFactor, minimumStartDelay, maximumStartDelay, allowedRates, endTolerance
    case readyCountdown, readyCheckTimeout
  }

  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    let waitingReasons = Set(try c.decode([SuspensionReason].self, forKey: .waitingReasons))
    let answerTimeout =
      try c.decodeIfPresent(Double.self, forKey: .answerTimeout)
      ?? EngineConfiguration().answerTimeout
    let firstLoadTimeout = try c.decode(Double.self, forKey: .firstLoadTimeout)
    let rebufferTimeout = try c.decode(Double.self, forKey: .rebufferTimeout)
    let suspensionWaitTimeout = try c.decode(Double.self, forKey: .suspensionWaitTimeout)
    let roundTripFactor = try c.decode(Double.self, forKey: .roundTripFactor)
    let minimumStartDelay = try c.decode(Double.self, forKey: .minimumStartDelay)
    let maximumStartDelay = try c.decode(Double.self, forKey: .maximumStartDelay)
    let allowedRates = try c.decodeRange(forKey: .allowedRates)
    let endTolerance = try c.decode(Double.self, forKey: .endTolerance)
    let readyCountdown =
      try c.decodeIfPresent(Double.self, forKey: .readyCountdown)
      ?? EngineConfiguration().readyCountdown
    let readyCheckTimeout =
      try c.decodeIfPresent(Double.self, forKey: .readyCheckTimeout)
      ?? EngineConfiguration().readyCheckTimeout
    self.init(
      waitingReasons: waitingReasons, answerTimeout: answerTimeout,
      firstLoadTimeout: firstLoadTimeout,
      rebufferTimeout: rebufferTimeout, suspensionWaitTimeout: suspensionWaitTimeout,
      roundTripFactor: roundTripFactor, minimumStartDelay: minimumStartDelay,
      maximumStartDelay: maximumStartDelay, allowedRates: allowedRates, endTolerance: endTolerance,
      readyCountdown: readyCountdown, readyCheckTimeout: readyCheckTimeout)
  }

  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(waitingReasons.sorted(), forKey: .waitingReasons)
    try c.encode(answerTimeout, forKey: .answerTimeout)
    try c.encode(firstLoadTimeout, forKey: .firstLoadTimeout)
    try c.encode(rebufferTimeout, forKey: .rebufferTimeout)
    try c.encode(suspensionWaitTimeout, forKey: .suspensionWaitTimeout)
    try c.encode(roundTripFactor, forKey: .roundTripFactor)
    try c.encode(minimumStartDelay, forKey: .minimumStartDelay)
    try c.encode(maximumStartDelay, forKey: .maximumStartDelay)
    try c.encodeRange(allowedRates, forKey: .allowedRates)
    try c.encode(endTolerance, forKey: .endTolerance)
    try c.encode(readyCountdown, forKey: .readyCountdown)
    try c.encode(readyCheckTimeout, forKey: .readyCheckTimeout)
  }
}
