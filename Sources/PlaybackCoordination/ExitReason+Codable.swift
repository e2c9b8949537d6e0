/// Wire format (protocol 2): a plain string, the case name (`"quit"`). Explicit rather than
/// the raw-value default so that an unknown value is refused with a message saying what was
/// expected; see docs/PROTOCOL.md.
extension ExitReason: Codable {
  public init(from decoder: any Decoder) throws {
    let c = try decoder.singleValueContainer()
    let text = try c.decode(String.self)
    guard let value = Self(rawValue: text) else {
      throw DecodingError.dataCorruptedError(
        in: c,
        debugDescription:
          "unknown exit reason \"\(text)\" (expected quit, disconnected, timedOut or removed)")
    }
    self = value
  }

  public func encode(to encoder: any Encoder) throws {
    var c = encoder.singleValueContainer()
    try c.encode(rawValue)
  }
}
