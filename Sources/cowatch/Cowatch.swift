import ArgumentParser

/// The `cowatch` command: watch the same episode together from several terminals.
@main
struct Cowatch: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "cowatch",
    abstract: "Watch the same episode together from terminals on different machines, in sync.",
    version: CowatchVersion.string,
    subcommands: [ServeCommand.self, HostCommand.self, JoinCommand.self, DemoCommand.self]
  )
}

enum CowatchVersion {
  static let string = "0.1.0"
}
