import Foundation
import PlaybackCoordination
import Testing

@testable import WireProtocol

/// Pins the exact JSON of every message and every enum case (protocol 2), so that an
/// accidental change of the format fails here rather than in someone else's client.
@Suite("Wire format: golden JSON")
struct WireGoldenTests {
  /// Encodes to exactly `json`, decodes back to `value`, and (for unions) says which case it
  /// is in `"type"`, spelled as the Swift case.
  static func check<Value: Codable & Equatable>(
    _ value: Value, _ json: String, case name: String, union: Bool = true,
    sourceLocation: SourceLocation = #_sourceLocation
  ) throws {
    #expect(wireJSON(value) == json, sourceLocation: sourceLocation)
    #expect(try fromWire(Value.self, json) == value, sourceLocation: sourceLocation)
    let parsed = try JSONSerialization.jsonObject(with: Data(json.utf8), options: .fragmentsAllowed)
    if union {
      #expect(
        (parsed as? [String: Any])?["type"] as? String == name, sourceLocation: sourceLocation)
    } else {
      #expect(parsed as? String == name, sourceLocation: sourceLocation)
    }
  }

  @Test("commands", arguments: Golden.commands)
  func command(_ value: GroupCommand, _ json: String) throws {
    try Self.check(value, json, case: WireCaseNames.of(value))
  }

  @Test("change kinds", arguments: Golden.changeKinds)
  func changeKind(_ value: ChangeKind, _ json: String) throws {
    try Self.check(value, json, case: WireCaseNames.of(value))
  }

  @Test("rejections", arguments: Golden.rejections)
  func rejection(_ value: Rejection, _ json: String) throws {
    try Self.check(value, json, case: WireCaseNames.of(value))
  }

  @Test("wait causes", arguments: Golden.waitCauses)
  func waitCause(_ value: WaitCause, _ json: String) throws {
    try Self.check(value, json, case: WireCaseNames.of(value))
  }

  @Test("step inputs", arguments: Golden.stepInputs)
  func stepInput(_ value: StepInput, _ json: String) throws {
    try Self.check(value, json, case: WireCaseNames.of(value))
  }

  @Test("recipients", arguments: Golden.recipients)
  func recipients(_ value: Recipients, _ json: String) throws {
    try Self.check(value, json, case: WireCaseNames.of(value))
  }

  @Test("participant → relay messages", arguments: Golden.clientMessages)
  func clientMessage(_ value: ClientMessage, _ json: String) throws {
    try Self.check(value, json, case: WireCaseNames.of(value))
    // What the relay itself reads, fast paths included.
    #expect(try WireCodec().decodeClient(Array(json.utf8)) == value)
  }

  @Test("relay → participant messages", arguments: Golden.serverMessages)
  func serverMessage(_ value: ServerMessage, _ json: String) throws {
    try Self.check(value, json, case: WireCaseNames.of(value))
    #expect(try WireCodec().decodeServer(Array(json.utf8)) == value)
  }

  @Test("string enums are plain strings, the case name")
  func stringEnums() throws {
    for (value, json) in Golden.readiness {
      try Self.check(value, json, case: WireCaseNames.of(value), union: false)
    }
    for (value, json) in Golden.exitReasons {
      try Self.check(value, json, case: WireCaseNames.of(value), union: false)
    }
    for (value, json) in Golden.playbackStatuses {
      try Self.check(value, json, case: WireCaseNames.of(value), union: false)
    }
    for (value, json) in Golden.errorCodes {
      try Self.check(value, json, case: WireCaseNames.of(value), union: false)
    }
  }

  @Test("nested structs, with and without their optional fields")
  func structs() throws {
    #expect(wireJSON(Fixture.item1) == Fixture.item1JSON)
    #expect(wireJSON(Fixture.series) == Fixture.seriesJSON)
    #expect(wireJSON(Fixture.timeline) == Fixture.timelineJSON)
    #expect(wireJSON(Fixture.wait) == Fixture.waitJSON)
    #expect(wireJSON(Fixture.ann) == Fixture.annJSON)
    #expect(wireJSON(Fixture.bob) == Fixture.bobJSON)
    #expect(wireJSON(Fixture.played) == Fixture.playedJSON)
    #expect(wireJSON(Fixture.waitStarted) == Fixture.waitStartedJSON)
    #expect(wireJSON(Fixture.session) == Fixture.sessionJSON)
    #expect(wireJSON(Fixture.state) == Fixture.stateJSON)
    #expect(wireJSON(Fixture.emptyState) == Fixture.emptyStateJSON)
    #expect(wireJSON(Fixture.configuration) == Fixture.configurationJSON)
    #expect(wireJSON(Fixture.strictConfiguration) == Fixture.strictConfigurationJSON)
    #expect(wireJSON(Fixture.token) == Fixture.tokenJSON)
    #expect(wireJSON(Fixture.welcome) == Fixture.welcomeJSON)
    #expect(wireJSON(Fixture.pauseStep) == Fixture.pauseStepJSON)
    #expect(wireJSON(Fixture.tickStep) == Fixture.tickStepJSON)

    #expect(try fromWire(ItemInfo.self, Fixture.item1JSON) == Fixture.item1)
    #expect(try fromWire(SeriesInfo.self, Fixture.seriesJSON) == Fixture.series)
    #expect(try fromWire(Timeline.self, Fixture.timelineJSON) == Fixture.timeline)
    #expect(try fromWire(GroupWait.self, Fixture.waitJSON) == Fixture.wait)
    #expect(try fromWire(Participant.self, Fixture.annJSON) == Fixture.ann)
    #expect(try fromWire(Participant.self, Fixture.bobJSON) == Fixture.bob)
    #expect(try fromWire(ChangeEvent.self, Fixture.playedJSON) == Fixture.played)
    #expect(try fromWire(ChangeEvent.self, Fixture.waitStartedJSON) == Fixture.waitStarted)
    #expect(try fromWire(WatchSession.self, Fixture.sessionJSON) == Fixture.session)
    #expect(try fromWire(GroupState.self, Fixture.stateJSON) == Fixture.state)
    #expect(try fromWire(GroupState.self, Fixture.emptyStateJSON) == Fixture.emptyState)
    #expect(
      try fromWire(EngineConfiguration.self, Fixture.configurationJSON) == Fixture.configuration)
    #expect(
      try fromWire(EngineConfiguration.self, Fixture.strictConfigurationJSON)
        == Fixture.strictConfiguration)
    #expect(try fromWire(ResumeToken.self, Fixture.tokenJSON) == Fixture.token)
    #expect(try fromWire(Welcome.self, Fixture.welcomeJSON) == Fixture.welcome)
    #expect(try fromWire(SequencedStep.self, Fixture.pauseStepJSON) == Fixture.pauseStep)
    #expect(try fromWire(SequencedStep.self, Fixture.tickStepJSON) == Fixture.tickStep)
  }

  @Test("the goldens cover every case of every enum")
  func coverage() {
    func cases<Value>(_ samples: [(Value, String)], _ name: (Value) -> String) -> Int {
      Set(samples.map { name($0.0) }).count
    }
    #expect(cases(Golden.commands, WireCaseNames.of) == WireCaseNames.commandCount)
    #expect(cases(Golden.changeKinds, WireCaseNames.of) == WireCaseNames.changeKindCount)
    #expect(cases(Golden.rejections, WireCaseNames.of) == WireCaseNames.rejectionCount)
    #expect(cases(Golden.waitCauses, WireCaseNames.of) == WireCaseNames.waitCauseCount)
    #expect(cases(Golden.stepInputs, WireCaseNames.of) == WireCaseNames.stepInputCount)
    #expect(cases(Golden.recipients, WireCaseNames.of) == WireCaseNames.recipientsCount)
    #expect(cases(Golden.clientMessages, WireCaseNames.of) == WireCaseNames.clientMessageCount)
    #expect(cases(Golden.serverMessages, WireCaseNames.of) == WireCaseNames.serverMessageCount)
    #expect(cases(Golden.readiness, WireCaseNames.of) == WireCaseNames.readinessCount)
    #expect(cases(Golden.exitReasons, WireCaseNames.of) == WireCaseNames.exitReasonCount)
    #expect(cases(Golden.playbackStatuses, WireCaseNames.of) == WireCaseNames.playbackStatusCount)
    #expect(cases(Golden.errorCodes, WireCaseNames.of) == WireCaseNames.errorCodeCount)
  }

  /// Explicit conformances do not notice a stored property added later: it would silently
  /// stay off the wire and replicas would differ. Counting the properties catches that.
  @Test("every stored property of every wire struct is on the wire")
  func everyPropertyEncoded() throws {
    for (name, value, json) in Golden.structs {
      let properties = Mirror(reflecting: value).children.compactMap(\.label)
      let object = try #require(
        try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
      #expect(
        properties.count == object.count,
        "\(name): properties \(properties.sorted()) but JSON keys \(object.keys.sorted())")
      #expect(wireJSON(AnyEncodable(value)) == json, "\(name)")
    }
  }

  @Test("the fixed message forms are pinned, and the hand-written pong matches the encoder")
  func fastPaths() {
    let codec = WireCodec()
    let pong = codec.encodePong(
      id: 7, t0: LocalInstant(nanoseconds: 123_456_789),
      t1: GroupInstant(nanoseconds: 3_600_000_123_456),
      t2: GroupInstant(nanoseconds: 3_600_000_125_000))
    #expect(
      String(decoding: pong, as: UTF8.self)
        == #"{"id":7,"t0":123456789,"t1":3600000123456,"t2":3600000125000,"type":"pong"}"# + "\n")
    #expect(
      HotMessages.decodeClient(Array(#"{"id":7,"t0":123456789,"type":"ping"}"#.utf8))
        == .ping(id: 7, t0: LocalInstant(nanoseconds: 123_456_789)))
  }
}
