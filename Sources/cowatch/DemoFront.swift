import Clocks
import DemoScript
import PlaybackCoordination
import Synchronization
import TerminalFront

/// The curses view of a demo: every scripted participant's screen as the front draws it,
/// refreshed ten times a second, one followed full-size (Tab for the next) or all side by
/// side (`v`). `q` stops the demo.
enum DemoFront {
  /// The demo's result, or nil when the person stopped it before the end (the runner has
  /// then stopped its participants and relay).
  /// `clock`: the screen's refreshes, for a person to read (real time, whatever the demo's
  /// speed).
  static func run(
    runner: DemoRunner, terminal: TerminalSession, catalog: [SeriesInfo],
    clock: any SessionClock = MonotonicClock()
  ) async -> DemoResult? {
    var screen = DemoScreen(names: runner.participantNames, catalog: catalog)
    let total = runner.script.expectationCount
    let progress = Progress()
    let transcript = Task {
      for await entry in runner.transcript {
        switch entry.kind {
        case .passed: progress.passed()
        case .failed: progress.failed(entry.text)
        default: break
        }
      }
    }
    let done = Mutex<DemoResult?>(nil)
    let run = Task {
      let result = await runner.run()
      done.withLock { $0 = result }
    }
    let keys = terminal.keys
    let (inputs, input) = AsyncStream<Key?>.makeStream()
    let keyTask = Task {
      for await key in keys { input.yield(key) }
      input.yield(.interrupt)
    }
    let tick = Task {
      while !Task.isCancelled {
        await clock.sleep(seconds: 0.1)
        input.yield(nil)
      }
    }
    var finishedAt: Int64?
    var result: DemoResult?
    loop: for await key in inputs {
      switch key {
      case .character("q"), .character("Q"), .interrupt, .control("c"):
        break loop
      case .tab, .right, .character("n"): screen.followNext()
      case .backTab, .left, .character("p"): screen.followPrevious()
      case .character("v"), .character("V"):
        screen.layout = screen.layout == .follow ? .sideBySide : .follow
      default: break
      }
      for name in runner.participantNames {
        if let view = await runner.view(of: name) { screen.update(view) }
      }
      let (passed, failure) = progress.counts
      var status = "\(TimeFormat.clock(runner.scriptTime())) · ✓ \(passed)/\(total)"
      if let failure { status += " · ✗ \(failure)" }
      if finishedAt != nil {
        status += failure == nil ? " · all held — q to quit" : " · q to quit"
      }
      screen.status = status
      let size = terminal.size
      terminal.show(screen.render(rows: size.rows, cols: size.cols))
      if result == nil, let finished = done.withLock({ $0 }) {
        result = finished
        finishedAt = clock.nanoseconds()
      }
      // Leave the final screen up a little, then hand the terminal back.
      if let finishedAt, clock.seconds(since: finishedAt) > 8 { break loop }
    }
    tick.cancel()
    keyTask.cancel()
    terminal.stop()
    if result == nil {
      // Stopped early: let the runner wind down (participants, then its relay).
      run.cancel()
      await run.value
    }
    transcript.cancel()
    return result
  }
}

/// Counts expectations as the transcript reports them.
final class Progress: Sendable {
  private let state = Mutex<(passed: Int, failure: String?)>((0, nil))
  func passed() { state.withLock { $0.passed += 1 } }
  func failed(_ text: String) { state.withLock { $0.failure = text } }
  var counts: (Int, String?) { state.withLock { ($0.passed, $0.failure) } }
}
