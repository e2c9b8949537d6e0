import PlaybackCoordination
import Testing

@testable import WireProtocol

@Suite("Reactions as messenger bodies")
struct ReactionBodyTests {
  @Test("a reaction's body is its text and film time, and reads back the same")
  func roundTrip() throws {
    let reaction = Reaction(text: "😂", at: 754.2)
    #expect(reaction.body == Fixture.reactionBody)
    #expect(try Reaction.read(body: reaction.body).get() == reaction)
    #expect(try Reaction.read(body: Reaction(text: "what a twist", at: 0).body).get().at == 0)
  }

  @Test(
    "a body that is not a reaction within bounds is refused, never read",
    arguments: [
      "😂", "", "{}", #"{"text":"😂"}"#, #"{"text":"😂","at":"soon"}"#,
      #"{"text":"😂","at":-3}"#, #"{"text":"😂","at":1e300}"#, #"{"text":"","at":3}"#,
      #"{"text":" 😂","at":3}"#, #"{"text":"a b c d e f","at":3}"#,
      #"{"text":"\u001b[2J","at":3}"#,
      #"{"text":"\#(String(repeating: "x", count: 41))","at":3}"#,
    ])
  func refused(body: String) {
    #expect(throws: Rejection.self) { try Reaction.read(body: body).get() }
  }

  @Test("the bounds: five words and forty bytes; emoji with modifiers fit")
  func bounds() {
    #expect(Reaction.refusal("one two three four five") == nil)
    #expect(Reaction.refusal("👍🏽") == nil)
    #expect(Reaction.refusal("❤️") == nil)
    #expect(Reaction.refusal("one two three four five six")?.contains("5 words") == true)
    #expect(Reaction.refusal(String(repeating: "é", count: 21))?.contains("40 bytes") == true)
    #expect(Reaction.refusal("")?.contains("empty") == true)
  }
}
