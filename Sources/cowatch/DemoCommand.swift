import ArgumentParser

struct DemoCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "demo", abstract: "Run a scripted demo: an embedded relay and scripted participants.")
  @Argument(help: "Demo script (default: Media/demo.cowatch).") var script: String?
  @Flag(help: "Print a transcript instead of the curses view.") var plain = false
  @Option(help: "Speed-up factor.") var speed: Double = 1
  func run() async throws { print("cowatch demo: the demo is not built yet") }
}
