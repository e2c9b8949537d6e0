import DemoScript
import Media
import Testing

@Suite("the demo's curses view, read from its grid")
struct DemoScreenTests {
  @Test("following one participant, then everyone side by side, at 120×35 and 80×24")
  func followAndTile() async throws {
    let script = try DemoScript.parse(
      """
      participant ann
      participant bob
      at 0:00 ann start harbour/s1e1
      at 0:01 bob join
      at 0:03 bob pause
      at 0:04 ann next
      at 0:05 expect ann prompt confirm-switch state paused
      """, fileName: "screen.cowatch", catalog: testCatalog)
    // On virtual time; the views are read when the script has run, before its
    // participants leave: ann is asked, bob paused the group.
    let runner = DemoRunner(script: script, catalog: testCatalog, options: .init(time: .virtual))
    let views = Views()
    let result = await runner.run(beforeShutdown: {
      for name in runner.participantNames {
        if let view = await runner.view(of: name) { await views.add(view) }
      }
    })
    #expect(result.succeeded, "\(result.summary)")
    var screen = DemoScreen(names: runner.participantNames, catalog: testCatalog.seriesInfos())
    for view in await views.all { screen.update(view) }
    #expect(await views.all.count == 2)
    screen.status = "0:05 · ✓ 1/1"
    let followed = screen.render(rows: 35, cols: 120).text
    #expect(followed.contains("ann ★ (you)"), "ann entered first: she owns the room")
    #expect(followed.contains("paused by bob"))
    #expect(followed.contains("Switch everyone to"), "ann's prompt is shown as the front's modal")
    #expect(followed.contains("demo · following ann · 0:05 · ✓ 1/1"))
    #expect(!followed.contains("space play"), "the viewer's keys, not the participants', are shown")

    screen.followNext()
    let bob = screen.render(rows: 24, cols: 80).text
    #expect(bob.contains("bob (you)") || bob.contains("b… (you)"))
    #expect(bob.contains("following bob"))
    #expect(!bob.contains("Switch everyone to"), "bob was not asked")

    screen.layout = .sideBySide
    let tiled = screen.render(rows: 35, cols: 120)
    #expect(tiled.text.contains("everyone side by side"))
    #expect(
      tiled.lines.first?.contains("ann") == true && tiled.lines.first?.contains("bob") == true)
    #expect(!tiled.text.contains("Tab next person"), "Tab follows someone only when following")
    // Small: one tile under another, and no participant's key help between the last tile
    // and the demo's own line.
    let small = screen.render(rows: 14, cols: 50)
    #expect(!small.text.contains("q quit  ") && !small.text.contains("? help"), "\(small.text)")
  }
}

actor Views {
  var all: [DemoParticipantView] = []
  func add(_ view: DemoParticipantView) { all.append(view) }
}
