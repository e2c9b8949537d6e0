import Testing
import WireProtocol

@Suite("Participant names")
struct ParticipantNameTests {
  @Test(
    "visible names are accepted as given (spaces around trimmed)",
    arguments: [
      ("ann", "ann"), ("Zoë", "Zoë"), ("雪", "雪"), ("O'Brien", "O'Brien"), ("  bob  ", "bob"),
      ("dj 🎧", "dj 🎧"), ("Ana María", "Ana María"),
    ])
  func accepted(name: String, accepted: String) throws {
    #expect(try ParticipantName.validate(name).get() == accepted)
  }

  @Test(
    "look-alikes, bidi overrides, invisible and oversized names are refused",
    arguments: [
      "ann\u{200B}", "\u{202E}nna", "   ", "\u{200D}", "a\u{0007}b", "a\u{0085}b", "tab\there",
      "line\u{2028}sep", "\u{3000}ann", "e" + String(repeating: "\u{0301}", count: 60),
      String(repeating: "x", count: 33), String(repeating: "é", count: 32) + "é", "\u{E000}x",
      "",
    ])
  func refused(name: String) {
    guard case .failure(let problem) = ParticipantName.validate(name) else {
      Issue.record("accepted \(name.unicodeScalars.map { String($0.value, radix: 16) })")
      return
    }
    #expect(!problem.description.isEmpty)
  }

  @Test("names are one name after case folding and compatibility normalisation")
  func keys() {
    #expect(ParticipantName.key("Ann") == ParticipantName.key("ann"))
    #expect(ParticipantName.key("ＡＮＮ") == ParticipantName.key("ann"))
    #expect(ParticipantName.key("Zoe\u{0308}") == ParticipantName.key("zoë"))
    #expect(ParticipantName.key("ann") != ParticipantName.key("anne"))
  }
}
