import ArgumentParser
import Clocks
import Foundation
import Logging
import NIOSSL
import NearbyDiscovery
import PostgresRoomStore
import RelayMetrics
import RelayTLS
import Rooms
import RouterPortMapping
import ServedRelay
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
  @Flag(
    help:
      "Keep every room nobody is in, paused where it was, beyond --store-retention: a group that comes back another night finds its room as it left it (cowatch forget ROOM --relay-store PATH drops one). Without it, a room is kept only when its owner asks (the room menu, or keep-room on)."
  )
  var keepRooms = false
  @Option(
    parsing: .unconditional,
    help:
      "At most this many rooms are kept for their next night: those their owners asked to keep (a request beyond it is refused) and, with --keep-rooms, the rest, the one unused longest going first. 0: none, and owners' requests are refused."
  )
  var maxKeptRooms = 1000
  @Option(
    parsing: .unconditional,
    help: "Rooms kept at the request of members from one address, at most.")
  var maxKeptRoomsPerAddress = 8
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
  @Option(
    help: ArgumentHelp(
      "Serve Prometheus metrics at http://HOST:PORT/metrics (rooms, members, connections, steps, messages, refusals by code, store writes, TLS handshake failures).",
      discussion: "Off unless given. Plain HTTP: bind it where only your monitoring can reach.",
      valueName: "HOST:PORT"))
  var metrics: String?
  @Flag(
    help: ArgumentHelp(
      "Advertise this relay's rooms on the local network (DNS-SD, _cowatch._tcp: see cowatch nearby).",
      discussion: "Off unless given; needs --host beyond loopback (0.0.0.0: every interface)."))
  var advertiseNearby = false
  @Option(
    help:
      "Carry lent copies between members who cannot reach each other, at most this fast in all (4MB/s, 500KB/s, or bytes a second); a room gets a quarter, and at least 1MB/s if the total allows. Without it, the relay carries none."
  )
  var lendRelayRate: String?
  @OptionGroup var tls: RelayTLSOptions

  func validate() throws {
    if let lendRelayRate, case .failure(let error) = TunnelPolicy.parseRate(lendRelayRate) {
      throw ValidationError("--lend-relay-rate: \(error.description)")
    }
    if advertiseNearby, RelayTLSOptions.isLoopback(host) {
      throw ValidationError(
        "--advertise-nearby needs --host beyond loopback (e.g. 0.0.0.0): nobody nearby can reach \(host)"
      )
    }
    if let metrics, Self.metricsAddress(metrics) == nil {
      throw ValidationError("--metrics must be HOST:PORT (e.g. 127.0.0.1:9470)")
    }
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
    guard (0...1_000_000).contains(maxKeptRooms), (1...1_000_000).contains(maxKeptRoomsPerAddress)
    else {
      throw ValidationError(
        "--max-kept-rooms must be 0–1000000 and --max-kept-rooms-per-address 1–1000000")
    }
    guard !keepRooms || maxKeptRooms > 0 else {
      throw ValidationError("--keep-rooms keeps nothing with --max-kept-rooms 0")
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
    let identity = try tls.identity(command: "serve")
    let service: ServedRelay
    do {
      service = try await ServedRelay.start(
        options(identity: identity, tls: try RelayTLSOptions.context(identity, command: "serve")))
    } catch let error as ServedRelayError {
      throw CommandFailure("serve", error.description)
    }
    Console.line("cowatch relay listening on \(service.host):\(service.port)")
    var metricsServer: MetricsServer?
    if let metrics, let (host, port) = Self.metricsAddress(metrics) {
      let runtime = service.server.runtime
      do {
        metricsServer = try await MetricsServer.start(
          host: host, port: port, exporter: RelayMetricsExporter { runtime.statistics })
      } catch {
        await service.stop()
        throw CommandFailure("serve", "cannot serve metrics on \(metrics): \(error)")
      }
      Console.line("metrics at http://\(host):\(metricsServer?.port ?? port)/metrics")
    }
    describeTLS(identity)
    var advertiser: NearbyAdvertiser?
    if advertiseNearby {
      advertiser = await NearbyAdvertising.start(
        runtime: service.server.runtime,
        addresses: host == "0.0.0.0" ? LocalAddress.nonLoopbackIPv4() : [host],
        port: service.port, fingerprint: identity?.fingerprint, command: "serve")
      if advertiser != nil { Console.line("rooms advertised nearby (_cowatch._tcp)") }
    }
    for note in service.notes { Console.line(note) }
    // SIGINT and SIGTERM stop the relay cleanly: participants are told, what changed is
    // written, and shared rooms' leases are given back so another relay takes them at once.
    let stopRequested = AsyncStream<Void>.makeStream()
    let stopping = StopSignals.watch { stopRequested.continuation.yield() }
    // SIGHUP reads --tls-cert and --tls-key again (a renewed certificate): new connections
    // get it, those open keep theirs, nobody is dropped.
    let reloading = tls.tlsCert.map { cert in
      Self.reloadOnHangUp(certificate: cert, key: tls.tlsKey ?? "", server: service.server)
    }
    let stopper = Task {
      for await _ in stopRequested.stream {
        await service.stop()
        return
      }
    }
    await service.wait()
    await advertiser?.stop()
    // A stop asked for by a signal ends when the goodbyes have gone out: the process must
    // not exit under them.
    stopRequested.continuation.finish()
    await stopper.value
    stopping.cancel()
    reloading?.cancel()
    await metricsServer?.stop()
  }

  /// Watches SIGHUP: each one loads the certificate and key again and gives them to new
  /// connections; a pair that does not load is said and the one in use is kept.
  static func reloadOnHangUp(certificate: String, key: String, server: RelayServer)
    -> any DispatchSourceSignal
  {
    signal(SIGHUP, SIG_IGN)
    let source = DispatchSource.makeSignalSource(signal: SIGHUP, queue: .global())
    source.setEventHandler {
      do {
        let identity = try RelayIdentity.load(certificate: certificate, key: key)
        server.replaceTLS(try identity.serverContext())
        // Members who connect from now on prove their resumes to the new certificate.
        server.runtime.servesCertificate(identity.fingerprint)
        Console.line("certificate reloaded: \(RelayFingerprint.shown(identity.fingerprint))")
      } catch {
        Console.error("cowatch serve: certificate not reloaded (the one in use stays): \(error)")
      }
    }
    source.resume()
    return source
  }

  /// `HOST:PORT` for the metrics endpoint, or nil when it is not one.
  static func metricsAddress(_ text: String) -> (String, Int)? {
    guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
      (0...65535).contains(port)
    else { return nil }
    var host = String(text[..<colon])
    if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
    guard !host.isEmpty else { return nil }
    return (host, port)
  }

  /// The relay these options describe.
  func options(identity: RelayIdentity?, tls: NIOSSLContext?) -> ServedRelayOptions {
    var configuration = RelayConfiguration()
    configuration.maximumParticipantsPerRoom = maxParticipants
    configuration.heartbeatTimeout = heartbeatTimeout
    configuration.maximumConnections = maxConnections
    configuration.maximumConnectionsPerAddress = maxConnectionsPerAddress
    configuration.maximumRoomsPerAddress = maxRoomsPerAddress
    configuration.reconnectGrace = heartbeatTimeout
    configuration.keepsAllRooms = keepRooms
    configuration.maximumKeptRooms = maxKeptRooms
    configuration.maximumKeptRoomsPerAddress = maxKeptRoomsPerAddress
    // Resumes addressed to this relay name its certificate.
    configuration.certificateFingerprints = identity.map { [$0.fingerprint] } ?? []
    if let lendRelayRate, case .success(let rate) = TunnelPolicy.parseRate(lendRelayRate) {
      configuration.tunnels = TunnelPolicy(bytesPerSecond: rate)
    }
    return ServedRelayOptions(
      host: host, port: port, configuration: configuration, store: storePath,
      storeRetention: storeRetention, advertise: advertise, lease: lease,
      syncplayPort: syncplayPort, tls: tls, fingerprint: identity?.fingerprint,
      syncplayTLS: identity.map { !$0.isSelfSigned } == true)
  }

  /// What the operator must know of the relay's TLS.
  private func describeTLS(_ identity: RelayIdentity?) {
    if let identity {
      let kind =
        identity.isSelfSigned
        ? "self-signed, kept in \(StatePaths.directory()); participants check it with --fingerprint"
        : "from \(tls.tlsCert ?? "--tls-cert")"
      Console.line("TLS certificate \(RelayFingerprint.shown(identity.fingerprint)) (\(kind))")
    } else if RelayTLSOptions.isLoopback(host) {
      Console.line("TLS is off (--no-tls): connections are plain TCP")
    } else {
      Console.error(
        "WARNING: TLS is off (--no-tls) on \(host): anyone on the network path can read and change everything, chat included. Use it only on a network you trust."
      )
      Console.line("TLS is off (--no-tls): connections are plain TCP")
    }
  }

  static func isPostgres(_ store: String) -> Bool { ServedRelayOptions.isPostgres(store) }

  /// The SQLite file or PostgreSQL URL rooms are kept in, or nil for `--store memory`.
  var storePath: String? {
    if store == "memory" { return nil }
    if let store { return store }
    return StatePaths.directory() + "/relay.sqlite"
  }
}
