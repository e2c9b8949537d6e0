import PlaybackCoordination
import Testing

@testable import TerminalFront

@Suite("Long chat lines")
struct LongChatTests {
  static let long =
    "carol: " + (1...30).map { "word\($0)" }.joined(separator: " ") + " END"

  @Test("a chat line wider than the notices pane is wrapped, every word of it on screen")
  func wrapped() {
    var model = Fixtures.playing()
    model.receiveChat(from: "carol", text: String(Self.long.dropFirst("carol: ".count)))
    let screen = ScreenRenderer.render(model, rows: 30, cols: 80).text
    for word in (1...30).map({ "word\($0)" }) + ["END"] {
      #expect(screen.contains(word), "\(word) in\n\(screen)")
    }
    #expect(!screen.contains("…"), "nothing cut:\n\(screen)")
  }

  @Test("what went wrong is wrapped like chat, every word of it on screen")
  func errorsWrapped() {
    var model = Fixtures.playing()
    let text =
      "not sent yet: the connection is down — it goes when the relay is back, if within 10 s of asking END"
    model.post(text, kind: .error)
    let screen = ScreenRenderer.render(model, rows: 30, cols: 72).text
    #expect(screen.contains("END"), "\(screen)")
    #expect(!screen.contains("asking…"))
  }

  @Test("a change to the group is wrapped too, read whole in a narrow pane")
  func eventsWrapped() {
    var model = Fixtures.playing()
    model.post("lou took control of playback: only lou can play, pause, seek or switch")
    let screen = ScreenRenderer.render(model, rows: 24, cols: 60).text
    #expect(screen.contains("switch") && !screen.contains("swit…"), "\(screen)")
  }

  @Test("scrolled back to it, a long line is read from its start, wrapped")
  func scrolledBack() {
    var model = Fixtures.playing()
    model.receiveChat(from: "carol", text: String(Self.long.dropFirst("carol: ".count)))
    model.post("bob paused at 12:40")
    model.scrollNotices(by: 1)
    let screen = ScreenRenderer.render(model, rows: 30, cols: 80).text
    #expect(screen.contains("carol: word1 "))
    #expect(screen.contains("END"), "\(screen)")
  }

  @Test("input past the chat line's limit is left out, and the front says so")
  func inputCut() {
    var c = FrontController()
    let model = Fixtures.playing()
    _ = c.handle(key: .character("c"), model: model)
    let actions = c.handle(key: .paste(String(repeating: "x", count: 3000) + "END"), model: model)
    #expect(c.activePrompt?.input.count == 400)
    #expect(
      actions == [
        .localNotice("the line holds at most 400 characters: the rest was left out"), .redraw,
      ])
    #expect(
      c.handle(key: .character("y"), model: model).contains {
        if case .localNotice = $0 { true } else { false }
      })
    _ = c.handle(key: .backspace, model: model)
    #expect(c.handle(key: .character("z"), model: model) == [.redraw], "under the limit again")
  }
}
