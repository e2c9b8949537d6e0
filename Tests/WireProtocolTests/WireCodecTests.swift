import LineFraming
import PlaybackCoordination
import Testing

@testable import WireProtocol

@Suite("Wire codec")
struct WireCodecTests {
  let codec = WireCodec()

  static let series = SeriesInfo(
    id: "harbour", title: "Harbour",
    items: [ItemInfo(id: "harbour/s1e1", title: "Arrival", duration: 300)])

  static let clientMessages: [ClientMessage] = [
    .hello(version: 2, name: "bob", room: "lobby", resume: nil),
    .hello(
      version: 2, name: "ça va 🎬", room: "movie-night",
      resume: ResumeToken(participant: "p3", proof: Array(repeating: 9, count: 64))),
    .hello(
      version: 2, name: "dan", room: "lobby", resume: nil,
      resumeKey: Array(repeating: 2, count: 32)),
    .command(id: 7, .pause(item: "harbour/s1e1", at: 754.25)),
    .command(id: 8, .start(series: series, item: "harbour/s1e1")),
    .command(id: 9, .endSuspension(nil, proposing: 12)),
    .command(id: 10, .beginSuspension(.interrupted)),
    .command(id: 11, .report(roundTrip: 0.001, startupLatency: 0.2, playerOffset: nil)),
    .ping(id: 3, t0: LocalInstant(nanoseconds: 123_456_789)),
    .send(seq: 1, to: .only(["p1", "p2"]), kind: "chat", body: "hi \"there\"\nnew line"),
    .send(seq: 2, to: .all, kind: "reaction", body: "👍"),
    .bye,
  ]

  @Test("every client message survives encode → decode", arguments: clientMessages)
  func clientRoundTrip(_ message: ClientMessage) throws {
    let line = codec.encode(message)
    #expect(line.last == UInt8(ascii: "\n"))
    #expect(!line.dropLast().contains(UInt8(ascii: "\n")), "one message is one line")
    #expect(try codec.decodeClient(Array(line.dropLast())) == message)
  }

  @Test("every server message survives encode → decode")
  func serverRoundTrip() throws {
    var state = GroupState(
      sequence: 4, participants: [Participant(id: "p1", name: "ann", isJoined: true)])
    state.session = WatchSession(
      id: 1, series: Self.series, item: Self.series.items[0],
      timeline: Timeline(itemTime: 10, groupTime: GroupInstant(nanoseconds: 5), rate: 1),
      intendedRate: 1)
    let event = ChangeEvent(
      sequence: 4, at: GroupInstant(nanoseconds: 9), originator: "p1", originatorName: "ann",
      kind: .paused(at: 10))
    let messages: [ServerMessage] = [
      .welcome(
        Welcome(
          participant: "p1", room: "lobby", resume: ResumeToken(participant: "p1"),
          configuration: EngineConfiguration(), state: state, resumed: false,
          relayEpoch: "e1")),
      .update(state: state, events: [event]),
      .accepted(id: 3, sequence: 4),
      .rejected(id: 4, reason: .staleItem(sent: "a/b", current: "c/d")),
      .pong(
        id: 1, t0: LocalInstant(nanoseconds: 1), t1: GroupInstant(nanoseconds: 2),
        t2: GroupInstant(nanoseconds: 3)),
      .message(from: "p2", fromName: "bob", seq: 9, kind: "chat", body: "hello"),
      .error(code: .roomFull, message: "room lobby is full", fatal: true),
    ]
    for message in messages {
      let line = codec.encode(message)
      #expect(try codec.decodeServer(Array(line.dropLast())) == message)
    }
  }

  static let garbage: [String] = [
    "", "not json", "{", "[]", "42", "null", #"{"type":42}"#, #"{"type":"nope"}"#,
    #"{"type":"hello"}"#, #"{"type":"hello","version":"one","name":"a","room":"b"}"#,
    #"{"type":"command","id":1,"command":{"type":"teleport"}}"#,
    #"{"type":"command","id":1,"command":{"teleport":{}}}"#,
    #"{"type":"command","id":-1,"command":{"type":"join"}}"#,
    #"{"type":"ping","id":1,"t0":"soon"}"#, "\u{0}\u{1}\u{2}", #"{"type":"send","seq":1}"#,
  ]

