import Clocks
import LineFraming
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import PlaybackCoordination
import RelayRuntime
import RelayTLS
import Rooms
import Synchronization
import WireProtocol

/// The TCP relay: accepts participants with SwiftNIO and hands every line to one
/// ``RelayRuntime`` on the connection's event loop. The runtime's tick loop is a child
/// task of the server's run task, so stopping the server stops it.
public final class RelayServer: Sendable {
  /// The address actually bound (the port is chosen by the system when 0 was asked).
  public let host: String
  public let port: Int
  public let runtime: RelayRuntime
  private let serverChannel: any Channel
  private let runTask: Task<Void, Never>
  /// Connections still open, so that stopping waits for the goodbyes to go out.
  private let openChannels: OpenChannels
  /// The TLS context new connections get (nil: plain TCP); replaced on a certificate's
  /// renewal while the connections made before keep theirs.
  private let tls: TLSContext
  private let partialLines: PartialLineBudget

  /// Bytes of unfinished lines held for all connections together (bounded by
  /// `maximumPartialLineBytes`): what a slow writer, or one that never ends its line, costs.
  public var unfinishedLineBytes: Int { partialLines.bytesHeld }

  final class OpenChannels: Sendable {
    let count = Atomic<Int>(0)
  }

  final class TLSContext: Sendable {
    let current: Mutex<NIOSSLContext?>
    init(_ context: NIOSSLContext?) { current = Mutex(context) }
  }

  private init(
    host: String, port: Int, runtime: RelayRuntime, serverChannel: any Channel,
    runTask: Task<Void, Never>, openChannels: OpenChannels, tls: TLSContext,
    partialLines: PartialLineBudget
  ) {
    self.tls = tls
    self.partialLines = partialLines
    self.host = host
    self.port = port
    self.runtime = runtime
    self.serverChannel = serverChannel
    self.runTask = runTask
    self.openChannels = openChannels
  }

  /// How each connection reads. NIO keeps a connection's last receive buffer for the next
  /// read; its default first size (2 KiB) was the largest single cost of an idle
  /// participant (a third of it), while a participant's lines are a few hundred bytes.
  /// Reads that fill the buffer make the next one larger, up to the frame limit's order,
  /// so a long line still arrives in a few reads.
  static let receiveBuffers = AdaptiveRecvByteBufferAllocator(
    minimum: 64, initial: 256, maximum: 65_536)

  /// Binds and starts serving over TLS with `identity` (nil: plain TCP): its fingerprint is
  /// the one resume proofs addressed to this relay name.
  public static func start(
    host: String = "127.0.0.1", port: Int = 7700, configuration: RelayConfiguration = .init(),
    clock: any SessionClock = MonotonicClock(),
    logger: Logger = Logger(label: "cowatch.relay"), store: (any RoomStore)? = nil,
    directory: (any RoomDirectory)? = nil, restoring: [StoredRoom] = [],
    identity: RelayIdentity?, feedsSuccessors: Bool = false
  ) async throws(RelayServerError) -> RelayServer {
    var configuration = configuration
    let context: NIOSSLContext?
    if let identity {
      configuration.certificateFingerprints = [identity.fingerprint]
      do {
        context = try identity.serverContext()
      } catch {
        throw .cannotBind(
          host: host, port: port, reason: "the certificate cannot be used: \(error)")
      }
    } else {
      context = nil
    }
    return try await start(
      host: host, port: port, configuration: configuration, clock: clock, logger: logger,
      store: store, directory: directory, restoring: restoring, tls: context,
      feedsSuccessors: feedsSuccessors)
  }

