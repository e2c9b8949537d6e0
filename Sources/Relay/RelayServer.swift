import GroupSessions
import Logging
import NIOCore
import NIOPosix
import PlaybackCoordination
import Rooms
import WireProtocol

/// The TCP relay: accepts participants with SwiftNIO's `NIOAsyncChannel`, feeds
/// everything they send through one ``RelayCore`` and writes back what it says.
public final class RelayServer: Sendable {
  /// The address actually bound (the port is chosen by the system when 0 was asked).
  public let host: String
  public let port: Int
  private let hub: RelayHub
  private let serverChannel: NIOAsyncChannel<NIOAsyncChannel<InboundFrame, ByteBuffer>, Never>
  private let runTask: Task<Void, Never>

  private init(
    host: String, port: Int, hub: RelayHub,
    serverChannel: NIOAsyncChannel<NIOAsyncChannel<InboundFrame, ByteBuffer>, Never>,
    runTask: Task<Void, Never>
  ) {
    self.host = host
    self.port = port
    self.hub = hub
    self.serverChannel = serverChannel
    self.runTask = runTask
  }

  /// Binds and starts serving. Throws a ``RelayServerError`` with a readable message if the
  /// address cannot be bound.
  public static func start(
    host: String = "127.0.0.1", port: Int = 7700, configuration: RelayConfiguration = .init(),
    clock: MonotonicClock = .init(), logger: Logger = Logger(label: "cowatch.relay")
  ) async throws(RelayServerError) -> RelayServer {
    let maximumFrame = configuration.maximumFrameBytes
    let serverChannel: NIOAsyncChannel<NIOAsyncChannel<InboundFrame, ByteBuffer>, Never>
    do {
      serverChannel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
        .serverChannelOption(.backlog, value: 1024)
        .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
        .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
        .bind(host: host, port: port) { channel in
          channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(
              ByteToMessageHandler(LineFrameDecoder(maximumFrameBytes: maximumFrame)))
            return try NIOAsyncChannel<InboundFrame, ByteBuffer>(
              wrappingChannelSynchronously: channel)
          }
        }
    } catch {
      throw .cannotBind(host: host, port: port, reason: "\(error)")
    }
    let boundPort = serverChannel.channel.localAddress?.port ?? port
    let hub = RelayHub(
      core: RelayCore(configuration: configuration, seed: UInt64.random(in: 1...UInt64.max)),
      clock: clock, logger: logger)
    await hub.startTicking()
    let runTask = Task {
      await withDiscardingTaskGroup { group in
        do {
          try await serverChannel.executeThenClose { inbound in
            for try await child in inbound {
              group.addTask { await hub.serve(child) }
            }
          }
        } catch {
          logger.notice("relay stopped accepting: \(error)")
        }
        group.cancelAll()
      }
    }
    logger.info("relay listening on \(host):\(boundPort)")
    return RelayServer(
      host: host, port: boundPort, hub: hub, serverChannel: serverChannel, runTask: runTask)
  }

  /// Stops accepting and closes every connection.
  public func stop() async {
    try? await serverChannel.channel.close()
    await hub.closeAll()
    runTask.cancel()
    await runTask.value
  }

  /// Closes every participant connection (they keep their places and reconnect).
  public func dropAllConnections() async { await hub.closeAll() }

  public func state(ofRoom room: String) async -> GroupState? { await hub.state(ofRoom: room) }

  /// Waits until the server is stopped.
  public func wait() async { await runTask.value }
}

public enum RelayServerError: Error, CustomStringConvertible, Sendable {
  case cannotBind(host: String, port: Int, reason: String)

  public var description: String {
    switch self {
    case .cannotBind(let host, let port, let reason):
      "cannot listen on \(host):\(port): \(Self.simplify(reason))"
    }
  }

  static func simplify(_ reason: String) -> String {
    if reason.contains("Address already in use") || reason.contains("EADDRINUSE") {
      return "the address is already in use"
    }
    if reason.contains("Cannot assign requested address") { return "no such local address" }
    return reason
  }
}
