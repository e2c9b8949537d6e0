/// Any JSON value, as Syncplay's messages are free-form objects: decoded first, then read
/// field by field with every type and range checked (``SyncplayCodec``).
public enum JSONValue: Hashable, Sendable {
  case null
  case bool(Bool)
  case number(Double)
  case string(String)
  case array([JSONValue])
  case object([String: JSONValue])

  public subscript(key: String) -> JSONValue? {
    if case .object(let fields) = self { fields[key] } else { nil }
  }

  public var string: String? { if case .string(let s) = self { s } else { nil } }
  public var bool: Bool? { if case .bool(let b) = self { b } else { nil } }
  /// A finite number.
  public var number: Double? {
    if case .number(let n) = self, n.isFinite { n } else { nil }
  }
  public var object: [String: JSONValue]? { if case .object(let o) = self { o } else { nil } }
  public var array: [JSONValue]? { if case .array(let a) = self { a } else { nil } }
}

extension JSONValue: Codable {
  public init(from decoder: any Decoder) throws {
    let c = try decoder.singleValueContainer()
    if c.decodeNil() {
      self = .null
    } else if let b = try? c.decode(Bool.self) {
      self = .bool(b)
    } else if let n = try? c.decode(Double.self) {
      self = .number(n)
    } else if let s = try? c.decode(String.self) {
      self = .string(s)
    } else if let a = try? c.decode([JSONValue].self) {
      self = .array(a)
    } else {
      self = .object(try c.decode([String: JSONValue].self))
    }
  }

  public func encode(to encoder: any Encoder) throws {
    var c = encoder.singleValueContainer()
    switch self {
    case .null: try c.encodeNil()
    case .bool(let b): try c.encode(b)
    case .number(let n): try c.encode(n)
    case .string(let s): try c.encode(s)
    case .array(let a): try c.encode(a)
    case .object(let o): try c.encode(o)
    }
  }
}
