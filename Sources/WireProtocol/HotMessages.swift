import PlaybackCoordination

/// The messages every change puts on the wire — a participant's playback command and
/// ping, the relay's step, answer and pong — written by hand, and all but the ping read
/// by hand (the relay reads pings with ``WireCodec``'s `fastPing`, which came first).
///
/// Why: a change is one command in, one step out to every member, and one decode at each
/// of them, about once a second in a busy room. `JSONEncoder` and `JSONDecoder` cost a few
/// µs each warm, but 40–80 µs on the cold caches a change finds (measured along the path
/// of a change: docs/BENCHMARKS.md), most of what a relay spends on one.
///
/// One encoder per message: which one writes a message depends only on its kind (these
/// kinds here, every other through its `Codable` conformance), never on its content — a
/// name with quotes or accents is escaped here exactly as `JSONEncoder` escapes it. The
/// `Codable` form of these kinds stays the format's definition: a test holds the bytes
/// written here equal to it for random values, so the two cannot drift apart. Decoding
/// takes only that shape, its strings printable ASCII without escapes; anything else —
/// another message, another command, a field more or less, a number outside its type,
/// whitespace, an escape, other characters — returns nil and goes to the general decoder,
/// which has the last word and the error messages. So whatever is decoded here is what
/// `JSONDecoder` would have decoded.
enum HotMessages {
  // MARK: - Encoding

