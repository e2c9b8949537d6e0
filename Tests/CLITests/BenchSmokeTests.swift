import Foundation
import TestSupport
import Testing

/// Every command docs/BENCHMARKS.md names has a smoke run here: a tiny run of the same
/// code end to end (`cowatch-bench propagation --smoke`: a relay on 127.0.0.1, three real
/// participants, two rounds), so that a change to the command line or the protocol that
/// breaks a benchmark fails the tests, not the next person who measures. It uses the debug
/// binaries `swift test` builds beside the test bundle, and is skipped if they are not
/// there; it writes no document. One at a time within this suite: side by side on two
/// cores the benchmarks starve each other (and a `remote` case gave up); scripts/test.sh
/// runs `all` in one of its phase-2 groups and the others in another.
@Suite(.serialized) struct BenchSmokeTests {
  static var benchBinary: URL? {
    let here = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    for dir in [here, here.deletingLastPathComponent()] {
      let candidate = dir.appendingPathComponent("cowatch-bench")
      if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
    }
    return nil
  }

  /// `all` runs propagation, sync, scale, syncplay (beside Debian's syncplay-server), codec,
  /// attacks (every known attack against a real `cowatch serve`; the smoke run exits
  /// non-zero if one takes the relay down — whether the victim's changes kept within the
  /// bench's deadline is a measure, held to in the full run only) and store (propagation per store, steps
  /// while writing, a real relay killed and restarted), in turn: each once, and `all`
  /// itself. A test of its own, so that scripts/test.sh can run it beside the others.
  @Test("every benchmark of `all` runs once and prints its table", .enabled(if: benchBinary != nil))
  func all() async throws {
    let text = try await Self.smokeRun(
      "all",
      headings: [
        "Propagation (loopback", "Clock-offset error", "Sync error", "1 s after a command",
        "Relay scale", "Propagation, Cowatch vs Syncplay", "Scale, Cowatch vs Syncplay",
        "Codec and replay cost", "decode step", "Attacks against cowatch serve", "SIGSTOP",
        "Propagation with each store", "Steps sustained while writing",
        "kill -9 → playing within",
      ], within: 300)
    // Each benchmark once (Syncplay's re-ran the whole of `all` in its namespace once).
    #expect(text.components(separatedBy: "## Relay scale").count == 2, "\(text.suffix(3000))")
  }

  @Test(
    "a benchmark's smoke run prints its tables", .enabled(if: benchBinary != nil),
    arguments: [
      ("syncplay-clients", ["Syncplay's client, served by syncplay-server and by Cowatch"]),
      // Three real mpv players (mpv, ffmpeg).
      ("mpv", ["mpv"]),
      // Fronts in tmux, driven by keys.
      ("front", ["Idle CPU of the front", "Keys to screen"]),
      ("store --postgres", ["Propagation with each store", "PostgreSQL"]),
      // The same room with and without TLS against a real `cowatch serve`, and many joining.
      ("tls", ["TLS cost", "plain TCP", "TLS "]),
      // An invite link with a silent address first, against the live one alone.
      ("invite", ["Joining by an invite link", "a silent address first"]),
      // A scrape, and the same chat load counted for the metrics and not.
      ("metrics", ["What the relay's metrics cost", "counting for the metrics"]),
      // One participant's queue edits, timed to everyone else's replica.
      ("queue", ["A queue edit reaching everyone"]),
      // Auto-advance into the queue with three real mpv players (mpv, ffmpeg).
      ("queue-advance", ["Auto-advance into the queue"]),
      // A ready check's countdown start: five simulated and two real mpv players.
      ("ready", ["A ready check's countdown start", "two mpv players"]),
      // A member's own client against a real `cowatch host` room (it exits non-zero unless
      // nobody moved, nothing leaked, the host lived and the honest handover worked).
      ("member-attacks", ["Attacks by a member against a cowatch host room", "nobody moved"]),
    ])
  func smoke(command: String, headings: [String]) async throws {
    _ = try await Self.smokeRun(command, headings: headings, within: 120)
  }

  /// Runs `cowatch-bench COMMAND --smoke`, expects it to exit 0 and print each heading,
  /// and returns what it printed.
  static func smokeRun(_ command: String, headings: [String], within limit: Double) async throws
    -> String
  {
    let process = Process()
    process.executableURL = benchBinary!
    process.arguments = command.split(separator: " ").map(String.init) + ["--smoke"]
    var env = ProcessInfo.processInfo.environment
    env.removeValue(forKey: "COWATCH_BENCH_DOC")
    process.environment = env
    let out = Pipe()
    process.standardOutput = out
    process.standardError = FileHandle.nullDevice
    try process.run()
    // Waited for asynchronously, not with waitUntilExit: a blocked pool thread would slow
    // every other test.
    _ = await eventually(limit, poll: .milliseconds(50)) { !process.isRunning }
    if process.isRunning {
      process.terminate()
      Issue.record("the smoke run took more than \(Int(limit)) s")
      return ""
    }
    let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    #expect(process.terminationStatus == 0, "\(command): \(text.suffix(2000))")
    for heading in headings { #expect(text.contains(heading), "\(command): \(heading)") }
    return text
  }

  /// Root and `ip netns`: what scripts/multihost.sh needs to make its hosts.
  static var canMakeNamespaces: Bool {
    guard getuid() == 0 else { return false }
    let probe = Process()
    probe.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    probe.arguments = ["ip", "netns", "list"]
    probe.standardOutput = FileHandle.nullDevice
    probe.standardError = FileHandle.nullDevice
    guard (try? probe.run()) != nil else { return false }
    probe.waitUntilExit()
    return probe.terminationStatus == 0
  }

  @Test(
    "scripts/multihost.sh --smoke: three network namespaces, delayed links, participants pinning the relay's certificate",
    .enabled(if: benchBinary != nil, "needs cowatch-bench beside the test bundle"),
    .enabled(if: canMakeNamespaces, "needs root and iproute2 to make network namespaces"))
  func multihost() async throws {
    // The debug binaries this run built (cowatch beside cowatch-bench).
    let (status, text) = try await ScriptRun.run(
      "scripts/multihost.sh", ["--smoke"], bin: Self.benchBinary!.deletingLastPathComponent(),
      within: 180)
    #expect(status == 0, "\(text.suffix(3000))")
    for case_ in ["sym-40ms-jitter10", "asym-up20-down60", "asym-up60-down20", "veth-no-delay"] {
      #expect(
        text.contains("| \(case_) | sync error, steady state |"), "\(case_): \(text.suffix(3000))")
    }
    #expect(text.contains("TLS, participants pinning the relay's certificate"))
    #expect(text.contains("the largest divergence within 1 s of a command"))
  }
}
