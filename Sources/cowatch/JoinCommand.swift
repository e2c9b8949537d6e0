import ArgumentParser
import GroupSessions
import Logging
import Participation
import TCPRelayClient
import TCPRelayServer

struct JoinCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "join", abstract: "Join a relay at HOST[:PORT] and watch with the room.")

  @Argument(help: "Relay address, HOST[:PORT] (default port 7700).") var address: String
  @OptionGroup var options: ParticipantOptions
  @OptionGroup var trust: RelayTrustOptions

  func run() async throws {
    let transport: TCPTransport
    do {
      transport = try TCPTransport(
        address: address, tls: trust.verification(headless: options.headless))
    } catch {
      throw CommandFailure("join", error.description)
    }
    try await ParticipantRun.run(command: "join", transport: transport, options: options)
  }
}
