import ArgumentParser
import DemoScript
import Foundation
import Logging
import Media
import MpvPlayer
import TerminalFront

/// `cowatch demo [SCRIPT] [--plain] [--speed X]`: runs a demo script against an embedded
/// relay with scripted participants over real TCP, and checks its `expect` lines.
struct DemoCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "demo",
    abstract: "Run a scripted demo: an embedded relay and scripted participants.",
    discussion: """
      Exits 0 when every expect line of the script holds, 1 otherwise. The default script \
      (Media/demo.cowatch) tours every feature; see docs/DEMO.md for the script language.
      """)

  @Argument(
    help: "Demo script (default: demo.cowatch beside the catalog, i.e. Media/demo.cowatch).")
  var script: String?
  @Flag(help: "Print a transcript instead of the curses view.") var plain = false
  @Option(help: "Speed-up factor, 0.1–50 (default: the script's speed line, else 1).") var speed:
    Double?
  @Option(
    help:
      "The participants' players: simulated, or mpv (real mpv players, headless, on test clips made with ffmpeg; in real time)."
  )
  var player = "simulated"

  func validate() throws {
    if let speed, !(speed.isFinite && (0.1...50).contains(speed)) {
      throw ValidationError("--speed must be from 0.1 to 50")
    }
    guard ["simulated", "mpv"].contains(player) else {
      throw ValidationError("--player must be simulated or mpv, not \(player)")
    }
    if player == "mpv", let speed, speed != 1 {
      throw ValidationError("--player mpv plays in real time: leave out --speed (or give 1)")
    }
  }

  func run() async throws {
    Logs.bootstrap(level: .error)
    let catalogPath: String
    let catalog: Catalog
    do {
      catalogPath = try Catalog.defaultCatalogPath()
      catalog = try Catalog.load(from: catalogPath)
    } catch {
      throw CommandFailure("demo", error.description)
    }
    let path =
      script
      ?? Self.relative(
        ((catalogPath as NSString).deletingLastPathComponent as NSString)
          .appendingPathComponent("demo.cowatch"))
    let parsed: DemoScript
    do {
      parsed = try DemoScript.load(from: path, catalog: catalog)
    } catch {
      throw CommandFailure("demo", error.description)
    }
    var options = DemoRunOptions()
    var runSpeed = speed
    if player == "mpv" {
      let clips = try DemoClips.prepare(for: parsed, catalog: catalog)
      runSpeed = 1
      options.makePlayer = { _, settings, clock in
        // The script's drift becomes a real one: every speed mpv is given is off by it.
        var configuration = MpvPlaybackMachine.Configuration()
        configuration.injectedSpeedError = settings.driftPPM / 1e6
        let mpv = try await MpvPlayer.launch(
          arguments: ["--vo=null", "--ao=null"], resolver: { clips[$0] }, clock: clock,
          logger: Logger(label: "cowatch.demo.mpv"), configuration: configuration)
        return DemoMpvPlayer(mpv, catalog: catalog)
      }
    }
    let runner = DemoRunner(script: parsed, catalog: catalog, speed: runSpeed, options: options)
    if !plain, let terminal = Self.terminal() {
      guard
        let result = await DemoFront.run(
          runner: runner, terminal: terminal, catalog: catalog.seriesInfos())
      else {
        throw CommandFailure("demo", "stopped")
      }
      Console.line(
        "Cowatch demo: \(path) at speed \(ScriptTime.seconds(runner.speed))×: \(result.summary)")
      try report(result, script: parsed)
      return
    }
    Console.line("Cowatch demo: \(path) at speed \(ScriptTime.seconds(runner.speed))×")
    let printer = Task {
      for await entry in runner.transcript { Console.line(entry.formatted) }
    }
    let result = await runner.run()
    await printer.value
    try report(result, script: parsed)
  }

  /// The curses view's terminal, or nil (said on stderr) to fall back to the transcript.
  static func terminal() -> TerminalSession? {
    do {
      return try TerminalSession(tickMilliseconds: 100)
    } catch {
      Console.error(
        "cowatch demo: \(error.description.replacingOccurrences(of: "--headless", with: "--plain")); printing the plain transcript"
      )
      return nil
    }
  }

  /// Returns when every expectation held (exit 0); otherwise throws the failure as one line
  /// (exit 1).
  func report(_ result: DemoResult, script parsed: DemoScript) throws(CommandFailure) {
    if let failure = result.failure {
      throw CommandFailure(
        "demo",
        "\(parsed.fileName):\(failure.line): expect \(failure.expected) — but \(failure.seen.joined(separator: "; "))"
      )
    }
    if let problem = result.problem {
      throw CommandFailure("demo", problem)
    }
  }

  /// `path` relative to the current directory when it is below it (for shorter messages).
  static func relative(_ path: String) -> String {
    let cwd = FileManager.default.currentDirectoryPath
    let standardized = (path as NSString).standardizingPath
    if standardized.hasPrefix(cwd + "/") { return String(standardized.dropFirst(cwd.count + 1)) }
    return standardized
  }
}