  /// The message's line if it is one of the hot kinds (a step of a tick or a hot command,
  /// an answer, a pong), nil for every other kind.
  static func encode(_ message: ServerMessage) -> [UInt8]? {
    var out = JSONOut()
    switch message {
    case .step(let step):
      out.raw(#"{"step":{"after":"#)
      out.integer(step.after)
      out.raw(#","at":"#)
      out.integer(step.at.nanoseconds)
      out.raw(#","before":"#)
      out.integer(step.before)
      out.raw(#","input":"#)
      switch step.input {
      case .tick:
        out.raw(#"{"type":"tick"}"#)
      case .command(let command, let from):
        out.raw(#"{"command":"#)
        guard write(command, to: &out) else { return nil }
        out.raw(#","from":"#)
        out.string(from.rawValue)
        out.raw(#","type":"command"}"#)
      }
      out.raw(#"},"type":"step"}"#)
    case .accepted(let id, let sequence):
      out.raw(#"{"id":"#)
      out.integer(id)
      out.raw(#","sequence":"#)
      out.integer(sequence)
      out.raw(#","type":"accepted"}"#)
    case .pong(let id, let t0, let t1, let t2):
      out.raw(#"{"id":"#)
      out.integer(id)
      out.raw(#","t0":"#)
      out.integer(t0.nanoseconds)
      out.raw(#","t1":"#)
      out.integer(t1.nanoseconds)
      out.raw(#","t2":"#)
      out.integer(t2.nanoseconds)
      out.raw(#","type":"pong"}"#)
    default:
      return nil
    }
    out.bytes.append(UInt8(ascii: "\n"))
    return out.bytes
  }

  /// The message's line if it is one of the hot kinds (a hot command, a ping), nil for
  /// every other kind.
  static func encode(_ message: ClientMessage) -> [UInt8]? {
    var out = JSONOut()
    switch message {
    case .command(let id, let command):
      out.raw(#"{"command":"#)
      guard write(command, to: &out) else { return nil }
      out.raw(#","id":"#)
      out.integer(id)
      out.raw(#","type":"command"}"#)
    case .ping(let id, let t0):
      out.raw(#"{"id":"#)
      out.integer(id)
      out.raw(#","t0":"#)
      out.integer(t0.nanoseconds)
      out.raw(#","type":"ping"}"#)
    default:
      return nil
    }
    out.bytes.append(UInt8(ascii: "\n"))
    return out.bytes
  }

  /// The hot commands, keys in sorted order (`type` sorts last in every one of them, so
  /// each field before it ends with a comma); false, having written nothing that counts,
  /// for the other kinds.
  private static func write(_ command: GroupCommand, to out: inout JSONOut) -> Bool {
    out.raw("{")
    switch command {
    case .pause(let item, let at):
      out.field("at", at)
      out.field("item", item?.rawValue)
      out.raw(#""type":"pause"}"#)
    case .play(let item, let rate):
      out.field("item", item?.rawValue)
      if let rate { out.field("rate", rate) }
      out.raw(#""type":"play"}"#)
    case .seek(let item, let to):
      out.field("item", item?.rawValue)
      out.field("to", to)
      out.raw(#""type":"seek"}"#)
    case .setRate(let item, let rate):
      out.field("item", item?.rawValue)
      out.field("rate", rate)
      out.raw(#""type":"setRate"}"#)
    case .report(let roundTrip, let startupLatency, let playerOffset):
      if let playerOffset { out.field("playerOffset", playerOffset) }
      out.field("roundTrip", roundTrip)
      out.field("startupLatency", startupLatency)
      out.raw(#""type":"report"}"#)
    case .join: out.raw(#""type":"join"}"#)
    case .leave: out.raw(#""type":"leave"}"#)
    default: return false
    }
    return true
  }

  // MARK: - Decoding

  static func decodeServer(_ frame: [UInt8]) -> ServerMessage? {
    guard let fields = FlatJSON.object(frame), let type = fields.string("type") else {
      return nil
    }
    switch type {
    case "step":
      guard fields.count == 2, let body = fields.object("step"), body.count == 4,
        let before = body.unsigned("before"), let after = body.unsigned("after"),
        let at = body.signed("at"), let input = body.object("input").flatMap(stepInput)
      else { return nil }
      return .step(
        SequencedStep(
          before: before, after: after, at: GroupInstant(nanoseconds: at), input: input))
    case "accepted":
      guard fields.count == 3, let id = fields.unsigned("id"),
        let sequence = fields.unsigned("sequence")
      else { return nil }
      return .accepted(id: id, sequence: sequence)
    case "pong":
      guard fields.count == 5, let id = fields.unsigned("id"), let t0 = fields.signed("t0"),
        let t1 = fields.signed("t1"), let t2 = fields.signed("t2")
      else { return nil }
      return .pong(
        id: id, t0: LocalInstant(nanoseconds: t0), t1: GroupInstant(nanoseconds: t1),
        t2: GroupInstant(nanoseconds: t2))
    default:
      return nil
    }
  }

  static func decodeClient(_ frame: [UInt8]) -> ClientMessage? {
    guard let fields = FlatJSON.object(frame), fields.count == 3,
      fields.string("type") == "command", let id = fields.unsigned("id"),
      let command = fields.object("command").flatMap(groupCommand)
    else { return nil }
    return .command(id: id, command)
  }

  private static func stepInput(_ fields: FlatJSON.Object) -> StepInput? {
    switch fields.string("type") {
    case "tick":
      return fields.count == 1 ? .tick : nil
    case "command":
      guard fields.count == 3, let from = fields.string("from"),
        let command = fields.object("command").flatMap(groupCommand)
      else { return nil }
      return .command(command, from: ParticipantID(from))
    default:
      return nil
    }
  }

  private static func groupCommand(_ fields: FlatJSON.Object) -> GroupCommand? {
    guard let type = fields.string("type") else { return nil }
    // An item, if there is one: (its id, how many fields it took).
    var item: (id: ItemID?, fields: Int)? {
      guard fields.has("item") else { return (nil, 0) }
      return fields.string("item").map { (ItemID($0), 1) }
    }
    switch type {
    case "pause":
      guard let item, let at = fields.double("at"), fields.count == 2 + item.fields else {
        return nil
      }
      return .pause(item: item.id, at: at)
    case "play":
      guard let item else { return nil }
      var rate: Double?
      if fields.has("rate") {
        guard let value = fields.double("rate") else { return nil }
        rate = value
      }
      guard fields.count == 1 + item.fields + (rate == nil ? 0 : 1) else { return nil }
      return .play(item: item.id, rate: rate)
    case "seek":
      guard let item, let to = fields.double("to"), fields.count == 2 + item.fields else {
        return nil
      }
      return .seek(item: item.id, to: to)
    case "setRate":
      guard let item, let rate = fields.double("rate"), fields.count == 2 + item.fields else {
        return nil
      }
      return .setRate(item: item.id, rate: rate)
    case "report":
      guard let roundTrip = fields.double("roundTrip"),
        let startupLatency = fields.double("startupLatency")
      else { return nil }
      var playerOffset: Double?
      if fields.has("playerOffset") {
        guard let value = fields.double("playerOffset") else { return nil }
        playerOffset = value
      }
      guard fields.count == 3 + (playerOffset == nil ? 0 : 1) else { return nil }
      return .report(
        roundTrip: roundTrip, startupLatency: startupLatency, playerOffset: playerOffset)
    case "join":
      return fields.count == 1 ? .join : nil
    case "leave":
      return fields.count == 1 ? .leave : nil
    default:
      return nil
    }
  }
}

/// Appends JSON as `JSONEncoder` writes it (sorted keys and `.withoutEscapingSlashes`).
private struct JSONOut {
  var bytes: [UInt8] = []

  init() { bytes.reserveCapacity(192) }

  mutating func raw(_ text: StaticString) {
    text.withUTF8Buffer { bytes.append(contentsOf: $0) }
  }

  mutating func integer<I: BinaryInteger>(_ value: I) {
    bytes.append(contentsOf: String(value).utf8)
  }

  /// `JSONEncoder`'s form: Swift's shortest description, without a trailing `.0`. The
  /// engine lets no non-finite value reach a message.
  mutating func number(_ value: Double) {
    var text = value.description
    if text.hasSuffix(".0") { text.removeLast(2) }
    bytes.append(contentsOf: text.utf8)
  }

  /// `"key":value,`
  mutating func field(_ key: StaticString, _ value: Double) {
    bytes.append(UInt8(ascii: "\""))
    raw(key)
    raw(#"":"#)
    number(value)
    bytes.append(UInt8(ascii: ","))
  }

  /// `"key":"value",` if there is a value, nothing if not.
  mutating func field(_ key: StaticString, _ value: String?) {
    guard let value else { return }
    bytes.append(UInt8(ascii: "\""))
    raw(key)
    raw(#"":"#)
    string(value)
    bytes.append(UInt8(ascii: ","))
  }

  /// A string as `JSONEncoder` writes it: a quote and a backslash escaped with a
  /// backslash, the control characters as `\b \t \n \f \r` or `\u00xx` (lower-case hex),
  /// everything else — `/` (`.withoutEscapingSlashes`), DEL, any non-ASCII — as its UTF-8.
  mutating func string(_ value: String) {
    bytes.append(UInt8(ascii: "\""))
    for byte in value.utf8 {
      switch byte {
      case UInt8(ascii: "\""), UInt8(ascii: "\\"):
        bytes.append(UInt8(ascii: "\\"))
        bytes.append(byte)
      case 0x08: raw(#"\b"#)
      case 0x09: raw(#"\t"#)
      case 0x0A: raw(#"\n"#)
      case 0x0C: raw(#"\f"#)
      case 0x0D: raw(#"\r"#)
      case ..<0x20:
        raw(#"\u00"#)
        bytes.append(Self.hex[Int(byte >> 4)])
        bytes.append(Self.hex[Int(byte & 0xF)])
      default:
        bytes.append(byte)
      }
    }
    bytes.append(UInt8(ascii: "\""))
  }

  private static let hex = Array("0123456789abcdef".utf8)
}

/// A strict reader of JSON objects whose values are strings without escapes, numbers and
/// objects of the same kind, with no whitespace: the shape ``HotMessages`` writes. It
/// refuses (nil) anything else, duplicate keys included, rather than interpreting it.
private struct FlatJSON {
  struct Object {
    fileprivate var fields: [(key: String, value: Value)]
    var count: Int { fields.count }

    func has(_ key: String) -> Bool { fields.contains { $0.key == key } }

    private func value(_ key: String) -> Value? {
      fields.first { $0.key == key }?.value
    }

    func string(_ key: String) -> String? {
      if case .string(let s) = value(key) { return s }
      return nil
    }

    func object(_ key: String) -> Object? {
      if case .object(let o) = value(key) { return o }
      return nil
    }

    /// A whole number written as digits only (what `JSONEncoder` writes for one).
    func unsigned(_ key: String) -> UInt64? {
      guard case .number(let text) = value(key), FlatJSON.isDigits(text.utf8) else {
        return nil
      }
      return UInt64(text)
    }

    /// The same, with a minus sign allowed.
    func signed(_ key: String) -> Int64? {
      guard case .number(let text) = value(key),
        FlatJSON.isDigits(text.utf8.drop { $0 == UInt8(ascii: "-") })
      else { return nil }
      return Int64(text)
    }

    /// Any JSON number that is a finite double (one too large for a double is the general
    /// decoder's to refuse, in its words).
    func double(_ key: String) -> Double? {
      guard case .number(let text) = value(key), let value = Double(text), value.isFinite
      else { return nil }
      return value
    }
  }

  fileprivate enum Value {
    case string(String)
    case number(String)
    case object(Object)
  }

  private let bytes: [UInt8]
  private var index = 0

  private init(_ bytes: [UInt8]) { self.bytes = bytes }

  /// The frame as one object, or nil.
  static func object(_ frame: [UInt8]) -> Object? {
    var reader = FlatJSON(frame)
    guard let object = reader.readObject(depth: 0), reader.index == frame.count else {
      return nil
    }
    return object
  }

  private mutating func readObject(depth: Int) -> Object? {
    guard depth < 4, take(UInt8(ascii: "{")) else { return nil }
    var fields: [(key: String, value: Value)] = []
    if take(UInt8(ascii: "}")) { return Object(fields: fields) }
    repeat {
      guard let key = readString(), take(UInt8(ascii: ":")),
        !fields.contains(where: { $0.key == key }), fields.count < 8
      else { return nil }
      let value: Value
      switch peek {
      case UInt8(ascii: "\""):
        guard let s = readString() else { return nil }
        value = .string(s)
      case UInt8(ascii: "{"):
        guard let o = readObject(depth: depth + 1) else { return nil }
        value = .object(o)
      default:
        guard let n = readNumber() else { return nil }
        value = .number(n)
      }
      fields.append((key, value))
    } while take(UInt8(ascii: ","))
    guard take(UInt8(ascii: "}")) else { return nil }
    return Object(fields: fields)
  }

  private var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

  private mutating func take(_ byte: UInt8) -> Bool {
    guard peek == byte else { return false }
    index += 1
    return true
  }

  /// A string of printable ASCII with no escapes, as ids are (anything else is the
  /// general decoder's: it checks UTF-8 and reads escapes).
  private mutating func readString() -> String? {
    guard take(UInt8(ascii: "\"")) else { return nil }
    let start = index
    while let byte = peek, byte != UInt8(ascii: "\"") {
      guard byte >= 0x20, byte < 0x7F, byte != UInt8(ascii: "\\") else { return nil }
      index += 1
    }
    guard peek != nil else { return nil }
    let text = String(decoding: bytes[start..<index], as: UTF8.self)
    index += 1
    return text
  }

  /// A number by JSON's grammar: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
  private mutating func readNumber() -> String? {
    let start = index
    func digits() -> Int {
      let from = index
      while let byte = peek, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") { index += 1 }
      return index - from
    }
    _ = take(UInt8(ascii: "-"))
    let first = peek
    let whole = digits()
    guard whole > 0, whole == 1 || first != UInt8(ascii: "0") else { return nil }
    if take(UInt8(ascii: ".")) { guard digits() > 0 else { return nil } }
    if take(UInt8(ascii: "e")) || take(UInt8(ascii: "E")) {
      if !take(UInt8(ascii: "+")) { _ = take(UInt8(ascii: "-")) }
      let from = index
      guard digits() > 0 else { return nil }
      // Far from a double's limits only: there a number rounds to zero or overflows, which
      // the general decoder refuses in its own words.
      guard index - from <= 3,
        let exponent = Int(String(decoding: bytes[from..<index], as: UTF8.self)),
        exponent <= 250
      else { return nil }
    }
    guard index - start <= 32 else { return nil }
    return String(decoding: bytes[start..<index], as: UTF8.self)
  }

  static func isDigits<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> Bool {
    !bytes.isEmpty && bytes.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
  }
}
