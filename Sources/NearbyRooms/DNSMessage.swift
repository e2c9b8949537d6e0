/// A DNS message as multicast DNS uses it (RFC 1035 §4, RFC 6762): only what advertising
/// and finding rooms needs. Decoding checks every length and pointer, since anyone on the
/// network may send anything to port 5353.
public struct DNSMessage: Hashable, Sendable {
  public var id: UInt16 = 0
  /// QR bit set: an answer (mDNS responses also set AA).
  public var isResponse: Bool
  public var questions: [DNSQuestion] = []
  public var answers: [DNSRecord] = []
  public var authorities: [DNSRecord] = []
  public var additionals: [DNSRecord] = []

  public init(
    isResponse: Bool, questions: [DNSQuestion] = [], answers: [DNSRecord] = [],
    additionals: [DNSRecord] = []
  ) {
    self.isResponse = isResponse
    self.questions = questions
    self.answers = answers
    self.additionals = additionals
  }

  /// The largest message read or written: RFC 6762 §17's 9000 bytes for multicast DNS.
  public static let maximumSize = 9000
  /// Sections longer than this are refused whole (a 9000-byte message holds fewer anyway).
  static let maximumEntries = 512

  // MARK: - Encoding

  /// The message in wire format, names written whole (no compression: simpler, and what
  /// one room's answer holds is far below a datagram's size).
  public func encoded() throws(DNSMessageError) -> [UInt8] {
    var out: [UInt8] = []
    out.reserveCapacity(512)
    out.append16(id)
    out.append16(isResponse ? 0x8400 : 0)  // QR + AA for responses; a plain query else
    for count in [questions.count, answers.count, authorities.count, additionals.count] {
      guard count <= Self.maximumEntries else { throw .init("too many entries") }
      out.append16(UInt16(count))
    }
    for question in questions {
      try question.name.encode(into: &out)
      out.append16(question.type.rawValue)
      out.append16(question.unicastResponse ? 0x8001 : 0x0001)
    }
    for record in answers + authorities + additionals { try record.encode(into: &out) }
    guard out.count <= Self.maximumSize else {
      throw .init("a message of \(out.count) bytes is over \(Self.maximumSize)")
    }
    return out
  }

  // MARK: - Decoding

  public static func decode(_ bytes: [UInt8]) throws(DNSMessageError) -> DNSMessage {
    guard bytes.count <= maximumSize else { throw .init("over \(maximumSize) bytes") }
    var reader = DNSReader(bytes: bytes)
    let id = try reader.read16()
    let flags = try reader.read16()
    // Opcode other than a standard query, or a response code: not mDNS's (RFC 6762 §18).
    guard flags & 0x7800 == 0, flags & 0x000F == 0 else {
      throw .init("not a standard query or response")
    }
    let counts = try (0..<4).map { _ throws(DNSMessageError) in Int(try reader.read16()) }
    guard counts.reduce(0, +) <= maximumEntries else { throw .init("too many entries") }
    var message = DNSMessage(isResponse: flags & 0x8000 != 0)
    message.id = id
    for _ in 0..<counts[0] {
      let name = try reader.readName()
      let type = try reader.read16()
      let klass = try reader.read16()
      message.questions.append(
        DNSQuestion(
          name: name, type: DNSRecordType(rawValue: type), unicastResponse: klass & 0x8000 != 0))
    }
    message.answers = try (0..<counts[1]).map { _ throws(DNSMessageError) in
      try reader.readRecord()
    }
    message.authorities = try (0..<counts[2]).map { _ throws(DNSMessageError) in
      try reader.readRecord()
    }
    message.additionals = try (0..<counts[3]).map { _ throws(DNSMessageError) in
      try reader.readRecord()
    }
    return message
  }
}

/// One question: which name, which type.
public struct DNSQuestion: Hashable, Sendable {
  public var name: DNSName
  public var type: DNSRecordType
  /// The QU bit: the asker would take a unicast answer (RFC 6762 §5.4).
  public var unicastResponse: Bool

  public init(name: DNSName, type: DNSRecordType, unicastResponse: Bool = false) {
    self.name = name
    self.type = type
    self.unicastResponse = unicastResponse
  }
}

/// The record types multicast DNS service discovery uses; others are kept as numbers.
public struct DNSRecordType: RawRepresentable, Hashable, Sendable {
  public var rawValue: UInt16
  public init(rawValue: UInt16) { self.rawValue = rawValue }
  public static let a = DNSRecordType(rawValue: 1)
  public static let ptr = DNSRecordType(rawValue: 12)
  public static let txt = DNSRecordType(rawValue: 16)
  public static let aaaa = DNSRecordType(rawValue: 28)
  public static let srv = DNSRecordType(rawValue: 33)
  public static let nsec = DNSRecordType(rawValue: 47)
  public static let any = DNSRecordType(rawValue: 255)
}

/// One resource record.
public struct DNSRecord: Hashable, Sendable {
  public var name: DNSName
  /// Seconds it may be kept; 0 says goodbye (RFC 6762 §10.1).
  public var ttl: UInt32
  /// The cache-flush bit: this record replaces what was held for its name and type.
  public var cacheFlush: Bool
  public var data: DNSRecordData

  public init(name: DNSName, ttl: UInt32, cacheFlush: Bool = false, data: DNSRecordData) {
    self.name = name
    self.ttl = ttl
    self.cacheFlush = cacheFlush
    self.data = data
  }

  public var type: DNSRecordType { data.type }

