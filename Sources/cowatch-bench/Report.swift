import Foundation

/// Writes one section of docs/BENCHMARKS.md, replacing that section's previous figures and
/// keeping the others, so that each subcommand can be re-run alone.
enum Report {
  static var documentPath: String {
    ProcessInfo.processInfo.environment["COWATCH_BENCH_DOC"] ?? "docs/BENCHMARKS.md"
  }

  static var commandLine: String {
    if let outer = ProcessInfo.processInfo.environment["COWATCH_BENCH_COMMAND"] { return outer }
    let args = CommandLine.arguments.dropFirst().map { $0.contains(" ") ? "'\($0)'" : $0 }
    return (["cowatch-bench"] + args).joined(separator: " ")
  }

  static let preamble = """
    # Cowatch benchmarks

    Written by `cowatch-bench` (`swift build -c release --product cowatch-bench` and
    `swift build -c release --product cowatch` — the scale runs spawn `cowatch serve` — then
    `.build/release/cowatch-bench all`); each section is replaced when its subcommand runs
    again, and says the exact command, the machine and the date. Times are milliseconds of
    `CLOCK_MONOTONIC` unless a column says otherwise; `p50 / p99 / max`. The guides in the
    issue (not tests): p99 propagation ≤ 2 ms on loopback with 10 participants; p99 sync error
    ≤ 10 ms with drifting players; clock-offset error ≤ 1 ms on loopback, ≤ 5 ms across delayed
    hosts; 10,000 participants on one relay at p99 ≤ 50 ms and ≤ 20 KB per participant.

    """

  /// Replaces (or appends) the section `key` with `body`, stamped with the command and
  /// machine. Returns the path written.
  @discardableResult
  static func write(section key: String, title: String, body: String, smoke: Bool) -> String? {
    if smoke, ProcessInfo.processInfo.environment["COWATCH_BENCH_DOC"] == nil { return nil }
    let path = documentPath
    var text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? preamble
    let begin = "<!-- bench:\(key) -->"
    let end = "<!-- /bench:\(key) -->"
    let block = """
      \(begin)
      ## \(title)

      Command: `\(commandLine)`  
      Machine: \(Machine.factsLine)

      \(body.trimmingCharacters(in: .whitespacesAndNewlines))

      \(end)
      """
    if let b = text.range(of: begin),
      let e = text.range(of: end, range: b.upperBound..<text.endIndex)
    {
      text.replaceSubrange(b.lowerBound..<e.upperBound, with: block)
    } else {
      if !text.hasSuffix("\n\n") { text += text.hasSuffix("\n") ? "\n" : "\n\n" }
      text += block + "\n"
    }
    try? FileManager.default.createDirectory(
      atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    try? text.write(toFile: path, atomically: true, encoding: .utf8)
    return path
  }
}
