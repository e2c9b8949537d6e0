import PlaybackCoordination
import Testing

@testable import TerminalFront

@Suite("The notices pane keeps the evening")
struct NoticesPaneTests {
  @Test("past their lifetime, notices and chat stay in the pane, dimmed with their age: never 'Nothing yet' over a history")
  func neverEmptied() {
    var model = Fixtures.playing()
    model.post("The router forwards 203.0.113.5:7700 to this machine")
    model.receiveChat(from: "bob", text: "popcorn ready")
    model.now = Fixtures.now.advanced(bySeconds: 600)
    model.pruneNotices()
    #expect(model.visibleNotices.isEmpty, "both are past their lifetime")
    for (rows, cols) in [(24, 80), (35, 120)] {
      let screen = ScreenRenderer.render(model, rows: rows, cols: cols).text
      #expect(!screen.contains("Nothing yet"), "\(rows)x\(cols)\n\(screen)")
      #expect(screen.contains("bob: popcorn ready"), "\(rows)x\(cols)\n\(screen)")
      #expect(screen.contains("The router forwards"), "\(rows)x\(cols)\n\(screen)")
      #expect(screen.contains("10m"), "their age is shown")
    }
    // Nothing ever said: then it says so.
    var silent = Fixtures.playing()
    silent.notices = []
    let fresh = ScreenRenderer.render(silent, rows: 24, cols: 80).text
    #expect(fresh.contains("Nothing yet"))
  }

  @Test("more than the pane holds: its border says PgUp shows the older ones")
  func saysWhereTheRestIs() {
    var model = Fixtures.playing()
    for i in 1...30 { model.receiveChat(from: "bob", text: "line \(i)") }
    let screen = ScreenRenderer.render(model, rows: 24, cols: 80).text
    #expect(screen.contains("line 30"))
    #expect(!screen.contains("line 1 "))
    #expect(screen.contains("PgUp: older"))
  }
}
