import ArgumentParser
import DemoScript
import Foundation
import Logging
import Media

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
    if !plain {
      // The curses view of a demo comes with the terminal front; until then, the transcript.
      let why =
        isatty(STDOUT_FILENO) == 0 ? "stdout is not a terminal" : "the curses view is not built yet"
      Console.error("cowatch demo: \(why); printing the plain transcript")
    }
    let runner = DemoRunner(script: parsed, catalog: catalog, speed: speed)
    Console.line("Cowatch demo: \(path) at speed \(ScriptTime.seconds(runner.speed))×")
    let printer = Task {
      for await entry in runner.transcript { Console.line(entry.formatted) }
    }
    let result = await runner.run()
    await printer.value
    if let failure = result.failure {
      CommandFailure.exit(
        "demo",
        "\(parsed.fileName):\(failure.line): expect \(failure.expected) — but \(failure.seen.joined(separator: "; "))"
      )
    }
    if let problem = result.problem {
      CommandFailure.exit("demo", problem)
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
