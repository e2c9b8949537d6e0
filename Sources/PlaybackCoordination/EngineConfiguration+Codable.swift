/// Wire format (protocol 2): an object with every policy by name, all required, e.g.
/// `"allowedRates":{"min":0.25,"max":4}` and `"waitingReasons":["stallRecovery"]`.
///
/// `waitingReasons` is a set in Swift, whose iteration order changes from one process to
/// the next; it is written sorted so that the same configuration is always the same bytes.
/// Written by hand so that the format is a decision; see docs/PROTOCOL.md.
extension EngineConfiguration: Codable {
  private enum CodingKeys: String, CodingKey {
    case waitingReasons, firstLoadTimeout, rebufferTimeout, suspensionWaitTimeout
    case roundTripFactor, minimumStartDelay, maximumStartDelay, allowedRates, endTolerance
  }

  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    waitingReasons = Set(try c.decode([SuspensionReason].self, forKey: .waitingReasons))
    firstLoadTimeout = try c.decode(Double.self, forKey: .firstLoadTimeout)
    rebufferTimeout = try c.decode(Double.self, forKey: .rebufferTimeout)
    suspensionWaitTimeout = try c.decode(Double.self, forKey: .suspensionWaitTimeout)
    roundTripFactor = try c.decode(Double.self, forKey: .roundTripFactor)
    minimumStartDelay = try c.decode(Double.self, forKey: .minimumStartDelay)
    maximumStartDelay = try c.decode(Double.self, forKey: .maximumStartDelay)
    allowedRates = try c.decodeRange(forKey: .allowedRates)
    endTolerance = try c.decode(Double.self, forKey: .endTolerance)
  }

  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(waitingReasons.sorted(), forKey: .waitingReasons)
    try c.encode(firstLoadTimeout, forKey: .firstLoadTimeout)
    try c.encode(rebufferTimeout, forKey: .rebufferTimeout)
    try c.encode(suspensionWaitTimeout, forKey: .suspensionWaitTimeout)
    try c.encode(roundTripFactor, forKey: .roundTripFactor)
    try c.encode(minimumStartDelay, forKey: .minimumStartDelay)
    try c.encode(maximumStartDelay, forKey: .maximumStartDelay)
    try c.encodeRange(allowedRates, forKey: .allowedRates)
    try c.encode(endTolerance, forKey: .endTolerance)
  }
}