  @Test("garbage is a malformed-frame error, never a crash", arguments: garbage)
  func garbageIsRejected(_ text: String) {
    #expect(throws: WireError.self) { try codec.decodeClient(Array(text.utf8)) }
  }

  @Test("random bytes never crash the decoder")
  func randomBytes() {
    var seed: UInt64 = 0x1234_5678
    for _ in 0..<500 {
      var bytes: [UInt8] = []
      for _ in 0..<Int(seed % 64) {
        seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        bytes.append(UInt8(truncatingIfNeeded: seed >> 33))
      }
      seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      _ = try? codec.decodeClient(bytes)
    }
  }

  @Test("the framer splits lines, accepts CRLF and skips empty lines")
  func framing() throws {
    var framer = LineFramer(maximumFrameBytes: 100)
    framer.append(Array("one\r\n\ntwo\nthr".utf8))
    #expect(try framer.nextFrame() == Array("one".utf8))
    #expect(try framer.nextFrame() == Array("two".utf8))
    #expect(try framer.nextFrame() == nil)
    framer.append(Array("ee\n".utf8))
    #expect(try framer.nextFrame() == Array("three".utf8))
  }

  @Test("a frame over the limit is an error, with or without its newline")
  func oversized() {
    var open = LineFramer(maximumFrameBytes: 10)
    open.append(Array(repeating: UInt8(ascii: "a"), count: 11))
    #expect(throws: FrameTooLarge(limit: 10)) { try open.nextFrame() }

    var closed = LineFramer(maximumFrameBytes: 10)
    closed.append(Array(repeating: UInt8(ascii: "a"), count: 20) + [UInt8(ascii: "\n")])
    #expect(throws: FrameTooLarge(limit: 10)) { try closed.nextFrame() }
  }

  @Test("a frame exactly at the limit is accepted")
  func atLimit() throws {
    var framer = LineFramer(maximumFrameBytes: 10)
    framer.append(Array(repeating: UInt8(ascii: "a"), count: 10) + [UInt8(ascii: "\n")])
    #expect(try framer.nextFrame()?.count == 10)
  }

  @Test("errors read clearly")
  func errorText() {
    #expect(
      WireError.unsupportedVersion(received: 1, supported: 2).description
        == "this relay speaks Cowatch protocol 2 and you sent 1: use the same cowatch version on both ends"
    )
    #expect(WireError.frameTooLarge(limit: 65536).description.contains("65536"))
  }
}

extension ClientMessage: CustomTestStringConvertible {
  public var testDescription: String {
    String(decoding: WireCodec().encode(self).dropLast(), as: UTF8.self)
  }
}

@Suite struct WireCodecFastPathTests {
  @Test("the hot reader takes a ping as the JSON decoder does and refuses anything else")
  func fastPing() throws {
    let codec = WireCodec()
    for (id, t0) in [
      (UInt64(1), Int64(0)), (42, 1_234_567_890_123), (UInt64.max, Int64.min), (7, -5),
      (9, Int64.max),
    ] {
      let message = ClientMessage.ping(id: id, t0: LocalInstant(nanoseconds: t0))
      var line = codec.encode(message)
      line.removeLast()
      #expect(HotMessages.decodeClient(line) == message)
      #expect(try codec.decodeClient(line) == message)
    }
    for bad in [
      #"{"id":01,"t0":5,"type":"ping"}"#, #"{"id":1,"t0":,"type":"ping"}"#,
      #"{"id":1,"t0":5,"type":"pong"}"#,
      #"{"id":1, "t0":5,"type":"ping"}"#, #"{"id":18446744073709551616,"t0":5,"type":"ping"}"#,
      #"{"id":1,"t0":9223372036854775808,"type":"ping"}"#, #"{"id":-1,"t0":5,"type":"ping"}"#,
    ] {
      #expect(HotMessages.decodeClient(Array(bad.utf8)) == nil)
    }
  }

  @Test("a hand-written pong is byte for byte the encoder's")
  func pong() {
    let codec = WireCodec()
    let t0 = LocalInstant(nanoseconds: -17)
    let t1 = GroupInstant(nanoseconds: 3_600_123_456_789)
    let t2 = GroupInstant(nanoseconds: Int64.max)
    #expect(
      codec.encodePong(id: 99, t0: t0, t1: t1, t2: t2)
        == codec.encode(ServerMessage.pong(id: 99, t0: t0, t1: t1, t2: t2)))
  }
}
