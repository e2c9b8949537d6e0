import Foundation
import PlaybackCoordination
import Testing

@testable import WireProtocol

/// The hand-written path for the messages of every change must be indistinguishable from
/// the general one: the same bytes out, the same values in, and nothing taken in that the
/// general decoder would refuse or read otherwise.
@Suite("Wire format: the hot messages by hand")
struct HotMessagesTests {
  let codec = WireCodec()

  /// What `JSONEncoder` writes (the generic path, never the hand-written one).
  static func general<Message: Encodable>(_ message: Message) -> [UInt8] {
    WireCodec().encode(message)
  }

  static func double(_ g: inout SeededGenerator) -> Double {
    switch g.next() % 7 {
    case 0: Double(g.next() % 10_000)
    case 1: Double(g.next() % 100_000) / 4
    case 2: g.value(in: 0...86_400)
    case 3: g.value(in: -5...5)
    case 4: Double(bitPattern: g.next() % 0x7FEF_FFFF_FFFF_FFFF)  // any finite positive
    case 5: g.value(in: 0...1) * 1e-9
    default: 1e15 + Double(g.next() % 1000)
    }
  }

  static func item(_ g: inout SeededGenerator) -> ItemID? {
    let ids: [ItemID?] = [
      nil, "night-ferry/s1e3", "bench/e1", "a b", "Blåbær/s1e1", "quote\"d", "back\\slash",
      "tab\there", "",
    ]
    return ids[Int(g.next() % UInt64(ids.count))]
  }

  static func command(_ g: inout SeededGenerator) -> GroupCommand {
    switch g.next() % 9 {
    case 0: .pause(item: item(&g), at: double(&g))
    case 1: .play(item: item(&g), rate: g.next() % 2 == 0 ? nil : double(&g))
    case 2: .seek(item: item(&g), to: double(&g))
    case 3: .setRate(item: item(&g), rate: double(&g))
    case 4:
      .report(
        roundTrip: double(&g), startupLatency: double(&g),
        playerOffset: g.next() % 2 == 0 ? nil : double(&g))
    case 5: .join
    case 6: .leave
    case 7: .end  // not a hot one: the general path
    default: .setConnected(g.next() % 2 == 0)  // nor this
    }
  }

  static func serverMessage(_ g: inout SeededGenerator) -> ServerMessage {
    switch g.next() % 5 {
    case 0: .accepted(id: g.next(), sequence: g.next() % 1_000_000)
    case 4:
      .pong(
        id: g.next(), t0: LocalInstant(nanoseconds: Int64(bitPattern: g.next())),
        t1: GroupInstant(nanoseconds: Int64(bitPattern: g.next())),
        t2: GroupInstant(nanoseconds: Int64(bitPattern: g.next() >> 1)))
    case 1:
      .step(
        SequencedStep(
          before: g.next() % 1000, after: g.next(),
          at: GroupInstant(nanoseconds: Int64.random(in: .min ... .max, using: &g)),
          input: .tick))
    default:
      .step(
        SequencedStep(
          before: g.next() % 1000, after: g.next() % 1000 + 1,
          at: GroupInstant(nanoseconds: Int64(g.next() % (1 << 62))),
          input: .command(command(&g), from: ParticipantID("p\(g.next() % 1000)"))))
    }
  }

  @Test("random steps, answers and commands: the same bytes as JSONEncoder, the same values back")
  func sameAsGeneral() throws {
    var g = SeededGenerator(seed: 42)
    var hot = 0
    for _ in 0..<5000 {
      let server = Self.serverMessage(&g)
      let serverBytes = codec.encode(server)
      #expect(serverBytes == Self.general(server), "\(server)")
      if HotMessages.encode(server) != nil { hot += 1 }
      let line = Array(serverBytes.dropLast())
      #expect(try codec.decodeServer(line) == codec.decode(ServerMessage.self, line))
      let client =
        g.next() % 4 == 0
        ? ClientMessage.ping(
          id: g.next(), t0: LocalInstant(nanoseconds: Int64(bitPattern: g.next())))
        : ClientMessage.command(id: g.next() % 100_000, Self.command(&g))
      let clientBytes = codec.encode(client)
      #expect(clientBytes == Self.general(client), "\(client)")
      let clientLine = Array(clientBytes.dropLast())
      #expect(try codec.decodeClient(clientLine) == codec.decode(ClientMessage.self, clientLine))
    }
    // Most of them took the hand-written path (the others: cold commands).
    #expect(hot > 3000)
  }

  @Test("a name or item with any character at all: the same bytes as JSONEncoder, by hand")
  func everyCharacter() throws {
    var text = ""
    for byte in 0..<0x80 { text.unicodeScalars.append(Unicode.Scalar(UInt8(byte))) }
    text += "\u{2028}\u{2029}é😀\u{FEFF}\u{85}\u{A0}/"
    var samples = [text, "", "/", "\\\"", "a\u{0}b"]
    var g = SeededGenerator(seed: 11)
    for _ in 0..<500 {
      var random = ""
      for _ in 0..<(g.next() % 12) {
        let scalar =
          g.next() % 3 == 0
          ? Unicode.Scalar(UInt32(g.next() % 0x80))
          : Unicode.Scalar(UInt32(g.next() % 0x11_0000))
        if let scalar { random.unicodeScalars.append(scalar) }
      }
      samples.append(random)
    }
    for sample in samples {
      let step = ServerMessage.step(
        SequencedStep(
          before: 1, after: 2, at: GroupInstant(nanoseconds: 5),
          input: .command(.seek(item: ItemID(sample), to: 3), from: ParticipantID(sample))))
      #expect(HotMessages.encode(step) != nil)
      #expect(codec.encode(step) == Self.general(step), "\(sample.unicodeScalars.map(\.value))")
      #expect(try codec.decodeServer(Array(codec.encode(step).dropLast())) == step)
      let command = ClientMessage.command(id: 9, .pause(item: ItemID(sample), at: 1.5))
      #expect(HotMessages.encode(command) != nil)
      #expect(codec.encode(command) == Self.general(command))
      #expect(try codec.decodeClient(Array(codec.encode(command).dropLast())) == command)
    }
  }

