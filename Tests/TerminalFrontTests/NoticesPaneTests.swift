import PlaybackCoordination
import Testing

@testable import TerminalFront

@Suite("The notices pane keeps the evening")
struct NoticesPaneTests {
  @Test(
    "past their lifetime, notices and chat stay in the pane, dimmed with their age: never 'Nothing yet' over a history"
  )
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

@Suite("Offset steps in the notices")
struct OffsetNoticeTests {
  @Test(
    "six presses of + by bob are one notice brought up to date, not six; carol's own is her own")
  func oneNoticePerRun() {
    var model = Fixtures.playing()
    let before = model.notices.count
    for step in 1...6 {
      model.apply(
        ChangeEvent(
          sequence: UInt64(100 + step), at: Fixtures.now.advanced(bySeconds: Double(step) * 0.2),
          originator: Fixtures.bob, originatorName: "bob",
          kind: .personalOffsetChanged(Double(step) * 0.05)))
    }
    #expect(model.notices.count == before + 1)
    #expect(model.notices.first?.text.contains("300 ms ahead") == true, "\(model.notices.first!)")
    #expect(model.history.filter { $0.text.contains("bob's player runs") }.count == 1)
    model.apply(
      ChangeEvent(
        sequence: 200, at: Fixtures.now.advanced(bySeconds: 2), originator: Fixtures.carol,
        originatorName: "carol", kind: .personalOffsetChanged(0.1)))
    #expect(model.notices.count == before + 2)
  }
}

@Suite("A short terminal")
struct ShortTerminalTests {
  @Test("at 60×15 the people pane lists three people and the last chat line is read whole")
  func sixtyByFifteen() {
    var model = Fixtures.playing()
    model.receiveChat(from: "carol", text: "popcorn!")
    for rows in [14, 15] {
      let screen = ScreenRenderer.render(model, rows: rows, cols: 60).text
      for name in ["alice", "bob", "carol"] {
        #expect(screen.contains(name), "\(rows) rows: \(name)\n\(screen)")
      }
      #expect(screen.contains("carol: popcorn!"), "\(rows) rows\n\(screen)")
    }
  }
}
