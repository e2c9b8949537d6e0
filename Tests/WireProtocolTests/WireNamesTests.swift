import PlaybackCoordination
import Testing

@testable import WireProtocol

/// The tables of names (Sources/WireProtocol/WireNames.swift) against the protocol's rule
/// and against the one reader of hot lines.
@Suite("Wire format: the one table of names")
struct WireNamesTests {
  /// A value's Swift case name, by reflection, independent of the tables: a case with a
  /// payload is named by its mirror; one without by its default description, which a type
  /// with a description of its own (`Rejection`'s words for people) hides: nil.
  static func swiftCase(_ value: Any) -> String? {
    if let label = Mirror(reflecting: value).children.first?.label { return label }
    return value is any CustomStringConvertible ? nil : String(describing: value)
  }

  static func check<Value>(
    _ samples: [(Value, String)], _ name: (Value) -> String,
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    var checked = 0
    for (value, _) in samples {
      guard let swiftCase = swiftCase(value) else { continue }
      #expect(name(value) == swiftCase, sourceLocation: sourceLocation)
      checked += 1
    }
    #expect(checked > 0, sourceLocation: sourceLocation)
  }

  @Test("every name in the tables is its Swift case's name (the protocol's rule)")
  func namesAreSwiftCases() {
    Self.check(Golden.commands, WireCaseNames.of)
    Self.check(Golden.changeKinds, WireCaseNames.of)
    Self.check(Golden.rejections, WireCaseNames.of)
    Self.check(Golden.waitCauses, WireCaseNames.of)
    Self.check(Golden.stepInputs, WireCaseNames.of)
    Self.check(Golden.recipients, WireCaseNames.of)
    Self.check(Golden.clientMessages, WireCaseNames.of)
    Self.check(Golden.serverMessages, WireCaseNames.of)
    Self.check(Golden.readiness, WireCaseNames.of)
    Self.check(Golden.exitReasons, WireCaseNames.of)
    Self.check(Golden.playbackStatuses, WireCaseNames.of)
    Self.check(Golden.errorCodes, WireCaseNames.of)
  }

  @Test("an unknown name is refused with the union's own words, whatever the table")
  func unknownNames() {
    #expect(WireCaseNames.of(ClientMessage.resync) == "resync")
    // Names are exact: another case of the same letters is not one.
    let codec = WireCodec()
    for (line, words) in [
      (#"{"type":"Resync"}"#, #"unknown message type "Resync""#),
      (
        #"{"type":"command","id":1,"command":{"type":"Pause","at":1}}"#,
        #"unknown command type "Pause""#
      ),
    ] {
      let error = #expect(throws: WireError.self) { try codec.decodeClient(Array(line.utf8)) }
      #expect(error.map { "\($0)".contains(words) } == true, "\(String(describing: error))")
    }
  }

  @Test("the hot reader takes only the order it writes: any other goes, and reads the same")
  func otherKeyOrders() throws {
    let codec = WireCodec()
    let lines = [
      #"{"type":"ping","id":1,"t0":5}"#,
      #"{"t0":5,"id":1,"type":"ping"}"#,
      #"{"id":1,"type":"command","command":{"at":1,"type":"pause"}}"#,
      #"{"command":{"type":"pause","at":1},"id":1,"type":"command"}"#,
      #"{"command":{"item":"a","at":1,"type":"pause"},"id":1,"type":"command"}"#,
    ]
    for line in lines {
      #expect(HotMessages.decodeClient(Array(line.utf8)) == nil, "\(line)")
      #expect(throws: Never.self) { try codec.decodeClient(Array(line.utf8)) }
    }
    let server = [
      #"{"type":"pong","id":1,"t0":1,"t1":2,"t2":3}"#,
      #"{"id":1,"type":"accepted","sequence":2}"#,
      #"{"step":{"after":2,"at":5,"before":1,"input":{"type":"tick"}},"type":"accepted"}"#,
    ]
    for line in server {
      #expect(HotMessages.decodeServer(Array(line.utf8)) == nil, "\(line)")
    }
    #expect(
      try codec.decodeServer(Array(server[0].utf8))
        == codec.decodeServer(
          Array(#"{"id":1,"t0":1,"t1":2,"t2":3,"type":"pong"}"#.utf8)))
    // The type a hot shape ends with must be its own: a step's body under "accepted" is
    // the general decoder's to refuse.
    #expect(throws: WireError.self) { try codec.decodeServer(Array(server[2].utf8)) }
  }
}
