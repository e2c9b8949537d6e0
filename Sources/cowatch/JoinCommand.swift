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
    ParticipantRun.bootstrapLogs(options)
    try ParticipantRun.checkTerminal(options)
    let carrier = try await RoomCarrySetup.start(
      options: options, tls: !trust.noTls, command: "join")
    let transport: TCPTransport
    do {
      transport = try TCPTransport(
        address: address, tls: trust.verification(headless: options.headless))
    } catch {
      throw CommandFailure("join", error.description)
    }
    do {
      try await ParticipantRun.run(
        command: "join", transport: transport, options: options,
        leave: carrier.map { RoomCarrySetup.leave(relay: $0.server, name: options.name) },
        carrier: carrier)
    } catch {
      await carrier?.stop()
      throw error
    }
    await carrier?.stop()
  }
}
