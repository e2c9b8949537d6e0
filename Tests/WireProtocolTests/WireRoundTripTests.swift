import Foundation
import PlaybackCoordination
import Testing

@testable import WireProtocol

/// Every case of every enum survives encode → decode however a client in another language
/// lays out its JSON, and no encoded value anywhere carries Swift's positional `_0` names.
@Suite("Wire format: round trips")
struct WireRoundTripTests {
  /// How another language's JSON library might write the same value: keys in another
  /// order, spaces and newlines.
  static func foreign<Value: Encodable>(_ value: Value) throws -> [UInt8] {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted]
    return Array(try encoder.encode(value))
  }

  static func roundTrip<Value: Codable & Equatable>(
    _ samples: [(Value, String)], sourceLocation: SourceLocation = #_sourceLocation
  ) throws {
    let codec = WireCodec()
    for (value, _) in samples {
      #expect(
        try codec.decode(Value.self, Array(codec.encode(value).dropLast())) == value,
        sourceLocation: sourceLocation)
      #expect(
        try codec.decode(Value.self, try foreign(value)) == value, sourceLocation: sourceLocation)
    }
  }

  @Test("every case of every enum, in any key order and spacing")
  func everyCase() throws {
    try Self.roundTrip(Golden.commands)
    try Self.roundTrip(Golden.changeKinds)
    try Self.roundTrip(Golden.rejections)
    try Self.roundTrip(Golden.waitCauses)
    try Self.roundTrip(Golden.stepInputs)
    try Self.roundTrip(Golden.recipients)
    try Self.roundTrip(Golden.clientMessages)
    try Self.roundTrip(Golden.serverMessages)
    try Self.roundTrip(Golden.readiness)
    try Self.roundTrip(Golden.exitReasons)
    try Self.roundTrip(Golden.playbackStatuses)
    try Self.roundTrip(Golden.errorCodes)
  }

  @Test("an absent optional may also be sent as null")
  func nullOptionals() throws {
    #expect(
      try fromWire(GroupCommand.self, #"{"type":"endSuspension","reason":null,"proposing":null}"#)
        == .endSuspension(nil, proposing: nil))
    #expect(
      try fromWire(GroupCommand.self, #"{"type":"play","item":null,"rate":2}"#)
        == .play(item: nil, rate: 2))
    #expect(
      try fromWire(
        ClientMessage.self, #"{"type":"hello","version":2,"name":"a","room":"b","resume":null}"#)
        == .hello(version: 2, name: "a", room: "b", resume: nil))
    #expect(
      try fromWire(
        GroupState.self,
        #"{"sequence":0,"participants":[],"session":null,"lastChange":null,"sessionCounter":0}"#)
        == GroupState())
  }

  @Test("fields a receiver does not know are ignored")
  func unknownFields() throws {
    #expect(
      try fromWire(
        ClientMessage.self, #"{"type":"command","id":2,"command":{"type":"join","x":1},"y":[]}"#)
        == .command(id: 2, .join))
  }

  @Test("no encoded value has a positional (_0, _1) or other underscore field")
  func noPositionalNames() throws {
    for json in Golden.allJSON {
      #expect(!json.contains(#""_0""#) && !json.contains(#""_1""#), "\(json)")
      let keys = Self.keys(
        in: try JSONSerialization.jsonObject(
          with: Data(json.utf8), options: .fragmentsAllowed))
      #expect(!keys.contains { $0.hasPrefix("_") }, "\(json)")
    }
  }

  /// A real room, driven through the engine: every state, step and change it produced goes
  /// over the wire and back unchanged, and a replica fed the decoded steps keeps up.
  @Test("a room's whole life crosses the wire intact")
  func engineScenario() throws {
    let codec = WireCodec()
    var engine = GroupEngine()
    var replica = GroupEngine()
    var now = GroupInstant(seconds: 3600)
    var lines: [String] = []

    func step(_ input: StepInput) throws {
      let before = engine.state.sequence
      var events: [ChangeEvent] = []
      switch input {
      case .command(let command, let from):
        if case .success(let changes) = engine.apply(command, from: from, at: now) {
          events = changes
        }
      case .tick:
        events = engine.tick(at: now)
      }
      let messages: [ServerMessage] = [
        .step(
          SequencedStep(before: before, after: engine.state.sequence, at: now, input: input)),
        .update(state: engine.state, events: events),
      ]
      for message in messages {
        let line = codec.encode(message)
        lines.append(String(decoding: line, as: UTF8.self))
        let decoded = try codec.decodeServer(Array(line.dropLast()))
        #expect(decoded == message)
        if case .step(let s) = decoded, s.after != s.before {
          #expect(replica.replay(s) == events)
        }
      }
      now = now.advanced(bySeconds: 0.5)
    }

    let series = Fixture.series
    try step(.command(.enter(name: "ann"), from: "p1"))
    try step(.command(.enter(name: "bob"), from: "p2"))
    try step(.command(.start(series: series, item: "harbour/s1e1"), from: "p1"))
    try step(.command(.setReadiness(.ready), from: "p1"))
    try step(.command(.join, from: "p2"))
    try step(.command(.setReadiness(.loading), from: "p2"))
    try step(.command(.setReadiness(.ready), from: "p2"))
    try step(.command(.report(roundTrip: 0.25, startupLatency: 0.5, playerOffset: 0), from: "p2"))
    try step(.command(.setAutoAdvance(true), from: "p1"))
    try step(.command(.pause(item: "harbour/s1e1", at: 2), from: "p2"))
    try step(.command(.play(item: "harbour/s1e1", rate: 1.5), from: "p1"))
    try step(.command(.beginSuspension(.interrupted), from: "p2"))
    try step(.command(.endSuspension(.interrupted, proposing: 30), from: "p2"))
    try step(.command(.seek(item: "harbour/s1e1", to: 148), from: "p1"))
    try step(.command(.setConnected(false), from: "p2"))
    try step(.command(.setConnected(true), from: "p2"))
    for _ in 0..<20 { try step(.tick) }
    try step(.command(.replace(series: series, item: "harbour/s1e1", confirmed: true), from: "p2"))
    try step(.command(.leave, from: "p2"))
    try step(.command(.end, from: "p1"))
    try step(.command(.exit(reason: .quit), from: "p2"))

    #expect(replica.state == engine.state)
    #expect(engine.state.sequence > 15, "the scenario should have changed the room a lot")
    for line in lines {
      #expect(!line.contains(#""_0""#) && !line.contains(#""_1""#), "\(line)")
    }
  }

  static func keys(in json: Any) -> [String] {
    if let object = json as? [String: Any] {
      return object.keys + object.values.flatMap(keys(in:))
    }
    if let array = json as? [Any] { return array.flatMap(keys(in:)) }
    return []
  }
}