  @Test(
    "whatever the hand-written reader takes from a mangled line, the general one reads the same")
  func mangledLines() throws {
    var g = SeededGenerator(seed: 7)
    var taken = 0
    let alphabet = Array(#"{}[]":,.-+eE0123456789 \tnull"truefalse"abcxyz\#u{1}é"#.utf8)
    for _ in 0..<20_000 {
      let message: [UInt8] =
        g.next() % 2 == 0
        ? codec.encode(Self.serverMessage(&g))
        : codec.encode(ClientMessage.command(id: g.next() % 100, Self.command(&g)))
      var line = Array(message.dropLast())
      for _ in 0...(g.next() % 3) {
        let at = Int(g.next() % UInt64(line.count))
        switch g.next() % 3 {
        case 0: line[at] = alphabet[Int(g.next() % UInt64(alphabet.count))]
        case 1: line.remove(at: at)
        default: line.insert(alphabet[Int(g.next() % UInt64(alphabet.count))], at: at)
        }
        if line.isEmpty { break }
      }
      if let fast = HotMessages.decodeServer(line) {
        taken += 1
        #expect(
          (try? codec.decode(ServerMessage.self, line)) == fast,
          "\(String(decoding: line, as: UTF8.self))")
      }
      if let fast = HotMessages.decodeClient(line) {
        taken += 1
        #expect(
          (try? codec.decode(ClientMessage.self, line)) == fast,
          "\(String(decoding: line, as: UTF8.self))")
      }
    }
    // Some mangled lines are still valid hot messages (a digit changed): the check bites.
    #expect(taken > 500)
  }

  @Test("anything but the exact shape goes to the general decoder")
  func refusals() {
    let refused = [
      #"{"command":{"at":1,"type":"pause"},"id":1,"type":"command","x":1}"#,  // a field more
      #"{"command":{"at":1,"type":"pause"},"id":1}"#,  // a field less
      #"{"command":{"at":1,"type":"pause"},"id":1,"id":2,"type":"command"}"#,  // twice
      #"{"command":{"at":1,"type":"pause"}, "id":1,"type":"command"}"#,  // whitespace
      #"{"command":{"at":1,"type":"pause"},"id":-1,"type":"command"}"#,  // negative id
      #"{"command":{"at":1,"type":"pause"},"id":1.0,"type":"command"}"#,  // not digits
      #"{"command":{"at":1,"type":"pause"},"id":01,"type":"command"}"#,  // leading zero
      #"{"command":{"at":1e999,"type":"pause"},"id":1,"type":"command"}"#,  // infinite
      #"{"command":{"at":1,"item":null,"type":"pause"},"id":1,"type":"command"}"#,  // null
      #"{"command":{"at":1,"item":"a\"b","type":"pause"},"id":1,"type":"command"}"#,  // escape
      #"{"command":{"type":"end"},"id":1,"type":"command"}"#,  // not a hot command
      #"{"command":{"at":1,"type":"pause"},"id":18446744073709551616,"type":"command"}"#,
    ]
    for line in refused {
      #expect(HotMessages.decodeClient(Array(line.utf8)) == nil, "\(line)")
    }
    #expect(
      HotMessages.decodeClient(
        Array(#"{"command":{"at":1,"type":"pause"},"id":1,"type":"command"}"#.utf8))
        == .command(id: 1, .pause(item: nil, at: 1)))
    #expect(
      HotMessages.decodeServer(
        Array(#"{"step":{"after":2,"at":5,"before":1,"input":{"type":"tick"}},"type":"step"}"#.utf8)
      ) == .step(SequencedStep(before: 1, after: 2, at: GroupInstant(nanoseconds: 5), input: .tick))
    )
    #expect(HotMessages.decodeServer(Array(#"{"type":"step"}"#.utf8)) == nil)
    // The pong is written here too (WireCodec.encodePong is a shorthand for it).
    let pong = ServerMessage.pong(
      id: 1, t0: LocalInstant(nanoseconds: 1), t1: GroupInstant(nanoseconds: 2),
      t2: GroupInstant(nanoseconds: 3))
    #expect(HotMessages.encode(pong) == Self.general(pong))
    // Other kinds are never written here, whatever their content.
    #expect(HotMessages.encode(ServerMessage.accepted(id: 1, sequence: 2)) != nil)
    #expect(HotMessages.encode(ServerMessage.rejected(id: 1, reason: .notJoined)) == nil)
    #expect(HotMessages.encode(ClientMessage.resync) == nil)
  }
}
