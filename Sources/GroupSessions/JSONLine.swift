import WireProtocol

/// A JSON value written in a fixed key order, so that headless output is stable and easy
/// to read (and to diff) line by line.
public indirect enum JSONValue: Sendable, Hashable, ExpressibleByStringLiteral,
  ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral, ExpressibleByBooleanLiteral
{
  case string(String)
  case int(Int64)
  case double(Double)
  case bool(Bool)
  case null
  case array([JSONValue])
  case object([(String, JSONValue)])

  public init(stringLiteral value: String) { self = .string(value) }
  public init(integerLiteral value: Int64) { self = .int(value) }
  public init(floatLiteral value: Double) { self = .double(value) }
  public init(booleanLiteral value: Bool) { self = .bool(value) }

  public static func == (a: JSONValue, b: JSONValue) -> Bool { a.serialized == b.serialized }
  public func hash(into hasher: inout Hasher) { hasher.combine(serialized) }

  /// One line of JSON, without a newline.
  public var serialized: String {
    var out = ""
    write(to: &out)
    return out
  }

  func write(to out: inout String) {
    switch self {
    case .string(let s): Self.writeString(s, to: &out)
    case .int(let i): out += String(i)
    case .double(let d):
      if d.isFinite {
        let rounded = (d * 1000).rounded() / 1000
        out +=
          rounded == rounded.rounded() && abs(rounded) < 1e15
          ? String(Int64(rounded)) : String(rounded)
      } else {
        out += "null"
      }
    case .bool(let b): out += b ? "true" : "false"
    case .null: out += "null"
    case .array(let items):
      out += "["
      for (i, item) in items.enumerated() {
        if i > 0 { out += "," }
        item.write(to: &out)
      }
      out += "]"
    case .object(let pairs):
      out += "{"
      for (i, (key, value)) in pairs.enumerated() {
        if i > 0 { out += "," }
        Self.writeString(key, to: &out)
        out += ":"
        value.write(to: &out)
      }
      out += "}"
    }
  }

  /// Escapes what ``SafeText`` says must not reach a reader raw as `\uXXXX`.
  static func writeString(_ s: String, to out: inout String) {
    out += "\""
    for scalar in s.unicodeScalars {
      switch scalar {
      case "\"": out += "\\\""
      case "\\": out += "\\\\"
      case "\n": out += "\\n"
      case "\r": out += "\\r"
      case "\t": out += "\\t"
      default:
        if SafeText.mustEscape(scalar) {
          let hex = String(scalar.value, radix: 16)
          out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        } else {
          out.unicodeScalars.append(scalar)
        }
      }
    }
    out += "\""
  }

}
