import Foundation
import PlaybackCoordination

/// Encodes and decodes protocol messages as single-line JSON. Encoders are not shared
/// across threads: each connection (or the relay's loop) owns one codec.
public struct WireCodec: Sendable {
  public init() {}

  /// The message as one line of JSON, terminated by `\n`.
  public func encode<Message: Encodable>(_ message: Message) -> [UInt8] {
    encode(general: message)
  }

  /// A relay's message as one line: the hot kinds (a step, an answer, a pong) by
  /// ``HotMessages``, every other kind through `JSONEncoder`; which one depends on the
  /// kind alone, and a test holds the two forms equal.
  public func encode(_ message: ServerMessage) -> [UInt8] {
    HotMessages.encode(message) ?? encode(general: message)
  }

  /// A participant's message as one line: playback commands and pings by ``HotMessages``,
  /// every other kind through `JSONEncoder`.
  public func encode(_ message: ClientMessage) -> [UInt8] {
    HotMessages.encode(message) ?? encode(general: message)
  }

  /// Our types encode without throwing: no non-finite doubles reach the wire (the engine
  /// validates every value); a failure here is a programming error.
  private func encode<Message: Encodable>(general message: Message) -> [UInt8] {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    var bytes =
      (try? encoder.encode(message)).map { Array($0) }
      ?? Array(#"{"type":"\#(ServerMessage.WireType.error.rawValue)"}"#.utf8)
    bytes.append(UInt8(ascii: "\n"))
    return bytes
  }

  /// A participant's message: the hot kinds (pings, playback commands) as ``HotMessages``
  /// reads them, every other kind, and any line it refuses, through `JSONDecoder`.
  public func decodeClient(_ frame: [UInt8]) throws(WireError) -> ClientMessage {
    if let hot = HotMessages.decodeClient(frame) { return hot }
    return try decode(ClientMessage.self, frame)
  }

  /// A pong: the relay answers every participant's ping every second, so at thousands of
  /// participants this is most of what it encodes (by hand, as ``encode(_:)`` does).
  public func encodePong(id: UInt64, t0: LocalInstant, t1: GroupInstant, t2: GroupInstant)
    -> [UInt8]
  {
    encode(ServerMessage.pong(id: id, t0: t0, t1: t1, t2: t2))
  }

  /// A relay's message: the hot kinds as ``HotMessages`` reads them, every other kind, and
  /// any line it refuses, through `JSONDecoder`.
  public func decodeServer(_ frame: [UInt8]) throws(WireError) -> ServerMessage {
    if let hot = HotMessages.decodeServer(frame) { return hot }
    return try decode(ServerMessage.self, frame)
  }

  public func decode<Message: Decodable>(_ type: Message.Type, _ frame: [UInt8]) throws(WireError)
    -> Message
  {
    do {
      return try JSONDecoder().decode(Message.self, from: Data(frame))
    } catch let error as DecodingError {
      throw .malformed(Self.describe(error))
    } catch {
      throw .malformed("not JSON")
    }
  }

  /// One line a person can act on, naming the field by its path in the message
  /// (`command.at`, `welcome.state.participants[0].name`) and saying what was expected in
  /// JSON terms rather than Swift ones, since the sender may be written in any language.
  static func describe(_ error: DecodingError) -> String {
    switch error {
    case .dataCorrupted(let c):
      // With no path it is the JSON parser's own failure (every message is an object, so
      // our own checks always have a path); its English is Swift's, not ours.
      return c.codingPath.isEmpty
        ? "not valid JSON" : "\(path(c.codingPath)): \(c.debugDescription)"
    case .keyNotFound(let key, let c):
      let field = "missing field \"\(key.stringValue)\""
      return c.codingPath.isEmpty ? field : "\(field) in \(path(c.codingPath))"
    case .typeMismatch(let type, let c):
      return "wrong type for \(path(c.codingPath)): expected \(expected(type))"
    case .valueNotFound(let type, let c):
      return "\(path(c.codingPath)) is null: expected \(expected(type))"
    @unknown default:
      return "undecodable"
    }
  }

  private static func path(_ codingPath: [any CodingKey]) -> String {
    var text = ""
    for key in codingPath {
      if let index = key.intValue {
        text += "[\(index)]"
      } else {
        text += (text.isEmpty ? "" : ".") + key.stringValue
      }
    }
    return text.isEmpty ? "the message" : text
  }

  /// What a Swift type is called in JSON.
  private static func expected(_ type: Any.Type) -> String {
    switch type {
    case is String.Type: "a string"
    case is Bool.Type: "true or false"
    case is Double.Type, is Float.Type: "a number"
    case is Int.Type, is Int64.Type, is UInt64.Type, is Int32.Type, is UInt32.Type: "an integer"
    case is [Any].Type: "an array"
    case is [String: Any].Type: "an object"
    default: "\(type)"
    }
  }
}
