import Foundation

/// Encodes and decodes protocol messages as single-line JSON. Encoders are not shared
/// across threads: each connection (or the relay's loop) owns one codec.
public struct WireCodec: Sendable {
  public init() {}

  /// The message as one line of JSON, terminated by `\n`.
  public func encode<Message: Encodable>(_ message: Message) -> [UInt8] {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    // Our types encode without throwing: no non-finite doubles reach the wire (the engine
    // validates every value); a failure here is a programming error.
    var bytes = (try? encoder.encode(message)).map { Array($0) } ?? Array(#"{"type":"error"}"#.utf8)
    bytes.append(UInt8(ascii: "\n"))
    return bytes
  }

  public func decodeClient(_ frame: [UInt8]) throws(WireError) -> ClientMessage {
    try decode(ClientMessage.self, frame)
  }

  public func decodeServer(_ frame: [UInt8]) throws(WireError) -> ServerMessage {
    try decode(ServerMessage.self, frame)
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

  static func describe(_ error: DecodingError) -> String {
    func path(_ codingPath: [any CodingKey]) -> String {
      let p = codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
      return p.isEmpty ? "top level" : p
    }
    switch error {
    case .dataCorrupted(let c):
      return c.codingPath.isEmpty ? "not valid JSON" : "\(path(c.codingPath)): \(c.debugDescription)"
    case .keyNotFound(let key, let c):
      return "missing \"\(key.stringValue)\" at \(path(c.codingPath))"
    case .typeMismatch(_, let c), .valueNotFound(_, let c):
      return "wrong type at \(path(c.codingPath))"
    @unknown default:
      return "undecodable"
    }
  }
}
