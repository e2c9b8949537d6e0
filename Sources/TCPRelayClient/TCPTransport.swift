import LineFraming
import NIOCore
import NIOPosix
import NIOSSL
import RelayTLS
import Transports
import WireProtocol

/// Connects participants to a relay over TCP: newline-delimited JSON, Nagle off; over TLS
/// unless told otherwise, checking the relay as ``RelayVerification`` says.
public struct TCPTransport: Transport {
  public let host: String
  public let port: Int
  public let maximumFrameBytes: Int
  public let connectTimeout: Double
  /// nil: plain TCP (`--no-tls`).
  public let tls: RelayVerification?

  public init(
    host: String, port: Int, maximumFrameBytes: Int = 1 << 20, connectTimeout: Double = 5,
    tls: RelayVerification? = nil
  ) {
    self.host = host
    self.port = port
    self.maximumFrameBytes = maximumFrameBytes
    self.connectTimeout = connectTimeout
    self.tls = tls
  }

  /// Parses `HOST[:PORT]` (IPv6 as `[::1]:7700`).
  public init(address: String, defaultPort: Int = 7700, tls: RelayVerification? = nil)
    throws(TransportError)
  {
    let (host, port) = try Self.parse(address, defaultPort: defaultPort)
    self.init(host: host, port: port, tls: tls)
  }

  /// How long a TLS handshake may take, seconds (a person asked about an unknown relay is
  /// asked after it, with no connection open).
  static let handshakeTimeout = 10.0
  /// How long a connection to a relay the room's relay named (a redirect, a successor) may
  /// take to open. Shorter than the default: when the room's relay goes silent, the
  /// members try its successors in turn, and one across a cut network (whose packets are
  /// dropped, not refused) would hold up everyone's way back for the whole wait. Two
  /// seconds still allow for a lost SYN, resent after one.
  static let otherRelayConnectTimeout = 2.0

  public static func parse(_ address: String, defaultPort: Int) throws(TransportError) -> (
    String, Int
  ) {
    var host = Substring(address)
    var port = defaultPort
    if host.hasPrefix("[") {
      guard let close = host.firstIndex(of: "]") else { throw .badAddress(address) }
      let rest = host[host.index(after: close)...]
      host = host[host.index(after: host.startIndex)..<close]
      if !rest.isEmpty {
        guard rest.hasPrefix(":"), let p = Int(rest.dropFirst()) else { throw .badAddress(address) }
        port = p
      }
    } else if let colon = host.lastIndex(of: ":") {
      guard host.firstIndex(of: ":") == colon, let p = Int(host[host.index(after: colon)...]) else {
        throw .badAddress(address)
      }
      port = p
      host = host[..<colon]
    }
    guard !host.isEmpty, (1...65535).contains(port),
      host.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" || $0 == ":" })
    else { throw .badAddress(address) }
    return (String(host), port)
  }

  public var endpointDescription: String {
    host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
  }

  /// Another relay of the same database: its certificate is pinned to the fingerprint the
  /// trusted relay named (nobody is asked), with the same frame limit and timeouts.
  public func connect(to relay: RelayEndpoint?) async throws(TransportError)
    -> any TransportConnection
  {
    guard let relay else { return try await connect() }
    var verification = tls
    if var pinned = verification {
      pinned.pinned = relay.fingerprint ?? pinned.pinned
      pinned.ask = nil
      pinned.trustNew = false
      verification = pinned
    }
    let (host, port) = try Self.parse(relay.address, defaultPort: port)
    return try await TCPTransport(
      host: host, port: port, maximumFrameBytes: maximumFrameBytes,
      connectTimeout: min(connectTimeout, Self.otherRelayConnectTimeout), tls: verification
    ).connect()
  }

  public func connect() async throws(TransportError) -> any TransportConnection {
    try await connect(asked: false)
  }

