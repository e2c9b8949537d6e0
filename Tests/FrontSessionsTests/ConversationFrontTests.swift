import FrontSessions
import Participation
import PlaybackCoordination
import Testing

/// Mentions, reactions and earlier lines through the whole front session.
@Suite("The front's conversation")
struct ConversationFrontTests {
  @Test(
    "a line from someone else that names this person rings the bell once and is highlighted; others, earlier lines and reactions do not ring"
  )
  func bellForMentions() {
    var d = Driver.inLobby()
    let named = d.send(
      .client(.message(from: Fixtures.bob, name: "bob", kind: .chat, body: "@Ann popcorn?")))
    #expect(named.filter { $0 == .bell }.count == 1)
    #expect(d.session.model.notices.first?.emphasis == .mention)
    let plain = d.send(
      .client(.message(from: Fixtures.bob, name: "bob", kind: .chat, body: "annie says hi")))
    #expect(!plain.contains(.bell))
    let earlier = d.send(
      .client(
        .message(from: Fixtures.bob, name: "bob", kind: .chat, body: "ann?", earlier: true)))
    #expect(!earlier.contains(.bell), "what was said before ann came does not ring now")
    #expect(d.session.model.notices.first?.emphasis == .earlier)
    let reaction = d.send(
      .client(.reaction(from: Fixtures.bob, name: "bob", Reaction(text: "😂", at: 754.2))))
    #expect(!reaction.contains(.bell))
    let screen = d.screen()
    #expect(screen.contains("bob reacted 😂 at 12:34"), "\(screen)")
    #expect(screen.contains("earlier · bob: ann?"), "\(screen)")
  }

  @Test("! then a digit reacts; one's own reaction reads 'you reacted'")
  func react() {
    var d = Driver.watching()
    d.press(.character("!"), .character("1"))
    #expect(d.requests.last == .react("👍"))
    d.send(.client(.reaction(from: Fixtures.ann, name: "ann", Reaction(text: "👍", at: 160))))
    #expect(d.screen().contains("you reacted 👍 at 2:40"))
  }
}
