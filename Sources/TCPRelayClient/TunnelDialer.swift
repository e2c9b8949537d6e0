import NIOCore
import NIOPosix
import RelayTLS
import WireProtocol

/// Opens one half of a tunnel through the relay (docs/LENDING.md, "the relayed path"): a
/// fresh connection to the relay the participant is connected to, over the same TLS checked
/// against the same certificate, whose first line names the ticket instead of a hello.
public struct TunnelDialer: Sendable {
  /// The addresses of the participant's relay, tried in order (a host's relay may have a
  /// LAN one and a public one).
  public let transports: [TCPTransport]

  public init(transports: [TCPTransport]) {
    precondition(!transports.isEmpty, "a relay needs at least one address")
    self.transports = transports
  }

  /// An open half, once the relay said both are there: `channel` carries the other member's
  /// bytes; its pipeline ends with a handler that holds what arrives until `release` (call
  /// it once the reader's handlers are added after it).
  public struct Half: Sendable {
    public let channel: any Channel
    public let release: @Sendable () -> Void
  }

  /// Connects to `relay` (nil: the transport's own), whose certificate is pinned to
  /// `fingerprint` when known (the one the participant's connection checked), sends the
  /// ticket `secret`, and waits at most `timeout` seconds for both halves to be there.
  public func dial(
    secret: String, relay: RelayEndpoint?, fingerprint: String?, timeout: Double = 12
  ) async throws(TunnelDialError) -> Half {
    if let relay {
      let transport = transports[0]
      do {
        let (host, port) = try TCPTransport.parse(relay.address, defaultPort: transport.port)
        return try await dial(
          secret: secret, host: host, port: port, transport: transport, relay: relay,
          fingerprint: fingerprint, timeout: timeout)
      } catch let error as TunnelDialError {
        throw error
      } catch {
        throw TunnelDialError("\(error)")
      }
    }
    var failure = TunnelDialError("no relay address")
    for transport in transports {
      do {
        return try await dial(
          secret: secret, host: transport.host, port: transport.port, transport: transport,
          relay: nil, fingerprint: fingerprint, timeout: timeout)
      } catch {
        // Only an address that could not be reached is worth the next one's try.
        guard error.unreachable else { throw error }
        failure = error
      }
    }
    throw failure
  }

  private func dial(
    secret: String, host: String, port: Int, transport: TCPTransport, relay: RelayEndpoint?,
    fingerprint: String?, timeout: Double
  ) async throws(TunnelDialError) -> Half {
    var verification = transport.tls
    if var pinned = verification {
      if let known = fingerprint ?? relay?.fingerprint { pinned.pinned = known }
      pinned.ask = nil
      pinned.trustNew = false
      verification = pinned
    }
    let endpoint = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    let refusal = RelayVerification.Refusal()
    let tls = verification
    let channel: any Channel
    do {
      channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
        .channelOption(.tcpOption(.tcp_nodelay), value: 1)
        .connectTimeout(.milliseconds(Int64(min(timeout, transport.connectTimeout) * 1000)))
        .channelInitializer { channel in
          channel.eventLoop.makeCompletedFuture {
            if let tls {
              try channel.pipeline.syncOperations.addHandler(
                tls.clientHandler(host: host, endpoint: endpoint, refusal: refusal))
            }
          }
        }
        .connect(host: host, port: port).get()
    } catch {
      throw TunnelDialError(
        "cannot reach the relay at \(endpoint): \(TCPTransport.simplify("\(error)"))",
        unreachable: true)
    }
    let answer = channel.eventLoop.makePromise(of: ServerMessage.self)
    // Not open in time: closed, which fails the wait below (the greeting answers once).
    let deadline = channel.eventLoop.scheduleTask(in: .milliseconds(Int64(timeout * 1000))) {
      channel.close(promise: nil)
    }
    let greeting: NIOLoopBound<TunnelGreeting>
    do {
      greeting = try await channel.eventLoop.submit {
        let handler = TunnelGreeting(answer: answer)
        try channel.pipeline.syncOperations.addHandler(handler)
        return NIOLoopBound(handler, eventLoop: channel.eventLoop)
      }.get()
      let line = WireCodec().encode(ClientMessage.tunnel(secret: secret))
      try await channel.writeAndFlush(channel.allocator.buffer(bytes: line)).get()
    } catch {
      deadline.cancel()
      channel.close(promise: nil)
      throw TunnelDialError(refusal.text ?? "the tunnel's connection failed: \(error)")
    }
    let message: ServerMessage
    do {
      message = try await answer.futureResult.get()
    } catch {
      deadline.cancel()
      channel.close(promise: nil)
      throw TunnelDialError(refusal.text ?? "\(error)")
    }
    deadline.cancel()
    switch message {
    case .tunnelReady:
      let loop = channel.eventLoop
      return Half(channel: channel) { loop.execute { greeting.value.release() } }
    case .error(_, let text, _):
      channel.close(promise: nil)
      throw TunnelDialError(text)
    default:
      channel.close(promise: nil)
      throw TunnelDialError("the relay answered the tunnel's ticket with something else")
    }
  }
}
