import Foundation
import PlaybackCoordination
import Testing

@testable import WireProtocol

/// docs/PROTOCOL.md is what people write clients from, so its examples must be the format
/// itself: every value in a `json` block decodes as one of the wire types and encodes back
/// to the same JSON (a misspelt optional field would otherwise be silently ignored), and
/// every case name the format has is documented.
@Suite("docs/PROTOCOL.md")
struct ProtocolDocTests {
  static let document: String? = {
    let root = URL(fileURLWithPath: #filePath)
      .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    return try? String(
      contentsOf: root.appendingPathComponent("docs/PROTOCOL.md"), encoding: .utf8)
  }()

  /// The JSON values in the document's `json` blocks. A value starts on a line that is not
  /// indented; indented lines continue it.
  static func examples(in document: String) -> [String] {
    var values: [String] = []
    var inBlock = false
    for line in document.split(separator: "\n", omittingEmptySubsequences: false) {
      if line.hasPrefix("```") {
        inBlock = line == "```json"
        continue
      }
      guard inBlock, !line.isEmpty else { continue }
      if line.first == " ", !values.isEmpty {
        values[values.count - 1] += line.trimmingCharacters(in: .whitespaces)
      } else {
        values.append(String(line))
      }
    }
    return values
  }

  /// The same JSON, whatever its key order and spacing.
  static func canonical(_ json: some DataProtocol) throws -> String {
    let object = try JSONSerialization.jsonObject(with: Data(json), options: .fragmentsAllowed)
    return String(
      decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]),
      as: UTF8.self)
  }

  /// The wire types an example may be, as (name, decode-then-encode).
  static var candidates: [(String, ([UInt8]) throws -> [UInt8])] {
    [
      ("ClientMessage", reencode(ClientMessage.self)),
      ("ServerMessage", reencode(ServerMessage.self)),
      ("GroupCommand", reencode(GroupCommand.self)), ("StepInput", reencode(StepInput.self)),
      ("SequencedStep", reencode(SequencedStep.self)), ("GroupState", reencode(GroupState.self)),
      ("Participant", reencode(Participant.self)), ("WatchSession", reencode(WatchSession.self)),
      ("Timeline", reencode(Timeline.self)), ("GroupWait", reencode(GroupWait.self)),
      ("WaitCause", reencode(WaitCause.self)), ("ChangeEvent", reencode(ChangeEvent.self)),
      ("ChangeKind", reencode(ChangeKind.self)), ("Rejection", reencode(Rejection.self)),
      ("EngineConfiguration", reencode(EngineConfiguration.self)),
      ("SeriesInfo", reencode(SeriesInfo.self)), ("ItemInfo", reencode(ItemInfo.self)),
      ("Recipients", reencode(Recipients.self)), ("ResumeToken", reencode(ResumeToken.self)),
      ("Welcome", reencode(Welcome.self)),
    ]
  }

  static func reencode<Value: Codable>(_ type: Value.Type) -> ([UInt8]) throws -> [UInt8] {
    { bytes in WireCodec().encode(try WireCodec().decode(Value.self, bytes)) }
  }

  @Test("every JSON example is a wire value, exactly as the relay writes it")
  func examplesAreTheFormat() throws {
    let document = try #require(Self.document, "docs/PROTOCOL.md not found")
    let examples = Self.examples(in: document)
    #expect(examples.count > 60, "found only \(examples.count) examples")
    for example in examples {
      let expected = try Self.canonical(Array(example.utf8))
      let matches = Self.candidates.filter { _, reencode in
        guard let bytes = try? reencode(Array(example.utf8)) else { return false }
        return (try? Self.canonical(bytes.dropLast())) == expected
      }
      #expect(!matches.isEmpty, "not a wire value as written: \(example)")
    }
  }

  @Test("every case of every union and string enum is documented")
  func everyCaseDocumented() throws {
    let document = try #require(Self.document, "docs/PROTOCOL.md not found")
    var names: [String] = []
    names += Golden.commands.map { WireCaseNames.of($0.0) }
    names += Golden.changeKinds.map { WireCaseNames.of($0.0) }
    names += Golden.rejections.map { WireCaseNames.of($0.0) }
    names += Golden.waitCauses.map { WireCaseNames.of($0.0) }
    names += Golden.stepInputs.map { WireCaseNames.of($0.0) }
    names += Golden.recipients.map { WireCaseNames.of($0.0) }
    names += Golden.clientMessages.map { WireCaseNames.of($0.0) }
    names += Golden.serverMessages.map { WireCaseNames.of($0.0) }
    names += Golden.readiness.map { WireCaseNames.of($0.0) }
    names += Golden.exitReasons.map { WireCaseNames.of($0.0) }
    names += Golden.errorCodes.map { WireCaseNames.of($0.0) }
    for name in Set(names) {
      #expect(document.contains("`\(name)`"), "docs/PROTOCOL.md does not mention `\(name)`")
    }
  }

  @Test("the document stands alone: it names version 2 and points nowhere outside the repo")
  func standsAlone() throws {
    let document = try #require(Self.document, "docs/PROTOCOL.md not found")
    #expect(document.hasPrefix("# The Cowatch wire protocol (version \(ProtocolVersion.current))"))
    #expect(!document.contains("../"))
  }
}
