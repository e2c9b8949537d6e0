import DemoScript
import Media
import Testing

@Suite("the demo's curses view, read from its grid", .serialized)
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
      at 0:05 expect ann prompt confirm-switch
      at 0:24 expect ann prompt confirm-switch state paused
      """, fileName: "screen.cowatch", catalog: testCatalog)
    // Slow enough that the prompt stays up for seconds even on a busy machine (10 s of
    // real time: the run ends, and its participants with it, at 0:24).
    let runner = DemoRunner(script: script, catalog: testCatalog, speed: 2)
    let running = Task { await runner.run() }
    var screen = DemoScreen(names: runner.participantNames, catalog: testCatalog.seriesInfos())
    var asked = false
    let deadline = ContinuousClock.now + .seconds(20)
    while ContinuousClock.now < deadline, !asked {
      for name in runner.participantNames {
        guard let view = await runner.view(of: name) else { continue }
        screen.update(view)
        // The screen drawn below must be from a view that shows the pause and the prompt.
        if name == "ann", view.prompt != nil, view.session?.state.session?.status == .paused {
          asked = true
        }
      }
      if !asked { try await Task.sleep(for: .milliseconds(50)) }
    }
    #expect(asked)
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
    let result = await running.value
    #expect(result.succeeded, "\(result.summary)")
  }
}
