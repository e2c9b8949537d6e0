import Foundation

/// A value in mpv's JSON IPC.
public enum MpvValue: Hashable, Sendable {
  case null
  case bool(Bool)
  case number(Double)
  case string(String)
  /// Anything else (objects, arrays): not needed by the driver.
  case other

  public var number: Double? { if case .number(let n) = self { n } else { nil } }
  public var bool: Bool? { if case .bool(let b) = self { b } else { nil } }
}

/// One line from mpv's IPC socket: a reply to a request, or an event.
public enum MpvMessage: Hashable, Sendable {
  case reply(requestID: Int, data: MpvValue, error: MpvStatus)
  case propertyChange(name: MpvProperty, data: MpvValue)
  case event(MpvEvent)
  /// A file stopped playing, and why: `eof`, `stop` (another file replaced it), `quit`,
  /// `error`, `redirect`. Only `error` means the file could not be played.
  case endFile(reason: String)

  /// Parses one line; nil for lines that are not JSON objects of a known shape.
  public static func parse(_ line: [UInt8]) -> MpvMessage? {
    guard let raw = try? JSONDecoder().decode(Raw.self, from: Data(line)) else { return nil }
    if let event = raw.event {
      if event == "property-change", let name = raw.name {
        return .propertyChange(name: MpvProperty(name: name), data: raw.data ?? .null)
      }
      if event == "end-file" { return .endFile(reason: raw.reason ?? "") }
      return .event(MpvEvent(name: event))
    }
    if let id = raw.request_id {
      return .reply(requestID: id, data: raw.data ?? .null, error: MpvStatus(raw.error ?? ""))
    }
    return nil
  }

  private struct Raw: Decodable {
    var event: String?
    var name: String?
    var data: MpvValue?
    var request_id: Int?
    var error: String?
    var reason: String?
  }
}

extension MpvValue: Decodable {
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
    } else {
      self = .other
    }
  }
}

/// A request to mpv: a command, with the id its reply will carry.
public struct MpvRequest: Hashable, Sendable {
  public var id: Int
  public var action: MpvCommand
  /// The command as mpv reads it.
  public var command: [MpvValue] { action.arguments }

  public init(id: Int, _ action: MpvCommand) {
    self.id = id
    self.action = action
  }

  /// A request in mpv's own words (diagnostics).
  public init(id: Int, command: [MpvValue]) { self.init(id: id, .other(command)) }

  /// The JSON line mpv reads (newline-terminated).
  public var line: String {
    let parts = command.map(Self.json)
    let body: String
    if let names = action.argumentNames, let name = parts.first {
      let named = zip(names, parts.dropFirst()).map { "\(Self.quoted($0)):\($1)" }
      body = "{" + ([#""name":\#(name)"#] + named).joined(separator: ",") + "}"
    } else {
      body = "[" + parts.joined(separator: ",") + "]"
    }
    return #"{"command":\#(body),"request_id":\#(id)}"# + "\n"
  }

  private static func json(_ value: MpvValue) -> String {
    switch value {
    case .null, .other: "null"
    case .bool(let b): b ? "true" : "false"
    // Whole numbers as integers: mpv refuses `1.0` where it wants an integer (the id
    // of `observe_property`).
    case .number(let n):
      !n.isFinite ? "0" : (n == n.rounded() && abs(n) < 1e15 ? "\(Int64(n))" : "\(n)")
    case .string(let s): quoted(s)
    }
  }

  /// A JSON string literal (Foundation's encoder, so that every escape is JSON's).
  static func quoted(_ s: String) -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.withoutEscapingSlashes]
    guard let data = try? encoder.encode(s), let text = String(data: data, encoding: .utf8)
    else { return "\"\"" }
    return text
  }

}

extension MpvValue: ExpressibleByStringLiteral {
  public init(stringLiteral value: String) { self = .string(value) }
}
