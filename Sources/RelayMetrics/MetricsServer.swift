import NIOCore
import NIOHTTP1
import NIOPosix

/// Serves `GET /metrics` (Prometheus' text format) over plain HTTP/1.1, for a scraper on
/// the operator's network; anything else gets 404. Bind it to an address only the
/// monitoring can reach (it tells how busy the relay is, nothing about who is in it).
public final class MetricsServer: Sendable {
  public let host: String
  public let port: Int
  private let channel: any Channel

  private init(host: String, port: Int, channel: any Channel) {
    self.host = host
    self.port = port
    self.channel = channel
  }

  /// Starts listening on `host:port` (0: any free port).
  public static func start(host: String, port: Int, exporter: RelayMetricsExporter)
    async throws -> MetricsServer
  {
    let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
      .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
      .childChannelInitializer { channel in
        channel.eventLoop.makeCompletedFuture {
          try channel.pipeline.syncOperations.configureHTTPServerPipeline(
            withErrorHandling: true)
          try channel.pipeline.syncOperations.addHandler(MetricsHandler(exporter: exporter))
        }
      }
      .bind(host: host, port: port).get()
    return MetricsServer(
      host: host, port: channel.localAddress?.port ?? port, channel: channel)
  }

  public func stop() async { try? await channel.close() }
}

/// One request at a time: the scrape is built when asked for.
final class MetricsHandler: ChannelInboundHandler {
  typealias InboundIn = HTTPServerRequestPart
  typealias OutboundOut = HTTPServerResponsePart

  private let exporter: RelayMetricsExporter
  private var head: HTTPRequestHead?

  init(exporter: RelayMetricsExporter) { self.exporter = exporter }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    switch unwrapInboundIn(data) {
    case .head(let request): head = request
    case .body: break
    case .end:
      guard let request = head else { return }
      head = nil
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
      if !keepAlive {
        let channel = context.channel
        sent.whenComplete { _ in channel.close(promise: nil) }
      }
    }
  }
}
