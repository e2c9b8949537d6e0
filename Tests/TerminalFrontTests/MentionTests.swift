import Narration
import Testing

@Suite("Chat: mentions")
struct MentionTests {
  @Test(
    "a line names someone by their name as a word of its own, in any case, with @ or not",
    arguments: [
      ("ann", "ann, are you there?"),
      ("ann", "hey Ann!"),
      ("ann", "@ann look"),
      ("ann", "what do you think (ANN)?"),
      ("ann", "ann"),
      ("mary ann", "mary ann: popcorn?"),
      ("mary ann", "ask @Mary Ann."),
      ("smith, jo", "smith, jo — your turn"),
      ("Zoë", "zoë, pause please"),
      ("🦊", "where is 🦊?"),
      ("🦊", "🦊🦊 twice"),
      ("d.j.", "over to d.j."),
      ("bob_2", "bob_2?"),
    ])
  func names(name: String, text: String) {
    #expect(Mention.names(name, in: text))
  }

  @Test(
    "a name inside another word, part of a name, or nobody's name is not a mention",
    arguments: [
      ("ann", "annie is here"),
      ("ann", "joanne is here"),
      ("ann", "anna"),
      ("ann", "bob_ann"),
      ("ann", "an"),
      ("ann", ""),
      ("mary ann", "mary is here, ann too"),
      ("mary ann", "mary annabel"),
      ("", "anything"),
      ("  ", "anything at all"),
      ("bob", "bobby tables"),
      ("bob2", "bob2000"),
    ])
  func notNames(name: String, text: String) {
    #expect(!Mention.names(name, in: text))
  }
}
