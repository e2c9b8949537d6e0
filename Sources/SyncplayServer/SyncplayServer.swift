import Clocks
import LineFraming
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import RelayRuntime
import Rooms
import Synchronization
import SyncplayBridge
import SyncplayProtocol

/// The relay's Syncplay port: Syncplay's own clients connect here (its protocol, JSON
/// lines over TCP) and each becomes a participant of the same ``RelayRuntime`` as Cowatch's
/// participants, in the room its Hello names. One engine, one set of rules; the bridge is
/// an edge. See docs/SYNCPLAY.md.
public final class SyncplayServer: Sendable {
  public let host: String
  public let port: Int
  private let serverChannel: any Channel
  private let connections: Connections

  /// Open connections, and how many come from each address: the relay's own limits
  /// (`maximumConnections`, `maximumConnectionsPerAddress`) hold on this port too.
  final class Connections: Sendable {
    struct Open {
      var channels: [ObjectIdentifier: any Channel] = [:]
      var perAddress: [String: Int] = [:]
    }
    let open = Mutex(Open())

    /// Takes a place for a new connection, or says why there is none.
    func admit(_ channel: any Channel, address: String?, limits: RelayConfiguration) -> String? {
      open.withLock { o in
        if o.channels.count >= limits.maximumConnections {
          return "the relay is full (\(limits.maximumConnections) connections)"
        }
        if let address, o.perAddress[address, default: 0] >= limits.maximumConnectionsPerAddress {
          return "too many connections from \(address)"
        }
        o.channels[ObjectIdentifier(channel)] = channel
        if let address { o.perAddress[address, default: 0] += 1 }
        return nil
      }
    }

    func release(_ channel: any Channel, address: String?) {
      open.withLock { o in
        guard o.channels.removeValue(forKey: ObjectIdentifier(channel)) != nil else { return }
        if let address {
          let left = (o.perAddress[address] ?? 1) - 1
          o.perAddress[address] = left > 0 ? left : nil
        }
      }
    }
  }

  private let partialLines: PartialLineBudget

  private init(
    host: String, port: Int, serverChannel: any Channel, connections: Connections,
    partialLines: PartialLineBudget
  ) {
    self.partialLines = partialLines
    self.host = host
    self.port = port
    self.serverChannel = serverChannel
    self.connections = connections
  }

  /// Binds `host:port` (port 0: one the system picks) and serves Syncplay clients into
  /// `runtime`'s rooms. With `tls`, a client's STARTTLS is accepted (give it only with a
  /// certificate Syncplay's client can verify).
  public static func start(
    runtime: RelayRuntime, host: String = "127.0.0.1", port: Int = 8999,
    configuration: SyncplayBridgeConfiguration = .init(),
    clock: any SessionClock = MonotonicClock(),
    logger: Logger = Logger(label: "cowatch.syncplay"), tls: NIOSSLContext? = nil
  ) async throws(SyncplayServerError) -> SyncplayServer {
    var offered = configuration
    offered.offersTLS = tls != nil
    let configuration = offered
    let connections = Connections()
    let passwordChecks = PasswordChecks()
    // Unfinished lines bounded in all, as on the relay's own port (a line each at most):
    // a quarter of the relay's budget, Syncplay clients being a few beside its own.
    let partialLines = PartialLineBudget(
      limit: max(
        SyncplayCodec.maximumLineLength + 2, runtime.configuration.maximumPartialLineBytes / 4))
    let serverChannel: any Channel
    do {
      serverChannel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
        .serverChannelOption(.backlog, value: 256)
        .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
        .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
        .childChannelInitializer { channel in
          return channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(
              LineFrameHandler(
                maximumFrameBytes: SyncplayCodec.maximumLineLength + 2, budget: partialLines))
            try channel.pipeline.syncOperations.addHandler(
              SyncplayChannelHandler { channel in
                let address = channel.remoteAddress?.ipAddress
                if let refusal = connections.admit(
                  channel, address: address, limits: runtime.configuration)
                {
                  return .refused(refusal)
                }
                channel.closeFuture.whenComplete { _ in
                  connections.release(channel, address: address)
                }
                return .admitted(
                  SyncplayConnection(
                    channel: channel, runtime: runtime, configuration: configuration,
                    clock: clock, logger: logger, passwordChecks: passwordChecks, tls: tls))
              })
          }
        }
        .bind(host: host, port: port).get()
    } catch {
      throw .cannotBind(host: host, port: port, reason: "\(error)")
    }
    let bound = serverChannel.localAddress?.port ?? port
    logger.info("Syncplay clients accepted on \(host):\(bound)")
    return SyncplayServer(
      host: host, port: bound, serverChannel: serverChannel, connections: connections,
      partialLines: partialLines)
  }

  /// Stops accepting and closes every Syncplay connection (their participants leave).
  public func stop() async {
    try? await serverChannel.close()
    let open = connections.open.withLock { Array($0.channels.values) }
    for channel in open { try? await channel.close() }
  }

  public var connectionCount: Int { connections.open.withLock { $0.channels.count } }

  /// Bytes of unfinished lines held for all Syncplay connections together.
  public var unfinishedLineBytes: Int { partialLines.bytesHeld }
}

public enum SyncplayServerError: Error, CustomStringConvertible, Sendable {
  case cannotBind(host: String, port: Int, reason: String)

  public var description: String {
    switch self {
    case .cannotBind(let host, let port, let reason):
      let simple =
        reason.contains("Address already in use") || reason.contains("EADDRINUSE")
        ? "the address is already in use" : reason
      return "cannot listen for Syncplay clients on \(host):\(port): \(simple)"
    }
  }
}
