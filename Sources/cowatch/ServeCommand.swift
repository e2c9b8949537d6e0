import ArgumentParser
import Clocks
import Foundation
import Logging
import PostgresRoomStore
import RelayRuntime
import Rooms
import SQLiteRoomStore
import SyncplayServer
import TCPRelayClient
import TCPRelayServer
import WireProtocol

struct ServeCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "serve", abstract: "Run a relay server that rooms of participants connect to.")

  @Option(help: "Address to listen on.") var host = "127.0.0.1"
  @Option(parsing: .unconditional, help: "TCP port to listen on.") var port = 7700
  @Option(parsing: .unconditional, help: "Most participants in one room.") var maxParticipants = 64
  @Option(
    parsing: .unconditional,
    help:
      "Close a participant's connection after this many seconds of silence; its place is kept as long again for it to come back."
  )
  var heartbeatTimeout = 6.0
  @Option(parsing: .unconditional, help: "Most open connections in all.") var maxConnections =
    20_000
  @Option(parsing: .unconditional, help: "Most open connections from one address.")
  var maxConnectionsPerAddress = 64
  @Option(parsing: .unconditional, help: "Most rooms created from one address that still exist.")
  var maxRoomsPerAddress = 32
  @Option(help: "Log level (trace, debug, info, notice, warning, error).") var logLevel = "notice"
  @Option(
    help: ArgumentHelp(
      "Where rooms are kept across restarts: an SQLite file, a PostgreSQL database (postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE), or 'memory' to keep nothing.",
      discussion: "Default: $XDG_STATE_HOME/cowatch/relay.sqlite (~/.local/state/cowatch/…).",
      valueName: "path|postgres://…|memory"))
  var store: String?
  @Option(
    parsing: .unconditional,
    help: "Forget stored rooms not written for this many seconds when starting.")
  var storeRetention = 3600.0
  @Option(
    help: ArgumentHelp(
      "With a PostgreSQL store: where participants reach this relay (what other relays redirect them to).",
      discussion: "Default: --host and the port listened on (needed when --host is 0.0.0.0 or ::).",
      valueName: "host:port"))
  var advertise: String?
  @Option(
    parsing: .unconditional,
    help:
      "With a PostgreSQL store: seconds a room stays this relay's without renewing its lease; a dead relay's rooms move within it."
  )
  var lease = PostgresRoomStore.defaultLeaseDuration
  @Option(
    parsing: .unconditional,
    help: ArgumentHelp(
      "Also accept Syncplay's clients on this TCP port (Syncplay's own is 8999), into the same rooms.",
      discussion:
        "Off unless given. STARTTLS with --tls-cert (a CA's certificate); else in the clear: see docs/SYNCPLAY.md.",
      valueName: "port"))
  var syncplayPort: Int?
  @OptionGroup var tls: RelayTLSOptions

  func validate() throws {
    guard (0...65535).contains(port) else { throw ValidationError("--port must be 0–65535") }
    if let syncplayPort {
      guard (0...65535).contains(syncplayPort) else {
        throw ValidationError("--syncplay-port must be 0–65535")
      }
      guard syncplayPort != port || port == 0 else {
        throw ValidationError("--syncplay-port must differ from --port (\(port))")
      }
    }
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
    guard storeRetention >= 0, storeRetention.isFinite else {
      throw ValidationError("--store-retention must be a number of seconds, 0 or more")
    }
    if let store, store.isEmpty { throw ValidationError("--store needs a path or 'memory'") }
    let shared = storePath.map(Self.isPostgres) ?? false
    if let advertise {
      guard shared else {
        throw ValidationError(
          "--advertise only applies with a PostgreSQL store (--store postgres://…)")
      }
      guard RelayEndpoint.isPlausible(address: advertise) else {
        throw ValidationError("--advertise must be HOST:PORT, not \"\(advertise)\"")
      }
    } else if shared, ["0.0.0.0", "::", "[::]"].contains(host) {
      throw ValidationError(
        "with a PostgreSQL store, say where participants reach this relay: --advertise HOST:PORT (it listens on every address, \(host))"
      )
    }
    guard lease.isFinite, (0.2...600).contains(lease) else {
      throw ValidationError("--lease must be 0.2–600 seconds")
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
    var clock = MonotonicClock()
    var roomStore: (any RoomStore)?
    var shared: PostgresRoomStore?
    var restoring: [StoredRoom] = []
    var storeNote = "rooms kept in memory only (--store memory)"
    let identity = try tls.identity(command: "serve")
    if let path = storePath {
      do throws(RoomStoreError) {
        if Self.isPostgres(path) {
          // Shared with other relays: rooms come from the database one by one, as their
          // leases are claimed, not all at start.
          let database = try await PostgresRoomStore.connect(
            url: path,
            advertised: RelayEndpoint(
              address: advertise ?? Self.address(host, port), fingerprint: identity?.fingerprint),
            leaseDuration: lease)
          let cutoff = WallClock.nanoseconds() &- Int64(min(storeRetention, 1e9) * 1e9)
          let expired = try await database.removeRooms(writtenBefore: cutoff)
          roomStore = database
          shared = database
          storeNote =
            "rooms kept in \(database.location), shared with the relays using it (lease \(lease) s)"
            + (expired > 0 ? "; \(expired) idle past the retention removed" : "")
        } else {
          let opened = try SQLiteRoomStore(path: path)
          let now = ClockReading(
            group: clock.groupNow(), wallNanoseconds: WallClock.nanoseconds())
          let loaded = try await RelayRuntime.loadRooms(
            from: opened, retention: storeRetention, now: now)
          clock = MonotonicClock(offsetNanoseconds: loaded.clockOffset)
          roomStore = opened
          restoring = loaded.rooms
          storeNote =
            "rooms kept in \(path); \(loaded.rooms.count) restored"
            + (loaded.expired > 0 ? ", \(loaded.expired) idle past the retention removed" : "")
        }
      } catch {
        throw CommandFailure("serve", error.description)
      }
    }
    let context = try RelayTLSOptions.context(identity, command: "serve")
    let server: RelayServer
    do {
      server = try await RelayServer.start(
        host: host, port: port, configuration: configuration, clock: clock, store: roomStore,
        directory: shared, restoring: restoring, tls: context)
    } catch {
      throw CommandFailure("serve", error.description)
    }
    if let shared, advertise == nil {
      // The port the system chose (for --port 0), before anyone can connect to ask.
      shared.advertised?.address = Self.address(host, server.port)
    }
    Console.line("cowatch relay listening on \(server.host):\(server.port)")
    if let identity {
      let kind =
        identity.isSelfSigned
        ? "self-signed, kept in \(StatePaths.directory()); participants check it with --fingerprint"
        : "from \(tls.tlsCert ?? "--tls-cert")"
      Console.line("TLS certificate \(identity.fingerprint) (\(kind))")
    } else if RelayTLSOptions.isLoopback(host) {
      Console.line("TLS is off (--no-tls): connections are plain TCP")
    } else {
      Console.error(
        "WARNING: TLS is off (--no-tls) on \(host): anyone on the network path can read and change everything, chat included. Use it only on a network you trust."
      )
      Console.line("TLS is off (--no-tls): connections are plain TCP")
    }
    Console.line(storeNote)
    let syncplay: SyncplayServer?
    if let syncplayPort {
      do {
        // Syncplay's client gives up on a certificate no CA vouches for: STARTTLS is offered
        // with --tls-cert only.
        let syncplayTLS = identity.map { !$0.isSelfSigned } == true ? context : nil
        let started = try await SyncplayServer.start(
          runtime: server.runtime, host: host, port: syncplayPort, clock: clock, tls: syncplayTLS)
        syncplay = started
        Console.line(
          "Syncplay clients accepted on \(Self.address(host, started.port))"
            + (syncplayTLS == nil
              ? " (plain TCP: Syncplay's client needs a CA's certificate for TLS)"
              : " (STARTTLS with the relay's certificate)"))
      } catch {
        await server.stop()
        throw CommandFailure("serve", error.description)
      }
    } else {
      syncplay = nil
    }
    // SIGINT and SIGTERM stop the relay cleanly: participants are told, what changed is
    // written, and shared rooms' leases are given back so another relay takes them at once.
    let stopRequested = AsyncStream<Void>.makeStream()
    let stopping = StopSignals.watch { stopRequested.continuation.yield() }
    let stopper = Task {
      for await _ in stopRequested.stream {
        await syncplay?.stop()
        await server.stop()
        return
      }
    }
    await server.wait()
    // A stop asked for by a signal ends when the goodbyes have gone out: the process must
    // not exit under them.
    stopRequested.continuation.finish()
    await stopper.value
    await syncplay?.stop()
    stopping.cancel()
  }

  /// `HOST:PORT`, with brackets for IPv6.
  static func address(_ host: String, _ port: Int) -> String {
    host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
  }

  static func isPostgres(_ store: String) -> Bool {
    store.hasPrefix("postgres://") || store.hasPrefix("postgresql://")
  }

  /// The SQLite file or PostgreSQL URL rooms are kept in, or nil for `--store memory`.
  var storePath: String? {
    if store == "memory" { return nil }
    if let store { return store }
    return StatePaths.directory() + "/relay.sqlite"
  }
}
