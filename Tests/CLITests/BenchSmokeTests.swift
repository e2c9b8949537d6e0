import Foundation
import Testing

/// `cowatch-bench propagation --smoke` runs end to end (a relay on 127.0.0.1, three real
/// participants, two rounds), and `codec --smoke` prints its costs. It uses the debug binary `swift test` builds beside the test
/// bundle, and is skipped if that binary is not there; it writes no document.
@Suite struct BenchSmokeTests {
  static var benchBinary: URL? {
    let here = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    for dir in [here, here.deletingLastPathComponent()] {
      let candidate = dir.appendingPathComponent("cowatch-bench")
      if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
    }
    return nil
  }

  @Test(
    "a benchmark's smoke run prints its tables", .enabled(if: benchBinary != nil),
    arguments: [
      ("propagation", ["Propagation", "Clock-offset error"]),
      ("codec", ["Codec and replay cost", "decode step"]),
      // Every known attack against a real `cowatch serve`; exits non-zero unless the
      // victim room kept working through each.
      ("attacks", ["Attacks against cowatch serve", "SIGSTOP"]),
      // The same room with and without TLS against a real `cowatch serve`, and many joining.
      ("tls", ["TLS cost", "plain TCP", "TLS "]),
      // Propagation per store, steps while writing, and a real relay killed and restarted.
      (
        "store",
        [
          "Propagation with each store", "Steps sustained while writing",
          "kill -9 → playing within",
        ]
      ),
    ])
  func smoke(command: String, headings: [String]) async throws {
    let process = Process()
    process.executableURL = Self.benchBinary!
    process.arguments = [command, "--smoke"]
    var env = ProcessInfo.processInfo.environment
    env.removeValue(forKey: "COWATCH_BENCH_DOC")
    process.environment = env
    let out = Pipe()
    process.standardOutput = out
    process.standardError = FileHandle.nullDevice
    try process.run()
    let deadline = Date().addingTimeInterval(120)
    // Polled with Task.sleep, not usleep: a blocked pool thread would slow every other test.
    while process.isRunning, Date() < deadline { try await Task.sleep(nanoseconds: 50_000_000) }
    if process.isRunning {
      process.terminate()
      Issue.record("the smoke run took more than 120 s")
      return
    }
    let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    #expect(process.terminationStatus == 0)
    for heading in headings { #expect(text.contains(heading)) }
  }
}
