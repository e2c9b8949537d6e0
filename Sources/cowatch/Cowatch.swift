import ArgumentParser

/// The `cowatch` command: watch the same episode together from several terminals.
@main
struct Cowatch: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "cowatch",
    abstract: "Watch the same episode together from terminals on different machines, in sync.",
    version: CowatchVersion.string,
    subcommands: [Serve.self, Host.self, Join.self, Demo.self]
  )
}

enum CowatchVersion {
  static let string = "0.1.0"
}

struct Serve: AsyncParsableCommand {
  static let configuration = CommandConfiguration(abstract: "Run a relay server.")
  @Option(help: "Address to listen on.") var host = "127.0.0.1"
  @Option(help: "TCP port to listen on.") var port = 7700
  func run() async throws { throw CleanExit.message("cowatch serve: the relay is not built yet") }
}

struct Host: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Run an embedded relay and join it with the interactive front.")
  @Option(help: "Your name as others see it.") var name: String
  @Option(help: "Room to enter.") var room = "lobby"
  @Option(help: "TCP port to listen on.") var port = 7700
  func run() async throws { throw CleanExit.message("cowatch host: not built yet") }
}

struct Join: AsyncParsableCommand {
  static let configuration = CommandConfiguration(abstract: "Join a relay at HOST[:PORT].")
  @Argument(help: "Relay address, HOST[:PORT].") var address: String
  @Option(help: "Your name as others see it.") var name: String
  @Option(help: "Room to enter.") var room = "lobby"
  @Flag(help: "No curses: actions on stdin, JSON lines on stdout.") var headless = false
  func run() async throws { throw CleanExit.message("cowatch join: not built yet") }
}

struct Demo: AsyncParsableCommand {
  static let configuration = CommandConfiguration(abstract: "Run a scripted demo.")
  @Argument(help: "Demo script (default: Media/demo.cowatch).") var script: String?
  @Flag(help: "Print a transcript instead of the curses view.") var plain = false
  @Option(help: "Speed-up factor.") var speed: Double = 1
  func run() async throws { print("cowatch demo: the demo is not built yet") }
}
