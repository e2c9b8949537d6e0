import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// Serves `GET /metrics` (Prometheus' text format) over plain HTTP/1.1, for a scraper on
/// the operator's network; anything else gets 404. Bind it to an address only the
/// monitoring can reach (it tells how busy the relay is, nothing about who is in it).
///
/// Bounded, since it shares the process's descriptors with the relay: a connection must
/// start a request within ``Limits/idleTimeout`` of opening (or of its last answer) and
/// finish it within ``Limits/headerTimeout``; at most ``Limits/maximumConnections`` are
/// open, and one more makes room by closing the oldest that is between requests (one in
/// the middle of a request is closed by its own timeout soon enough).
public final class MetricsServer: Sendable {
  /// How long connections may take, and how many there may be.
  public struct Limits: Sendable, Hashable {
    public var idleTimeout: Double
    public var headerTimeout: Double
    public var maximumConnections: Int

    public init(idleTimeout: Double = 15, headerTimeout: Double = 5, maximumConnections: Int = 32) {
      self.idleTimeout = idleTimeout
      self.headerTimeout = headerTimeout
      self.maximumConnections = maximumConnections
    }
  }

  public let host: String
  public let port: Int
  private let channel: any Channel
  private let connections: MetricsConnections

  private init(host: String, port: Int, channel: any Channel, connections: MetricsConnections) {
    self.host = host
    self.port = port
    self.channel = channel
    self.connections = connections
  }

  /// How many connections are open now.
  public var openConnections: Int { connections.count }

  /// Starts listening on `host:port` (0: any free port).
  public static func start(
    host: String, port: Int, exporter: RelayMetricsExporter, limits: Limits = Limits()
  ) async throws -> MetricsServer {
    let connections = MetricsConnections(maximum: limits.maximumConnections)
    let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
      .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
      .childChannelInitializer { channel in
        connections.admit(channel)
        channel.closeFuture.whenComplete { _ in connections.closed(channel) }
        return channel.eventLoop.makeCompletedFuture {
          try channel.pipeline.syncOperations.configureHTTPServerPipeline(
            withErrorHandling: true)
          try channel.pipeline.syncOperations.addHandler(
            MetricsHandler(exporter: exporter, limits: limits, connections: connections))
        }
      }
      .bind(host: host, port: port).get()
    return MetricsServer(
      host: host, port: channel.localAddress?.port ?? port, channel: channel,
      connections: connections)
  }

  public func stop() async { try? await channel.close() }
}

/// The endpoint's open connections, oldest first, and which are between requests.
final class MetricsConnections: Sendable {
  private struct Entry {
    let channel: any Channel
    let number: UInt64
    var inRequest: Bool
  }
  private struct Contents {
    var entries: [ObjectIdentifier: Entry] = [:]
    var opened: UInt64 = 0
  }
  private let contents = Mutex(Contents())
  let maximum: Int

  init(maximum: Int) { self.maximum = max(1, maximum) }

  var count: Int { contents.withLock { $0.entries.count } }

  /// A new connection: when all places are taken, the oldest one between requests gives
  /// up its place (closed).
  func admit(_ channel: any Channel) {
    let evicted: (any Channel)? = contents.withLock { c in
      var evicted: (any Channel)?
      if c.entries.count >= maximum,
        let oldest = c.entries.values.filter({ !$0.inRequest }).min(by: { $0.number < $1.number })
      {
        c.entries[ObjectIdentifier(oldest.channel)] = nil
        evicted = oldest.channel
      }
      c.opened += 1
      c.entries[ObjectIdentifier(channel)] = Entry(
        channel: channel, number: c.opened, inRequest: false)
      return evicted
    }
    evicted?.close(promise: nil)
    // Still over (every other one is in the middle of a request): this one waits for no
    // one, it is closed at once.
    if contents.withLock({ $0.entries.count > maximum }) {
      closed(channel)
      channel.close(promise: nil)
    }
  }

  func inRequest(_ channel: any Channel, _ value: Bool) {
    contents.withLock { $0.entries[ObjectIdentifier(channel)]?.inRequest = value }
  }

  func closed(_ channel: any Channel) {
    _ = contents.withLock { $0.entries.removeValue(forKey: ObjectIdentifier(channel)) }
  }
}

/// One request at a time: the scrape is built when asked for. Closes a connection that
/// does not start a request in time, or does not finish one.
final class MetricsHandler: ChannelInboundHandler {
  typealias InboundIn = HTTPServerRequestPart
  typealias OutboundOut = HTTPServerResponsePart

  private let exporter: RelayMetricsExporter
  private let limits: MetricsServer.Limits
  private let connections: MetricsConnections
  private var head: HTTPRequestHead?
  private var timer: Scheduled<Void>?

  init(
    exporter: RelayMetricsExporter, limits: MetricsServer.Limits, connections: MetricsConnections
  ) {
    self.exporter = exporter
    self.limits = limits
    self.connections = connections
  }

  func handlerAdded(context: ChannelHandlerContext) {
    closeAfter(limits.idleTimeout, context: context)
  }

  func handlerRemoved(context: ChannelHandlerContext) {
    timer?.cancel()
    timer = nil
  }

  /// Closes the connection `seconds` from now unless another deadline replaces this one.
  private func closeAfter(_ seconds: Double, context: ChannelHandlerContext) {
    timer?.cancel()
    let channel = context.channel
    timer = context.eventLoop.scheduleTask(in: .nanoseconds(Int64(seconds * 1e9))) {
      channel.close(promise: nil)
    }
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    switch unwrapInboundIn(data) {
    case .head(let request):
      head = request
      connections.inRequest(context.channel, true)
      closeAfter(limits.headerTimeout, context: context)
    case .body: break
    case .end:
      guard let request = head else { return }
      head = nil
      timer?.cancel()
      timer = nil
      let found = request.method == .GET && request.uri.split(separator: "?").first == "/metrics"
      let body = found ? exporter.scrape() : Array("not found: try /metrics\n".utf8)
      var headers = HTTPHeaders()
      headers.add(
        name: "Content-Type",
        value: found ? "text/plain; version=0.0.4; charset=utf-8" : "text/plain; charset=utf-8")
      headers.add(name: "Content-Length", value: "\(body.count)")
      let keepAlive = request.isKeepAlive
      if !keepAlive { headers.add(name: "Connection", value: "close") }
      context.write(
        wrapOutboundOut(
          .head(
            HTTPResponseHead(
              version: request.version, status: found ? .ok : .notFound, headers: headers))),
        promise: nil)
      context.write(
        wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: body)))),
        promise: nil)
      let sent = context.writeAndFlush(wrapOutboundOut(.end(nil)))
      connections.inRequest(context.channel, false)
      if keepAlive {
        closeAfter(limits.idleTimeout, context: context)
      } else {
        let channel = context.channel
        sent.whenComplete { _ in channel.close(promise: nil) }
      }
    }
  }
}