  /// `asked`: the person was asked about this relay's certificate already (a second
  /// question would mean its answer was not kept).
  private func connect(asked: Bool) async throws(TransportError) -> any TransportConnection {
    let limit = maximumFrameBytes
    let (inbound, sink) = AsyncThrowingStream<ServerMessage, any Error>.makeStream()
    let channel: any Channel
    let tls = self.tls
    let host = self.host
    let endpoint = endpointDescription
    let refusal = RelayVerification.Refusal()
    let handshake = HandshakeWatcher()
    do {
      channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
        .channelOption(.tcpOption(.tcp_nodelay), value: 1)
        .connectTimeout(.milliseconds(Int64(connectTimeout * 1000)))
        .channelInitializer { channel in
          channel.eventLoop.makeCompletedFuture {
            if let tls {
              try channel.pipeline.syncOperations.addHandler(
                tls.clientHandler(host: host, endpoint: endpoint, refusal: refusal))
              try channel.pipeline.syncOperations.addHandler(handshake)
            }
            try channel.pipeline.syncOperations.addHandler(
              LineFrameHandler(maximumFrameBytes: limit))
            try channel.pipeline.syncOperations.addHandler(ClientChannelHandler(sink: sink))
          }
        }
        .connect(host: host, port: port).get()
    } catch {
      sink.finish(throwing: error)
      let reason = Self.simplify("\(error)")
      if reason.hasPrefix("connection refused") { throw .refused(endpoint: endpoint) }
      throw .unreachable(endpoint: endpoint, reason: reason)
    }
    if let tls {
      // Wait for the handshake: a relay that is not trusted, or does not speak TLS, is
      // said here, in words, not found out later as a connection that never answers.
      let outcome = await handshake.wait(on: channel, seconds: Self.handshakeTimeout)
      if let failure = outcome {
        channel.close(promise: nil)
        sink.finish()
        // An unknown relay: asked now, with the connection closed, then connected to again.
        if let question = refusal.pendingQuestion, !asked {
          if let declined = await tls.answer(question) { throw .untrusted(declined) }
          return try await connect(asked: true)
        }
        if let reason = refusal.text { throw .untrusted(reason) }
        throw .unreachable(endpoint: endpoint, reason: failure)
      }
    }
    return TCPConnection(
      channel: channel, inbound: inbound,
      relayFingerprint: tls == nil ? nil : refusal.trustedFingerprint)
  }

  static func simplify(_ reason: String) -> String {
    let said = reason.lowercased()
    if said.contains("connection refused") || said.contains("econnrefused") {
      return "connection refused (is a relay running there?)"
    }
    if said.contains("connecttimeout") || said.contains("timed out") { return "timed out" }
    if said.contains("unknownhost") || said.contains("resolve") || said.contains("nxdomain")
      || said.contains("name or service not known")
    {
      return "unknown host (is the name right?)"
    }
    if said.contains("network is unreachable") { return "network unreachable" }
    if said.contains("no route to host") { return "no route to host" }
    return reason
  }
}

/// One TCP connection. Sends go straight into the channel (NIO runs them on its event
/// loop in the order they were made); what arrives is decoded on the event loop and
/// handed over through one stream.
final class TCPConnection: TransportConnection {
  let inbound: AsyncThrowingStream<ServerMessage, any Error>
  let relayFingerprint: String?
  private let channel: any Channel
  private let codec = WireCodec()

  init(
    channel: any Channel, inbound: AsyncThrowingStream<ServerMessage, any Error>,
    relayFingerprint: String?
  ) {
    self.channel = channel
    self.inbound = inbound
    self.relayFingerprint = relayFingerprint
  }

  func send(_ message: ClientMessage) throws(TransportError) {
    guard channel.isActive else { throw .closed }
    channel.writeAndFlush(channel.allocator.buffer(bytes: codec.encode(message)), promise: nil)
  }

  func close() async {
    // After what is queued (a goodbye, say) has gone; a peer that does not read gets half
    // a second.
    let channel = self.channel
    channel.writeAndFlush(channel.allocator.buffer(capacity: 0)).whenComplete { _ in
      channel.close(promise: nil)
    }
    let deadline = channel.eventLoop.scheduleTask(in: .milliseconds(500)) {
      channel.close(promise: nil)
    }
    try? await channel.closeFuture.get()
    deadline.cancel()
  }
}

/// Decodes the relay's lines on the event loop and yields them; the stream ends when the
/// connection does (with the error, if a line could not be decoded).
final class ClientChannelHandler: ChannelInboundHandler {
  typealias InboundIn = InboundFrame
  private let sink: AsyncThrowingStream<ServerMessage, any Error>.Continuation
  private let codec = WireCodec()

  init(sink: AsyncThrowingStream<ServerMessage, any Error>.Continuation) { self.sink = sink }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    switch unwrapInboundIn(data) {
    case .line(let bytes):
      do throws(WireError) {
        sink.yield(try codec.decodeServer(bytes))
      } catch {
        sink.finish(throwing: error)
        context.close(promise: nil)
      }
    case .tooLarge(let limit), .overBudget(let limit):
      sink.finish(throwing: WireError.frameTooLarge(limit: limit))
      context.close(promise: nil)
    }
  }

  func channelInactive(context: ChannelHandlerContext) {
    sink.finish()
    context.fireChannelInactive()
  }

  func errorCaught(context: ChannelHandlerContext, error: any Error) {
    sink.finish(throwing: error)
    context.close(promise: nil)
  }
}