  /// Binds and starts serving. Throws a ``RelayServerError`` with a readable message if the
  /// address cannot be bound. With `tls`, set the configuration's
  /// ``RelayConfiguration/certificateFingerprints`` (or start with an identity): a relay
  /// that does not know its certificate takes no resume.
  public static func start(
    host: String = "127.0.0.1", port: Int = 7700, configuration: RelayConfiguration = .init(),
    clock: any SessionClock = MonotonicClock(),
    logger: Logger = Logger(label: "cowatch.relay"), store: (any RoomStore)? = nil,
    directory: (any RoomDirectory)? = nil, restoring: [StoredRoom] = [],
    tls: NIOSSLContext? = nil, feedsSuccessors: Bool = false
  ) async throws(RelayServerError) -> RelayServer {
    // Never more connections than descriptors: past them, a connection is refused in
    // words ("the relay is full") instead of failing to be accepted at all.
    var configuration = configuration
    configuration.maximumConnections = min(
      configuration.maximumConnections, DescriptorLimit.connections(under: DescriptorLimit.current))
    let runtime = RelayRuntime(
      configuration: configuration, clock: clock, logger: logger, store: store,
      directory: directory, restoring: restoring, feedsSuccessors: feedsSuccessors)
    let maximumFrame = configuration.maximumFrameBytes
    let partialLines = PartialLineBudget(limit: configuration.maximumPartialLineBytes)
    let openChannels = OpenChannels()
    let contexts = TLSContext(tls)
    let serverChannel: any Channel
    do {
      serverChannel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
        .serverChannelOption(.backlog, value: 1024)
        .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
        .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
        .childChannelOption(.recvAllocator, value: Self.receiveBuffers)
        .childChannelInitializer { channel in
          openChannels.count.add(1, ordering: .relaxed)
          channel.closeFuture.whenComplete { _ in
            openChannels.count.subtract(1, ordering: .relaxed)
          }
          return channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(TLSGate(expectsTLS: tls != nil))
            if let tls = contexts.current.withLock({ $0 }) {
              try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: tls))
              try channel.pipeline.syncOperations.addHandler(
                TLSHandshakeWatcher(runtime: runtime))
            }
            try channel.pipeline.syncOperations.addHandler(
              LineFrameHandler(
                maximumFrameBytes: maximumFrame, emitsEmptyLines: true, budget: partialLines))
            try channel.pipeline.syncOperations.addHandler(RelayChannelHandler(runtime: runtime))
          }
        }
        .bind(host: host, port: port).get()
    } catch {
      throw .cannotBind(host: host, port: port, reason: "\(error)")
    }
    let boundPort = serverChannel.localAddress?.port ?? port
    let runTask = Task(executorPreference: clock.taskExecutor) {
      await withDiscardingTaskGroup { group in
        group.addTask { await runtime.run() }
        try? await serverChannel.closeFuture.get()
        group.cancelAll()
      }
      runtime.stop()
    }
    logger.info(
      "relay listening on \(host):\(boundPort)\(tls == nil ? " without TLS" : " with TLS") (epoch \(runtime.epoch))"
    )
    return RelayServer(
      host: host, port: boundPort, runtime: runtime, serverChannel: serverChannel,
      runTask: runTask, openChannels: openChannels, tls: contexts, partialLines: partialLines)
  }

  /// Stops accepting, stops the tick loop and closes every connection, after telling each
  /// participant why (waiting, at most a second, for those words to leave: a process that
  /// exits right after must not cut them off).
  public func stop() async {
    try? await serverChannel.close()
    await runTask.value
    for _ in 0..<100 where openChannels.count.load(ordering: .relaxed) > 0 {
      // Bytes leaving a socket: real time, whatever the session's clock.
      await runtime.outsideClock.sleep(seconds: 0.01)
    }
  }

  /// Stops as ``stop()`` does, for good: participants read `reason` and stop, rather than
  /// reconnect to a relay that will not come back (the relay a host's process runs).
  public func close(because reason: String) async {
    // Said first: the runtime stops once, so stop()'s own farewell is then not sent.
    runtime.stop(reason: reason, final: true)
    await stop()
  }

  /// Stops as `kill -9` would (fault drills, tests): connections cut without a word,
  /// nothing more stored, leases left to expire.
  public func kill() async {
    runtime.abandon()
    try? await serverChannel.close()
    await runTask.value
  }

  /// Serves new connections with `context` from now on (a renewed certificate); those
  /// already open keep the one they began with, so that nobody is dropped. False for a
  /// relay without TLS (it cannot start speaking it).
  @discardableResult
  public func replaceTLS(_ context: NIOSSLContext) -> Bool {
    tls.current.withLock { current in
      guard current != nil else { return false }
      current = context
      return true
    }
  }

  /// Closes every participant connection (they keep their places and reconnect).
  public func dropAllConnections() { runtime.dropAllConnections() }

  public func state(ofRoom room: String) -> GroupState? { runtime.state(ofRoom: room) }

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
