import GroupSessions
import NIOCore
import NIOPosix
import WireProtocol

/// Connects participants to a relay over TCP: newline-delimited JSON, Nagle off.
public struct TCPTransport: Transport {
  public let host: String
  public let port: Int
  public let maximumFrameBytes: Int
  public let connectTimeout: Double

  public init(host: String, port: Int, maximumFrameBytes: Int = 1 << 20, connectTimeout: Double = 5)
  {
    self.host = host
    self.port = port
    self.maximumFrameBytes = maximumFrameBytes
    self.connectTimeout = connectTimeout
  }

  /// Parses `HOST[:PORT]` (IPv6 as `[::1]:7700`).
  public init(address: String, defaultPort: Int = 7700) throws(TransportError) {
    let (host, port) = try Self.parse(address, defaultPort: defaultPort)
    self.init(host: host, port: port)
  }

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

  public func connect() async throws(TransportError) -> any TransportConnection {
    let limit = maximumFrameBytes
    let channel: NIOAsyncChannel<InboundFrame, ByteBuffer>
    do {
      channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
        .channelOption(.tcpOption(.tcp_nodelay), value: 1)
        .connectTimeout(.milliseconds(Int64(connectTimeout * 1000)))
        .connect(host: host, port: port) { channel in
          channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(
              ByteToMessageHandler(LineFrameDecoder(maximumFrameBytes: limit)))
            return try NIOAsyncChannel<InboundFrame, ByteBuffer>(
              wrappingChannelSynchronously: channel)
          }
        }
    } catch {
      throw .unreachable(endpoint: endpointDescription, reason: Self.simplify("\(error)"))
    }
    return TCPConnection(channel)
  }

  static func simplify(_ reason: String) -> String {
    if reason.contains("Connection refused") || reason.contains("ECONNREFUSED") {
      return "connection refused (is a relay running there?)"
    }
    if reason.contains("connectTimeout") || reason.contains("timed out") { return "timed out" }
    if reason.contains("unknownHost") || reason.contains("resolve") || reason.contains("NXDOMAIN") {
      return "unknown host"
    }
    return reason
  }
}

/// One TCP connection: a task owns the channel for its lifetime; sends go through an
/// async stream to it.
final class TCPConnection: TransportConnection {
  let inbound: AsyncThrowingStream<ServerMessage, any Error>
  private let outgoing: AsyncStream<ByteBuffer>.Continuation
  private let task: Task<Void, Never>
  private let channel: any Channel

  init(_ asyncChannel: NIOAsyncChannel<InboundFrame, ByteBuffer>) {
    let (inbound, inboundSink) = AsyncThrowingStream<ServerMessage, any Error>.makeStream()
    let (outgoingStream, outgoing) = AsyncStream<ByteBuffer>.makeStream()
    self.inbound = inbound
    self.outgoing = outgoing
    self.channel = asyncChannel.channel
    task = Task {
      let codec = WireCodec()
      do {
        try await asyncChannel.executeThenClose { frames, writer in
          await withTaskGroup(of: Void.self) { group in
            group.addTask {
              for await buffer in outgoingStream {
                do { try await writer.write(buffer) } catch { break }
              }
              try? await asyncChannel.channel.close()
            }
            do {
              for try await frame in frames {
                switch frame {
                case .line(let bytes):
                  inboundSink.yield(try codec.decodeServer(bytes))
                case .tooLarge(let limit):
                  throw WireError.frameTooLarge(limit: limit)
                }
              }
              inboundSink.finish()
            } catch {
              inboundSink.finish(throwing: error)
            }
            outgoing.finish()
            group.cancelAll()
          }
        }
      } catch {
        inboundSink.finish(throwing: error)
      }
    }
  }

  func send(_ message: ClientMessage) async throws(TransportError) {
    let buffer = ByteBuffer(bytes: WireCodec().encode(message))
    switch outgoing.yield(buffer) {
    case .terminated: throw .closed
    default: break
    }
  }

  func close() async {
    // The writer sends what is queued (a goodbye, say) and then closes the channel
    // itself; closing it here at once could drop those last lines. A peer that does not
    // read gets half a second.
    outgoing.finish()
    let channel = self.channel
    let deadline = Task {
      try? await Task.sleep(nanoseconds: 500_000_000)
      if !Task.isCancelled { try? await channel.close() }
    }
    await task.value
    deadline.cancel()
  }
}
