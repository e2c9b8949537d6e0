/// Wire format (protocol 2): a plain string, the case name (`"roomFull"`). Explicit rather
/// than the raw-value default so that an unknown code is refused with a message saying
/// which; see docs/PROTOCOL.md.
extension ErrorCode: Codable {
  public init(from decoder: any Decoder) throws {
    let c = try decoder.singleValueContainer()
    let text = try c.decode(String.self)
    guard let value = Self(rawValue: text) else {
      throw DecodingError.dataCorruptedError(
        in: c, debugDescription: "unknown error code \"\(text)\"")
    }
    self = value
  }

  public func encode(to encoder: any Encoder) throws {
    var c = encoder.singleValueContainer()
    try c.encode(rawValue)
  }
}
