import DemoScript
import Media
import Testing

/// Runs `script` at `speed`, collecting the transcript.
private func run(_ script: DemoScript, speed: Double) async -> (DemoResult, [TranscriptEntry]) {
  let runner = DemoRunner(script: script, catalog: testCatalog, speed: speed)
  let collector = Task {
    var entries: [TranscriptEntry] = []
    for await entry in runner.transcript { entries.append(entry) }
    return entries
  }
  let result = await runner.run()
  return (result, await collector.value)
}

@Suite("demo runner over real TCP", .serialized)
struct DemoRunnerTests {
  @Test("a small script passes: actions happen, changes are narrated once, expectations hold")
  func smallScriptPasses() async throws {
    let script = try parse(
      """
      participant ann latency=50ms
      participant bob drift=+500ppm arrives-at=0:01
      at 0:00 ann start harbour/s1e1
      at 0:01 bob join
      at 0:03 expect ann,bob state playing item harbour/s1e1 together ±0.2
      at 0:04 bob pause
      at 0:05 expect all state paused together ±0.05 notice "bob paused at"
      at 0:05 bob confirm
      at 0:06 expect bob error "nothing to confirm" prompt none
      at 0:06 ann say hi bob
      at 0:07 expect bob chat "ann: hi bob"
      """)
    // Speed 2: a second of the script (a chat line on its way, bob's two seconds to join
    // and catch up) is 500 ms of real time, which a machine busy with the whole suite
    // keeps (at 5, a full local run once saw bob 74 ms of real time, 0.37 s of script,
    // ahead two script seconds after he joined).
    let (result, entries) = await run(script, speed: 2)
    #expect(result.succeeded, "\(result.summary)")
    #expect(result.passed == 4 && result.expectations == 4 && result.actionErrors == 1)
    let lines = entries.map(\.formatted)
    // Not before its time (later only if the machine is slow).
    #expect(
      entries.contains {
        $0.text == "bob: pause" && $0.time >= 4 && $0.kind == .action(participant: "bob")
      })
    #expect(lines.contains { $0.contains("✓ expect all state paused") })
    #expect(lines.contains { $0.contains("bob is told: nothing to confirm") })
    #expect(lines.contains { $0.contains("bob gets a message from ann: hi bob") })
    // The pause is shown once, whoever saw it first.
    #expect(lines.filter { $0.contains("sees: bob paused at") }.count == 1)
    #expect(entries.last?.text.hasPrefix("all 4 expectations held") == true)
  }

  @Test("a failing expect ends the run, naming its line, what it expected and what was seen")
  func failingExpectation() async throws {
    let script = try parse(
      """
      participant ann
      at 0:00 ann start harbour/s1e1
      at 0:02 expect ann state playing
      # the group plays; nobody paused
      at 0:03 expect ann state paused
      at 0:04 ann pause
      at 0:05 expect ann state paused
      """)
    let (result, entries) = await run(script, speed: 5)
    #expect(!result.succeeded)
    let failure = try #require(result.failure)
    #expect(failure.line == 5)
    #expect(failure.expected == "ann state paused")
    #expect(failure.seen == ["ann: state is playing, expected paused"])
    #expect(result.passed == 1 && result.expectations == 3)
    #expect(entries.contains { $0.kind == .failed(line: 5) && $0.text.contains("line 5") })
    // Nothing after the failure runs.
    #expect(!entries.contains { $0.text == "ann: pause" })
  }

  @Test("a front can follow one participant: client snapshot, player screen, prompt")
  func participantView() async throws {
    let script = try parse(
      """
      participant ann
      at 0:00 ann start harbour/s1e1
      at 0:02 ann next
      at 0:03 expect ann prompt confirm-switch
      at 0:08 ann cancel
      """)
    let runner = DemoRunner(script: script, catalog: testCatalog, speed: 5)
    #expect(runner.participantNames == ["ann"])
    #expect(await runner.view(of: "zed") == nil)
    let running = Task { await runner.run() }
    var seen: DemoParticipantView?
    let deadline = ContinuousClock.now + .seconds(10)
    while ContinuousClock.now < deadline {
      if let view = await runner.view(of: "ann"), view.prompt != nil, view.player?.state == .playing
      {
        seen = view
        break
      }
      try await Task.sleep(for: .milliseconds(20))
    }
    let view = try #require(seen)
    #expect(view.arrived)
    #expect(view.session?.state.session?.item.id == "harbour/s1e1")
    #expect(view.player?.item == "harbour/s1e1" && view.player?.title == "The Lamp Goes Out")
    #expect(view.player?.frame.isEmpty == false)
    #expect(view.prompt?.kind == "confirm-switch")
    #expect(view.notices.contains { $0.contains("ann started") })
    let result = await running.value
    #expect(result.succeeded, "\(result.summary)")
  }

  /// At speed 5, not 10: a 0.25 s tolerance of the script is 50 ms of real time, which a
  /// machine busy with the whole suite (real Syncplay and mpv players among it) keeps; at
  /// 10 it failed about one run in seven, always on a wait a loaded scheduler stretched.
  @Test("the default demo passes at speed 5 (the CI check)", .timeLimit(.minutes(1)))
  func defaultDemo() async throws {
    let script = try DemoScript.load(
      from: repositoryRoot + "/Media/demo.cowatch", catalog: testCatalog)
    let (result, entries) = await run(script, speed: 5)
    #expect(
      result.succeeded, "\(result.summary)\n\(entries.map(\.formatted).joined(separator: "\n"))")
    #expect(result.passed == script.expectationCount)
    #expect(result.realSeconds < 30)
  }
}
