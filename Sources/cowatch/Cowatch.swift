import ArgumentParser
import Foundation

/// The `cowatch` command: watch the same episode together from several terminals.
@main
struct Cowatch: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "cowatch",
    abstract: "Watch the same episode together from terminals on different machines, in sync.",
    version: CowatchVersion.string,
    subcommands: [
      ServeCommand.self, HostCommand.self, JoinCommand.self, NearbyCommand.self, DemoCommand.self,
      DoctorCommand.self,
    ]
  )

  /// Like the default entry point, but a usage error is one line on stderr (with a hint
  /// to `--help`) rather than the full usage text. The only place that exits: commands
  /// return, or throw a ``CommandFailure`` or an `ExitCode`, after stopping what they
  /// started.
  static func main() async {
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
      let message =
        self.message(for: error).split(separator: "\n").first.map(String.init) ?? "failed"
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

enum CowatchVersion {
  static let string = "0.1.0"
}
