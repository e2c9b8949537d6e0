import Narration
import PlaybackCoordination
import Testing

@testable import TerminalFront

/// Reactions, mentions and what was said before this person came, as the front shows them.
@Suite("The conversation: reactions, mentions, earlier lines")
struct ConversationTests {
  /// The first cell of the row showing `text`, with the row.
  func firstCell(showing text: String, in grid: CellGrid) -> (row: Int, cell: Cell)? {
    guard let row = grid.lines.firstIndex(where: { $0.contains(text) }) else { return nil }
    return (row, grid[row, grid.lines[row].distance(of: text)])
  }

  @Test("a reaction is a line with who, what and the film time, in the accent colour")
  func reactionLine() throws {
    var model = Fixtures.playing()
    model.receiveReaction(from: "bob", Reaction(text: "😂", at: 754.2), earlier: false)
    let grid = ScreenRenderer.render(model, rows: 24, cols: 80)
    let (_, cell) = try #require(firstCell(showing: "bob reacted 😂 at 12:34", in: grid))
    #expect(cell.style.role == .accent)
    #expect(model.notices.first?.emphasis == .reaction)
  }

  @Test("a chat line that names this person is highlighted: bold and reversed while fresh")
  func mentionLine() throws {
    var model = Fixtures.playing()
    model.receiveChat(from: "bob", text: "alice, pause?", emphasis: .mention)
    model.receiveChat(from: "carol", text: "popcorn")
    let grid = ScreenRenderer.render(model, rows: 24, cols: 80)
    let (_, mention) = try #require(firstCell(showing: "bob: alice, pause?", in: grid))
    #expect(mention.style.bold && mention.style.reverse && mention.style.role == .accent)
    let (_, plain) = try #require(firstCell(showing: "carol: popcorn", in: grid))
    #expect(!plain.style.bold && !plain.style.reverse && plain.style.role == .chat)
  }

  @Test("what was said before this person came is marked earlier and dimmed")
  func earlierLines() throws {
    var model = Fixtures.playing()
    model.receiveChat(from: "bob", text: "the storm scene!", emphasis: .earlier)
    model.receiveReaction(from: "carol", Reaction(text: "😮", at: 61), earlier: true)
    let grid = ScreenRenderer.render(model, rows: 24, cols: 80)
    let (_, chat) = try #require(firstCell(showing: "earlier · bob: the storm scene!", in: grid))
    #expect(chat.style.dim && chat.style.role == .muted)
    let (_, reaction) = try #require(
      firstCell(showing: "earlier · carol reacted 😮 at 1:01", in: grid))
    #expect(reaction.style.dim)
  }

  @Test("! opens the reactions: a digit sends a quick pick, at once")
  func quickPick() {
    let model = Fixtures.playing()
    var controller = FrontController()
    #expect(controller.handle(key: .character("!"), model: model) == [.redraw])
    #expect(controller.activePrompt?.kind == .react)
    #expect(controller.handle(key: .character("2"), model: model) == [.act(.react("😂"))])
    #expect(controller.activePrompt == nil)
  }

  @Test(
    "a reaction of one's own words is sent trimmed; too many words are refused in words, the line kept"
  )
  func ownWords() {
    let model = Fixtures.playing()
    var controller = FrontController()
    _ = controller.handle(key: .character("!"), model: model)
    _ = controller.handle(key: .character("6"), model: model)
    #expect(controller.activePrompt?.kind == .reactText)
    for c in "one two three four five six" {
      _ = controller.handle(key: .character(c), model: model)
    }
    let refused = controller.handle(key: .enter, model: model)
    #expect(
      refused.contains(
        .localNotice("a reaction is at most 5 words (this one is 6): say more in the chat")))
    #expect(controller.activePrompt?.kind == .reactText)
    #expect(controller.activePrompt?.input == "one two three four five six")
    for _ in 0..<4 { _ = controller.handle(key: .backspace, model: model) }
    #expect(
      controller.handle(key: .enter, model: model) == [.act(.react("one two three four five"))])
  }
}
