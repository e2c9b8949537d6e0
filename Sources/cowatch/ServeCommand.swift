import ArgumentParser
import Logging
import Rooms
import TCPRelayClient
import TCPRelayServer

struct ServeCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "serve", abstract: "Run a relay server that rooms of participants connect to.")

  @Option(help: "Address to listen on.") var host = "127.0.0.1"
  @Option(help: "TCP port to listen on.") var port = 7700
  @Option(help: "Most participants in one room.") var maxParticipants = 64
  @Option(help: "Drop a participant silent for this many seconds.") var heartbeatTimeout = 6.0
  @Option(help: "Most open connections in all.") var maxConnections = 20_000
  @Option(help: "Most open connections from one address.") var maxConnectionsPerAddress = 64
  @Option(help: "Most rooms created from one address that still exist.") var maxRoomsPerAddress = 32
  @Option(help: "Log level (trace, debug, info, notice, warning, error).") var logLevel = "notice"

  func validate() throws {
    guard (0...65535).contains(port) else { throw ValidationError("--port must be 0–65535") }
    guard maxParticipants >= 1 else {
      throw ValidationError("--max-participants must be at least 1")
    }
    guard maxConnections >= 1, maxConnectionsPerAddress >= 1, maxRoomsPerAddress >= 1 else {
      throw ValidationError(
        "--max-connections, --max-connections-per-address and --max-rooms-per-address must be at least 1"
      )
    }
    guard heartbeatTimeout > 0 else {
      throw ValidationError("--heartbeat-timeout must be positive")
    }
    guard Logger.Level(rawValue: logLevel) != nil else {
      throw ValidationError("unknown --log-level \(logLevel)")
    }
  }

  func run() async throws {
    Logs.bootstrap(level: Logger.Level(rawValue: logLevel) ?? .notice)
    var configuration = RelayConfiguration()
    configuration.maximumParticipantsPerRoom = maxParticipants
    configuration.heartbeatTimeout = heartbeatTimeout
    configuration.maximumConnections = maxConnections
    configuration.maximumConnectionsPerAddress = maxConnectionsPerAddress
    configuration.maximumRoomsPerAddress = maxRoomsPerAddress
    configuration.reconnectGrace = heartbeatTimeout
    let server: RelayServer
    do {
      server = try await RelayServer.start(host: host, port: port, configuration: configuration)
    } catch {
      throw CommandFailure("serve", error.description)
    }
    Console.line("cowatch relay listening on \(server.host):\(server.port)")
    await server.wait()
  }
}
