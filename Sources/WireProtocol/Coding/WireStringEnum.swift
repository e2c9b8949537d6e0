/// A simple enumeration on the wire (protocol 2): a plain string, the case name. Written
/// once here rather than derived from the raw value, so that an unknown value is refused
/// with a message naming what was expected; see docs/PROTOCOL.md.
public protocol WireStringEnum: RawRepresentable, CaseIterable, Codable
where RawValue == String {
  /// What the value is called in messages ("readiness", "exit reason").
  static var wireName: String { get }
}

extension WireStringEnum {
  public init(from decoder: any Decoder) throws {
    let c = try decoder.singleValueContainer()
    let text = try c.decode(String.self)
    guard let value = Self(rawValue: text) else {
      let names = Self.allCases.map(\.rawValue)
      let expected =
        names.count > 1
        ? names.dropLast().joined(separator: ", ") + " or " + names[names.count - 1]
        : names.joined()
      throw DecodingError.dataCorruptedError(
        in: c, debugDescription: "unknown \(Self.wireName) \"\(text)\" (expected \(expected))")
    }
    self = value
  }

  public func encode(to encoder: any Encoder) throws {
    var c = encoder.singleValueContainer()
    try c.encode(rawValue)
  }
}
