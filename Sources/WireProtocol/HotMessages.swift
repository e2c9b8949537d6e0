import PlaybackCoordination

/// The messages every change puts on the wire — a participant's playback command and
/// ping, the relay's step, answer and pong — written and read by hand.
///
/// Why: a change is one command in, one step out to every member, and one decode at each
/// of them, about once a second in a busy room; and every participant pings the relay every
/// second. `JSONEncoder` and `JSONDecoder` cost a few µs each warm, but 40–80 µs on the
/// cold caches a change finds (measured along the path of a change: docs/BENCHMARKS.md),
/// most of what a relay spends on one.
///
/// One encoder per message: which one writes a message depends only on its kind (these
/// kinds here, every other through its `Codable` conformance), never on its content — a
/// name with quotes or accents is escaped here exactly as `JSONEncoder` escapes it. The
/// `Codable` form of these kinds stays the format's definition, and the `"type"` names come
/// from the same tables as its (WireNames.swift): a test holds the bytes written here equal
/// to it for random values, so the two cannot drift apart.
///
/// One reader, ``HotReader``, and it reads exactly what is written here: the same keys in
/// the same (sorted) order, no whitespace, numbers as `JSONEncoder` writes them, strings of
/// printable ASCII without escapes. Anything else — another message, another command, a
/// field more or less or in another order, a number outside its type, whitespace, an
/// escape, other characters — returns nil and goes to the general decoder, which has the
/// last word and the error messages. So whatever is decoded here is what `JSONDecoder`
/// would have decoded.
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
      out.raw(#","input":{"#)
      switch step.input {
      case .tick:
        break
      case .command(let command, let from):
        out.raw(#""command":"#)
        guard write(command, to: &out) else { return nil }
        out.raw(#","from":"#)
        out.string(from.rawValue)
        out.raw(",")
      }
      out.type(step.input.wireType)
      out.raw("},")
    case .accepted(let id, let sequence):
      out.raw(#"{"id":"#)
      out.integer(id)
      out.raw(#","sequence":"#)
      out.integer(sequence)
      out.raw(",")
    case .pong(let id, let t0, let t1, let t2):
      out.raw(#"{"id":"#)
      out.integer(id)
      out.raw(#","t0":"#)
      out.integer(t0.nanoseconds)
      out.raw(#","t1":"#)
      out.integer(t1.nanoseconds)
      out.raw(#","t2":"#)
      out.integer(t2.nanoseconds)
      out.raw(",")
    default:
      return nil
    }
    out.type(message.wireType)
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
      out.raw(",")
    case .ping(let id, let t0):
      out.raw(#"{"id":"#)
      out.integer(id)
      out.raw(#","t0":"#)
      out.integer(t0.nanoseconds)
      out.raw(",")
    default:
      return nil
    }
    out.type(message.wireType)
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
    case .play(let item, let rate):
      out.field("item", item?.rawValue)
      if let rate { out.field("rate", rate) }
    case .seek(let item, let to):
      out.field("item", item?.rawValue)
      out.field("to", to)
    case .setRate(let item, let rate):
      out.field("item", item?.rawValue)
      out.field("rate", rate)
    case .report(let roundTrip, let startupLatency, let playerOffset):
      if let playerOffset { out.field("playerOffset", playerOffset) }
      out.field("roundTrip", roundTrip)
      out.field("startupLatency", startupLatency)
    case .join, .leave:
      break
    default:
      return false
    }
    out.type(command.wireType)
    return true
  }

  // MARK: - Decoding

  /// The line as ``encode(_:)-(ServerMessage)`` writes a hot kind, or nil.
  static func decodeServer(_ frame: [UInt8]) -> ServerMessage? {
    var line = HotReader(frame)
    let message: ServerMessage
    if line.take(#"{"step":{"after":"#) {
      guard let after = line.unsigned(), line.take(#","at":"#), let at = line.signed(),
        line.take(#","before":"#), let before = line.unsigned(), line.take(#","input":"#),
        let input = stepInput(&line), line.take("},")
      else { return nil }
      message = .step(
        SequencedStep(
          before: before, after: after, at: GroupInstant(nanoseconds: at), input: input))
    } else if line.take(#"{"id":"#) {
      guard let id = line.unsigned() else { return nil }
      if line.take(#","sequence":"#) {
        guard let sequence = line.unsigned(), line.take(",") else { return nil }
        message = .accepted(id: id, sequence: sequence)
      } else {
        guard line.take(#","t0":"#), let t0 = line.signed(), line.take(#","t1":"#),
          let t1 = line.signed(), line.take(#","t2":"#), let t2 = line.signed(), line.take(",")
        else { return nil }
        message = .pong(
          id: id, t0: LocalInstant(nanoseconds: t0), t1: GroupInstant(nanoseconds: t1),
          t2: GroupInstant(nanoseconds: t2))
      }
    } else {
      return nil
    }
    return line.type(message.wireType) && line.atEnd ? message : nil
  }

  /// The line as ``encode(_:)-(ClientMessage)`` writes a hot kind (a ping, a hot command),
  /// or nil. Pings are most of what a relay reads: one from every participant every second.
  static func decodeClient(_ frame: [UInt8]) -> ClientMessage? {
    var line = HotReader(frame)
    let message: ClientMessage
    if line.take(#"{"id":"#) {
      guard let id = line.unsigned(), line.take(#","t0":"#), let t0 = line.signed(),
        line.take(",")
      else { return nil }
      message = .ping(id: id, t0: LocalInstant(nanoseconds: t0))
    } else if line.take(#"{"command":"#) {
      guard let command = groupCommand(&line), line.take(#","id":"#), let id = line.unsigned(),
        line.take(",")
      else { return nil }
      message = .command(id: id, command)
    } else {
      return nil
    }
    return line.type(message.wireType) && line.atEnd ? message : nil
  }

  private static func stepInput(_ line: inout HotReader) -> StepInput? {
    guard line.take("{") else { return nil }
    let input: StepInput
    if line.take(#""command":"#) {
      guard let command = groupCommand(&line), line.take(#","from":"#),
        let from = line.string(), line.take(",")
      else { return nil }
      input = .command(command, from: ParticipantID(from))
    } else {
      input = .tick
    }
    return line.type(input.wireType) ? input : nil
  }

  /// The fields of the hot commands, in the (sorted) order they are written.
  private struct Fields: OptionSet {
    let rawValue: UInt8
    static let at = Fields(rawValue: 1 << 0)
    static let item = Fields(rawValue: 1 << 1)
    static let playerOffset = Fields(rawValue: 1 << 2)
    static let rate = Fields(rawValue: 1 << 3)
    static let roundTrip = Fields(rawValue: 1 << 4)
    static let startupLatency = Fields(rawValue: 1 << 5)
    static let to = Fields(rawValue: 1 << 6)
  }

  private static func groupCommand(_ line: inout HotReader) -> GroupCommand? {
    guard line.take("{") else { return nil }
    var read: Fields = []
    var item: ItemID?
    var at: Double?
    var playerOffset: Double?
    var rate: Double?
    var roundTrip: Double?
    var startupLatency: Double?
    var to: Double?
    func number(_ key: StaticString, _ field: Fields, _ value: inout Double?) -> Bool {
      guard line.take(key) else { return true }
      guard let number = line.double(), line.take(",") else { return false }
      value = number
      read.insert(field)
      return true
    }
    guard number(#""at":"#, .at, &at) else { return nil }
    if line.take(#""item":"#) {
      guard let id = line.string(), line.take(",") else { return nil }
      item = ItemID(id)
      read.insert(.item)
    }
    guard number(#""playerOffset":"#, .playerOffset, &playerOffset),
      number(#""rate":"#, .rate, &rate), number(#""roundTrip":"#, .roundTrip, &roundTrip),
      number(#""startupLatency":"#, .startupLatency, &startupLatency),
      number(#""to":"#, .to, &to), let type = line.typeName(GroupCommand.WireType.self)
    else { return nil }
    // Exactly the command's fields: all of `required`, any of `optional`, no other.
    func fields(_ required: Fields, optional: Fields = []) -> Bool {
      read.isSuperset(of: required) && read.subtracting(required.union(optional)).isEmpty
    }
    switch type {
    case .pause:
      guard fields(.at, optional: .item), let at else { return nil }
      return .pause(item: item, at: at)
    case .play:
      guard fields([], optional: [.item, .rate]) else { return nil }
      return .play(item: item, rate: rate)
    case .seek:
      guard fields(.to, optional: .item), let to else { return nil }
      return .seek(item: item, to: to)
    case .setRate:
      guard fields(.rate, optional: .item), let rate else { return nil }
      return .setRate(item: item, rate: rate)
    case .report:
      guard fields([.roundTrip, .startupLatency], optional: .playerOffset), let roundTrip,
        let startupLatency
      else { return nil }
      return .report(
        roundTrip: roundTrip, startupLatency: startupLatency, playerOffset: playerOffset)
    case .join:
      return fields([]) ? .join : nil
    case .leave:
      return fields([]) ? .leave : nil
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

  /// `"type":"<name>"}`: a case's name from its union's table (WireNames.swift), and the
  /// object's end — `type` sorts after every other key of the hot messages.
  mutating func type<Name: RawRepresentable>(_ name: Name) where Name.RawValue == String {
    raw(#""type":""#)
    bytes.append(contentsOf: name.rawValue.utf8)
    raw(#""}"#)
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

/// The one reader of a hot line: it takes exactly what ``JSONOut`` writes for the hot
/// messages, piece by piece in the order it is written, and refuses (nil, false) anything
/// else rather than interpreting it. It never allocates for numbers; strings are printable
/// ASCII without escapes, as ids are (anything else is the general decoder's: it checks
/// UTF-8 and reads escapes).
struct HotReader {
  private let bytes: [UInt8]
  private var index = 0

  init(_ bytes: [UInt8]) { self.bytes = bytes }

  var atEnd: Bool { index == bytes.count }

  private var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

  private mutating func take(byte: UInt8) -> Bool {
    guard peek == byte else { return false }
    index += 1
    return true
  }

  /// The text next, if it is: `{"id":`, `,"t0":`.
  mutating func take(_ text: StaticString) -> Bool {
    let count = text.utf8CodeUnitCount
    guard bytes.count - index >= count else { return false }
    let matches = text.withUTF8Buffer { expected in
      for k in 0..<count where bytes[index + k] != expected[k] { return false }
      return true
    }
    if matches { index += count }
    return matches
  }

  /// `"type":"<name>"}`, the name the given one (from its union's table).
  mutating func type<Name: RawRepresentable>(_ name: Name) -> Bool
  where Name.RawValue == String {
    guard take(#""type":""#) else { return false }
    for byte in name.rawValue.utf8 {
      guard take(byte: byte) else { return false }
    }
    return take(#""}"#)
  }

  /// `"type":"<name>"}`, the name any of the table's.
  mutating func typeName<Name: RawRepresentable>(_: Name.Type) -> Name?
  where Name.RawValue == String {
    guard take(#""type":"#), let name = string(), take(byte: UInt8(ascii: "}")) else {
      return nil
    }
    return Name(rawValue: name)
  }

  /// A string of printable ASCII with no escapes.
  mutating func string() -> String? {
    guard take(byte: UInt8(ascii: "\"")) else { return nil }
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

  /// Digits, as JSON has them (no leading zero): how many.
  private mutating func digits() -> Int? {
    let start = index
    while let byte = peek, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") { index += 1 }
    guard index > start, index - start == 1 || bytes[start] != UInt8(ascii: "0") else {
      return nil
    }
    return index - start
  }

  /// A whole number written as digits only (what `JSONEncoder` writes for one), in range.
  mutating func unsigned() -> UInt64? {
    let start = index
    guard digits() != nil else { return nil }
    var value: UInt64 = 0
    for byte in bytes[start..<index] {
      let (m, o1) = value.multipliedReportingOverflow(by: 10)
      let (a, o2) = m.addingReportingOverflow(UInt64(byte - UInt8(ascii: "0")))
      if o1 || o2 { return nil }
      value = a
    }
    return value
  }

  /// The same, with a minus sign allowed.
  mutating func signed() -> Int64? {
    let negative = take(byte: UInt8(ascii: "-"))
    guard let magnitude = unsigned() else { return nil }
    if negative {
      guard magnitude <= UInt64(Int64.max) + 1 else { return nil }
      return magnitude == UInt64(Int64.max) + 1 ? Int64.min : -Int64(magnitude)
    }
    guard magnitude <= UInt64(Int64.max) else { return nil }
    return Int64(magnitude)
  }

  /// A number by JSON's grammar, `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`,
  /// that is a finite double.
  mutating func double() -> Double? {
    let start = index
    _ = take(byte: UInt8(ascii: "-"))
    guard digits() != nil else { return nil }
    if take(byte: UInt8(ascii: ".")) {
      // Any digits after the point, leading zeros included.
      let from = index
      while let byte = peek, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") { index += 1 }
      guard index > from else { return nil }
    }
    if take(byte: UInt8(ascii: "e")) || take(byte: UInt8(ascii: "E")) {
      if !take(byte: UInt8(ascii: "+")) { _ = take(byte: UInt8(ascii: "-")) }
      let from = index
      while let byte = peek, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") { index += 1 }
      // Far from a double's limits only: there a number rounds to zero or overflows, which
      // the general decoder refuses in its own words.
      guard index > from, index - from <= 3,
        let exponent = Int(String(decoding: bytes[from..<index], as: UTF8.self)),
        exponent <= 250
      else { return nil }
    }
    // Something a double cannot be written as is the general decoder's too.
    guard index - start <= 32,
      let value = Double(String(decoding: bytes[start..<index], as: UTF8.self)), value.isFinite
    else { return nil }
    return value
  }
}
