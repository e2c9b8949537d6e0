import ArgumentParser
import Foundation
import TmuxDriver

/// The terminal front as a person runs it: a release `cowatch join` in a tmux pane
/// (120×35) against a `cowatch serve` process. Measures its CPU while playing and while
/// paused, and how long a key takes to change what tmux shows.
enum FrontBench {
  struct Result {
    var playingCPU: Double
    var pausedCPU: Double
    var seconds: Double
    var keyLatencies: [Double]
  }

  static func wait(
    _ tmux: Tmux, for text: String, present: Bool = true, within seconds: Double = 10
  ) async throws {
    let deadline = monoNow() + Int64(seconds * 1e9)
    while monoNow() < deadline {
      if tmux.capture("front").contains(text) == present { return }
      await sleepSeconds(0.01)
    }
    throw BenchError("the front did not \(present ? "show" : "stop showing") “\(text)”")
  }

  static func run(seconds: Double, presses: Int) async throws -> Result {
    guard Tmux.executable != nil else { throw BenchError("tmux is not installed") }
    let relay = try ServerProcess.cowatch()
    defer { relay.stop() }
    let exe = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
      .deletingLastPathComponent().appendingPathComponent("cowatch").path
    let state = NSTemporaryDirectory() + "cowatch-bench-front-\(UUID().uuidString)"
    defer { try? FileManager.default.removeItem(atPath: state) }
    let tmux = Tmux(prefix: "cowatch-bench")
    defer { tmux.kill() }
    // `exec`: the pane's process is the front itself, whose CPU is read.
    try tmux.run([
      "new-session", "-d", "-s", "front", "-x", "120", "-y", "35",
      "exec /usr/bin/env TERM=xterm-256color XDG_STATE_HOME=\(state) XDG_CONFIG_HOME=\(state)/config "
        + [exe, "join", "127.0.0.1:\(relay.port)", "--name", "ann", "--no-tls"].map(Tmux.quote)
        .joined(separator: " "),
    ])
    guard
      let pid = Int32(
        try tmux.run(["list-panes", "-t", "front", "-F", "#{pane_pid}"], readOutput: true).output
          .trimmingCharacters(in: .whitespacesAndNewlines))
    else { throw BenchError("no pane") }
    try await wait(tmux, for: "People (1)")
    try tmux.sendKeys("front", "e")
    try await wait(tmux, for: "enter choose")
    try tmux.sendKeys("front", "1")
    try await wait(tmux, for: "▶ playing")
    await sleepSeconds(2)
    progress("front: playing, \(seconds) s")
    let playing = try await cpuShare(of: pid, seconds: seconds)
    try tmux.sendKeys("front", "Space")
    try await wait(tmux, for: "⏸ paused")
    await sleepSeconds(2)
    progress("front: paused, \(seconds) s")
    let paused = try await cpuShare(of: pid, seconds: seconds)
    progress("front: \(presses) presses of ?")
    var latencies: [Double] = []
    for _ in 0..<presses {
      for shown in [true, false] {
        let t0 = monoNow()
        try tmux.sendKeys("front", "?")
        try await wait(tmux, for: "Keys", present: shown)
        latencies.append(Double(monoNow() - t0) / 1e6)
        await sleepSeconds(0.05)
      }
    }
    try tmux.sendKeys("front", "q")
    return Result(
      playingCPU: playing, pausedCPU: paused, seconds: seconds, keyLatencies: latencies)
  }

  /// The process's share of one core over `seconds`.
  static func cpuShare(of pid: Int32, seconds: Double) async throws -> Double {
    func cpu() -> Double { ServerProcess.cpuSeconds(of: pid) }
    let c0 = cpu()
    let t0 = monoNow()
    await sleepSeconds(seconds)
    let used = cpu() - c0
    let elapsed = Double(monoNow() - t0) / 1e9
    guard used.isFinite else { throw BenchError("the front's process went away") }
    return used / elapsed
  }
}

struct FrontBenchCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "front",
    abstract: "The terminal front in tmux: idle CPU playing and paused, keys-to-screen latency.")
  @OptionGroup var common: CommonOptions
  @Option(help: "Seconds of each CPU measurement.") var seconds = 30.0
  @Option(help: "Presses of ? (each shows and hides the help).") var presses = 30

  func run() async throws {
    let r = try await FrontBench.run(
      seconds: common.smoke ? 2 : seconds, presses: common.smoke ? 3 : presses)
    var cpu = Table("front", "CPU, share of one core", "aim")
    cpu.add("playing", String(format: "%.2f %%", r.playingCPU * 100), "≤ 1 %")
    cpu.add("paused", String(format: "%.2f %%", r.pausedCPU * 100), "≤ 0.3 %")
    emit("Idle CPU of the front", cpu)
    var keys = Table("measure", "samples", "p50 / p99 / max (ms)")
    let s = Summary(r.keyLatencies)
    keys.add(
      "key pressed (tmux send-keys) → the screen changed (tmux capture-pane)", "\(s.count)",
      s.text(1))
    emit("Keys to screen", keys)
    Report.write(
      section: "front", title: "12. The terminal front: idle CPU and keys to screen",
      body: """
        A release `cowatch join` in a 120×35 tmux pane (TERM=xterm-256color) against a
        `cowatch serve` process, watching alone. CPU is the front process's user + system
        time (/proc/PID/stat) over \(r.seconds) s, playing and then paused, after 2 s of
        settling. *Keys to screen*: `?` sent with `tmux send-keys`, then `tmux capture-pane`
        polled every 10 ms until the help appears (and again until it goes): it includes
        tmux's own work and the polling (a capture takes a few milliseconds), so it is an
        upper bound of the front's own latency.

        \(cpu.markdown)
        \(keys.markdown)
        """, smoke: common.smoke)
  }
}
