import ArgumentParser
import Foundation
import Narration
import TCPRelayServer

/// The `cowatch` command: watch the same episode together from several terminals.
@main
struct Cowatch: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "cowatch",
    abstract: "Watch the same episode together from terminals on different machines, in sync.",
    version: CowatchVersion.string,
    subcommands: [
      ServeCommand.self, HostCommand.self, JoinCommand.self, NearbyCommand.self, DemoCommand.self,
      DoctorCommand.self, ForgetCommand.self,
    ]
  )

  /// Like the default entry point, but a usage error is one line on stderr (with a hint
  /// to `--help`) rather than the full usage text. The only place that exits: commands
  /// return, or throw a ``CommandFailure`` or an `ExitCode`, after stopping what they
  /// started.
  static func main() async {
    // Every descriptor the system allows: a relay's connections are bounded by them.
    DescriptorLimit.raiseToHardLimit()
    do {
      var command = try parseAsRoot()
      if var asyncCommand = command as? any AsyncParsableCommand {
        try await asyncCommand.run()
      } else {
        try command.run()
      }
    } catch let failure as CommandFailure {
      Console.error(failure.description)
      Foundation.exit(1)
    } catch let code as ExitCode {
      // The command has already said why.
      Foundation.exit(code.rawValue)
    } catch {
      let code = exitCode(for: error)
      if code == .success {
        let text = fullMessage(for: error)
        if !text.isEmpty { Console.line(text) }
        Foundation.exit(0)
      }
      // A mistyped option is what to say first: "Missing '--name'" for `host --nmae ann`
      // would send the person looking for a flag they did type.
      let message =
        unknownOption(in: Array(CommandLine.arguments.dropFirst()))
        ?? self.message(for: error).split(separator: "\n").first.map(String.init) ?? "failed"
      // The subcommand's own help lists its flags; the top one does not.
      let names = configuration.subcommands.compactMap { $0.configuration.commandName }
      let command =
        (["cowatch"] + CommandLine.arguments.dropFirst().prefix(1).filter { names.contains($0) })
        .joined(separator: " ")
      Console.error(
        "\(command): \(message.replacingOccurrences(of: "Error: ", with: "")) (see \(command) --help)"
      )
      Foundation.exit(code.rawValue)
    }
  }
}

extension Cowatch {
  /// The first `--option` in `arguments` that the command they name does not have, in
  /// words, with the one it may have meant; nil when every one is known.
  static func unknownOption(in arguments: [String]) -> String? {
    guard let name = arguments.first,
      let command = configuration.subcommands.first(where: {
        $0.configuration.commandName == name
      })
    else { return nil }
    // The options its help lists (every one it has: hidden ones are never typed by people).
    let help = command.helpMessage(columns: 10_000)
    let known = Set(help.matches(of: #/--[a-z0-9][a-z0-9-]*/#).map { String($0.0) })
      .union(["--help", "--version"])
    var rest = arguments.dropFirst()[...]
    while let argument = rest.popFirst() {
      if argument == "--" { break }
      guard argument.hasPrefix("--") else { continue }
      let option = String(argument.prefix { $0 != "=" })
      // Its value is mpv's own options, which begin with "--".
      if option == "--mpv-args", !argument.contains("=") {
        _ = rest.popFirst()
        continue
      }
      guard !known.contains(option) else { continue }
      let meant = EditDistance.nearest(to: option, among: known.sorted()).map {
        " (did you mean '\($0)'?)"
      }
      return "Unknown option '\(option)'\(meant ?? "")"
    }
    return nil
  }
}

enum CowatchVersion {
  static let string = "0.1.0"
}
