import ArgumentParser
import DemoScript
import Foundation
import Logging
import Media
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

  func validate() throws {
    if let speed, !(speed.isFinite && (0.1...50).contains(speed)) {
      throw ValidationError("--speed must be from 0.1 to 50")
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
      CommandFailure.exit("demo", error.description)
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
      CommandFailure.exit("demo", error.description)
    }
    let runner = DemoRunner(script: parsed, catalog: catalog, speed: speed)
    if !plain {
      do {
        let terminal = try TerminalSession(tickMilliseconds: 100)
        let result = await DemoFront.run(
          runner: runner, terminal: terminal, catalog: catalog.seriesInfos())
        Console.line(
          "Cowatch demo: \(path) at speed \(ScriptTime.seconds(runner.speed))×: \(result.summary)")
        report(result, script: parsed, path: path, speed: runner.speed)
      } catch {
        Console.error(
          "cowatch demo: \(error.description.replacingOccurrences(of: "--headless", with: "--plain")); printing the plain transcript"
        )
      }
    }
    Console.line("Cowatch demo: \(path) at speed \(ScriptTime.seconds(runner.speed))×")
    let printer = Task {
      for await entry in runner.transcript { Console.line(entry.formatted) }
    }
    let result = await runner.run()
    await printer.value
    report(result, script: parsed, path: path, speed: runner.speed)
  }

  /// Exits 0 when every expectation held, otherwise 1 with the failure in one line.
  func report(_ result: DemoResult, script parsed: DemoScript, path: String, speed: Double) -> Never
  {
    if let failure = result.failure {
      CommandFailure.exit(
        "demo",
        "\(parsed.fileName):\(failure.line): expect \(failure.expected) — but \(failure.seen.joined(separator: "; "))"
      )
    }
    if let problem = result.problem {
      CommandFailure.exit("demo", problem)
    }
    Foundation.exit(0)
  }

  /// `path` relative to the current directory when it is below it (for shorter messages).
  static func relative(_ path: String) -> String {
    let cwd = FileManager.default.currentDirectoryPath
    let standardized = (path as NSString).standardizingPath
    if standardized.hasPrefix(cwd + "/") { return String(standardized.dropFirst(cwd.count + 1)) }
    return standardized
  }
}