  func encode(into out: inout [UInt8]) throws(DNSMessageError) {
    try name.encode(into: &out)
    out.append16(type.rawValue)
    out.append16(cacheFlush ? 0x8001 : 0x0001)
    out.append32(ttl)
    let lengthAt = out.count
    out.append16(0)
    switch data {
    case .a(let address): out.append(contentsOf: address)
    case .ptr(let target): try target.encode(into: &out)
    case .srv(let priority, let weight, let port, let target):
      out.append16(priority)
      out.append16(weight)
      out.append16(port)
      try target.encode(into: &out)
    case .txt(let strings):
      // An empty TXT record holds one empty string (RFC 6763 §6.1).
      for string in strings.isEmpty ? [[]] : strings {
        guard string.count <= 255 else { throw .init("a TXT string over 255 bytes") }
        out.append(UInt8(string.count))
        out.append(contentsOf: string)
      }
    case .other(_, let bytes): out.append(contentsOf: bytes)
    }
    let length = out.count - lengthAt - 2
    guard length <= 0xFFFF else { throw .init("record data over 65535 bytes") }
    out[lengthAt] = UInt8(length >> 8)
    out[lengthAt + 1] = UInt8(length & 0xFF)
  }
}

/// What a record says, by type.
public enum DNSRecordData: Hashable, Sendable {
  case a([UInt8])
  case ptr(DNSName)
  case srv(priority: UInt16, weight: UInt16, port: UInt16, target: DNSName)
  case txt([[UInt8]])
  case other(DNSRecordType, [UInt8])

  public var type: DNSRecordType {
    switch self {
    case .a: .a
    case .ptr: .ptr
    case .srv: .srv
    case .txt: .txt
    case .other(let type, _): type
    }
  }
}

/// Why bytes are not a DNS message this code accepts.
public struct DNSMessageError: Error, Hashable, Sendable, CustomStringConvertible {
  public let reason: String
  init(_ reason: String) { self.reason = reason }
  public var description: String { "not a DNS message: \(reason)" }
}

/// Reads a message front to back; names may point back into what was read (RFC 1035 §4.1.4).
struct DNSReader {
  let bytes: [UInt8]
  var at = 0

  mutating func read8() throws(DNSMessageError) -> UInt8 {
    guard at < bytes.count else { throw .init("cut short") }
    defer { at += 1 }
    return bytes[at]
  }

  mutating func read16() throws(DNSMessageError) -> UInt16 {
    UInt16(try read8()) << 8 | UInt16(try read8())
  }

  mutating func read32() throws(DNSMessageError) -> UInt32 {
    UInt32(try read16()) << 16 | UInt32(try read16())
  }

  mutating func readBytes(_ count: Int) throws(DNSMessageError) -> [UInt8] {
    guard count >= 0, at + count <= bytes.count else { throw .init("cut short") }
    defer { at += count }
    return Array(bytes[at..<at + count])
  }

  /// A name, following compression pointers. Each pointer must point before the one that
  /// led to it, so a loop cannot be built; the whole name stays within 255 bytes.
  mutating func readName() throws(DNSMessageError) -> DNSName {
    var labels: [String] = []
    var length = 1
    var cursor = at
    var limit = at  // a pointer must go strictly below this
    var jumped = false
    while true {
      guard cursor < bytes.count else { throw .init("cut short in a name") }
      let byte = bytes[cursor]
      if byte & 0xC0 == 0xC0 {
        guard cursor + 1 < bytes.count else { throw .init("cut short in a name") }
        let target = Int(byte & 0x3F) << 8 | Int(bytes[cursor + 1])
        guard target < limit else { throw .init("a name pointer that does not point back") }
        if !jumped { at = cursor + 2 }
        jumped = true
        limit = target
        cursor = target
        continue
      }
      guard byte & 0xC0 == 0 else { throw .init("an unknown label type") }
      let count = Int(byte)
      if count == 0 {
        if !jumped { at = cursor + 1 }
        return DNSName(labels: labels)
      }
      length += count + 1
      guard length <= 255 else { throw .init("a name over 255 bytes") }
      guard cursor + 1 + count <= bytes.count else { throw .init("cut short in a name") }
      labels.append(String(decoding: bytes[cursor + 1..<cursor + 1 + count], as: UTF8.self))
      cursor += 1 + count
    }
  }

  mutating func readRecord() throws(DNSMessageError) -> DNSRecord {
    let name = try readName()
    let type = DNSRecordType(rawValue: try read16())
    let klass = try read16()
    let ttl = try read32()
    let length = Int(try read16())
    guard at + length <= bytes.count else { throw .init("record data cut short") }
    let end = at + length
    let data: DNSRecordData
    switch type {
    case .a:
      guard length == 4 else { throw .init("an A record of \(length) bytes") }
      data = .a(try readBytes(4))
    case .ptr:
      data = .ptr(try readName())
    case .srv:
      let priority = try read16()
      let weight = try read16()
      let port = try read16()
      data = .srv(priority: priority, weight: weight, port: port, target: try readName())
    case .txt:
      var strings: [[UInt8]] = []
      while at < end {
        let count = Int(try read8())
        guard at + count <= end else { throw .init("a TXT string past its record") }
        strings.append(try readBytes(count))
      }
      data = .txt(strings)
    default:
      data = .other(type, try readBytes(length))
    }
    guard at == end else { throw .init("record data of the wrong length") }
    return DNSRecord(name: name, ttl: ttl, cacheFlush: klass & 0x8000 != 0, data: data)
  }
}

extension Array where Element == UInt8 {
  mutating func append16(_ value: UInt16) {
    append(UInt8(value >> 8))
    append(UInt8(value & 0xFF))
  }

  mutating func append32(_ value: UInt32) {
    append16(UInt16(value >> 16))
    append16(UInt16(value & 0xFFFF))
  }
}
