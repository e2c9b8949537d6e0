import ArgumentParser
struct ScaleCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(commandName: "scale")
  @OptionGroup var common: CommonOptions
  func run() async throws {}
}
struct SyncplayCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(commandName: "syncplay")
  @OptionGroup var common: CommonOptions
  func run() async throws {}
}
struct RemoteCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(commandName: "remote")
  func run() async throws {}
}
struct SyncplayInnerCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(commandName: "syncplay-inner", shouldDisplay: false)
  func run() async throws {}
}
