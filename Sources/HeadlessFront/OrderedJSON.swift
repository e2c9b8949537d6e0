import WireProtocol

/// A JSON value written in a fixed key order, so that headless output is stable and easy
/// to read (and to diff) line by line.
public indirect enum OrderedJSON: Sendable, Hashable, ExpressibleByStringLiteral,
  ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral, ExpressibleByBooleanLiteral
{
  case string(String)
  case int(Int64)
  /// Written to the millisecond: positions and durations people read.
  case double(Double)
  /// Written to the microsecond: what programs measure with (a sample's position), where
  /// millisecond rounding alone would make players in step look up to a millisecond apart.
  case preciseDouble(Double)
  case bool(Bool)
  case null
  case array([OrderedJSON])
  case object([(String, OrderedJSON)])

  public init(stringLiteral value: String) { self = .string(value) }
  public init(integerLiteral value: Int64) { self = .int(value) }
  public init(floatLiteral value: Double) { self = .double(value) }
  public init(booleanLiteral value: Bool) { self = .bool(value) }

  public static func == (a: OrderedJSON, b: OrderedJSON) -> Bool { a.serialized == b.serialized }
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
    case .double(let d): Self.writeNumber(d, scale: 1e3, to: &out)
    case .preciseDouble(let d): Self.writeNumber(d, scale: 1e6, to: &out)
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

  /// `d` rounded to `1 / scale`; whole numbers without a fraction, non-finite ones as null.
  static func writeNumber(_ d: Double, scale: Double, to out: inout String) {
    guard d.isFinite else {
      out += "null"
      return
    }
    let rounded = (d * scale).rounded() / scale
    out +=
      rounded == rounded.rounded() && abs(rounded) < 1e15
      ? String(Int64(rounded)) : String(rounded)
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
