import PlaybackCoordination
import Testing

@testable import TerminalFront

@Suite("Prompts on screen")
struct PromptLayoutTests {
  @Test("a long option is shown whole when the screen has room for it")
  func longOptionWhole() {
    var model = Fixtures.playing()
    model.prompt = .roomMenu(control: RoomControl(owner: Fixtures.alice))
    let screen = ScreenRenderer.render(model, rows: 35, cols: 120).text
    #expect(
      screen.contains("Only I control playback (the others can still step away)"), "\(screen)")
  }

  @Test(
    "at the end of an episode, the hint to switch is for whoever may; the others read who decides")
  func finishedHint() {
    var model = Fixtures.finished()
    let mine = ScreenRenderer.render(model, rows: 35, cols: 120).text
    #expect(mine.contains("finished — n for"), "\(mine)")
    model.group.control = RoomControl(owner: Fixtures.bob, playback: .owner)
    let theirs = ScreenRenderer.render(model, rows: 35, cols: 120).text
    #expect(theirs.contains("finished — bob chooses what's next"), "\(theirs)")
    #expect(!theirs.contains("n for"))
  }

  @Test("buttons that stand one under another are moved with ↑/↓, as the hint says")
  func stackedHint() {
    var model = Fixtures.playing()
    let episode = ItemInfo(id: "harbour/s1e2", title: "The Turn of the Tide", duration: 1500)
    model.prompt = .replaceSession(
      item: episode, seriesTitle: "Harbour Lights", current: episode,
      watchers: ["ann", "bob", "carol"])
    let narrow = ScreenRenderer.render(model, rows: 30, cols: 40).text
    #expect(narrow.contains("↑/↓ move"), "\(narrow)")
    // Side by side, ←/→.
    model.prompt = .quitUnreachable()
    let wide = ScreenRenderer.render(model, rows: 35, cols: 120).text
    #expect(wide.contains("←/→ move"), "\(wide)")
  }
}
