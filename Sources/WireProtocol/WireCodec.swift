import Foundation
import PlaybackCoordination

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
    if let ping = Self.fastPing(frame) { return ping }
    return try decode(ClientMessage.self, frame)
  }

  /// A pong, byte for byte what ``encode(_:)`` writes for it (sorted keys, instants as
  /// integers), without a `JSONEncoder`: the relay answers every participant's ping every
  /// second, so at thousands of participants this is most of what it encodes.
  public func encodePong(id: UInt64, t0: LocalInstant, t1: GroupInstant, t2: GroupInstant)
    -> [UInt8]
  {
    Array(
      #"{"id":\#(id),"t0":\#(t0.nanoseconds),"t1":\#(t1.nanoseconds),"t2":\#(t2.nanoseconds),"type":"pong"}"#
        .utf8)
      + [UInt8(ascii: "\n")]
  }

  /// Parses exactly the ping line participants send (`{"id":N,"t0":N,"type":"ping"}`, as
  /// ``encode(_:)`` writes it) without a `JSONDecoder`; anything else, even an equivalent
  /// ping spelled differently, returns nil and takes the general path.
  static func fastPing(_ frame: [UInt8]) -> ClientMessage? {
    let prefix = Array(#"{"id":"#.utf8)
    let middle = Array(#","t0":"#.utf8)
    let suffix = Array(#","type":"ping"}"#.utf8)
    guard frame.count <= 80, frame.starts(with: prefix),
      frame.count > prefix.count + middle.count + suffix.count,
      frame[(frame.count - suffix.count)...].elementsEqual(suffix)
    else { return nil }
    var i = prefix.count
    func integer(negativeAllowed: Bool) -> (magnitude: UInt64, negative: Bool)? {
      var negative = false
      if negativeAllowed, i < frame.count, frame[i] == UInt8(ascii: "-") {
        negative = true
        i += 1
      }
      let start = i
      var value: UInt64 = 0
      while i < frame.count, frame[i] >= UInt8(ascii: "0"), frame[i] <= UInt8(ascii: "9") {
        let (m, o1) = value.multipliedReportingOverflow(by: 10)
        let (a, o2) = m.addingReportingOverflow(UInt64(frame[i] - UInt8(ascii: "0")))
        if o1 || o2 { return nil }
        value = a
        i += 1
      }
      // No empty numbers and no leading zeros (JSON's rule).
      guard i > start, i - start == 1 || frame[start] != UInt8(ascii: "0") else { return nil }
      return (value, negative)
    }
    guard let id = integer(negativeAllowed: false) else { return nil }
    guard frame[i...].starts(with: middle) else { return nil }
    i += middle.count
    guard let t0 = integer(negativeAllowed: true), i == frame.count - suffix.count else {
      return nil
    }
    let nanoseconds: Int64
    if t0.negative {
      guard t0.magnitude <= UInt64(Int64.max) + 1 else { return nil }
      nanoseconds = t0.magnitude == UInt64(Int64.max) + 1 ? Int64.min : -Int64(t0.magnitude)
    } else {
      guard t0.magnitude <= UInt64(Int64.max) else { return nil }
      nanoseconds = Int64(t0.magnitude)
    }
    return .ping(id: id.magnitude, t0: LocalInstant(nanoseconds: nanoseconds))
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
      let p = codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(
        separator: ".")
      return p.isEmpty ? "top level" : p
    }
    switch error {
    case .dataCorrupted(let c):
      return c.codingPath.isEmpty
        ? "not valid JSON" : "\(path(c.codingPath)): \(c.debugDescription)"
    case .keyNotFound(let key, let c):
      return "missing \"\(key.stringValue)\" at \(path(c.codingPath))"
    case .typeMismatch(_, let c), .valueNotFound(_, let c):
      return "wrong type at \(path(c.codingPath))"
    @unknown default:
      return "undecodable"
    }
  }
}
