import NIOCore
import NIOPosix
import NearbyRooms

#if canImport(Glibc)
  import Glibc
#endif

/// Port 5353 on every IPv4 interface that can multicast, shared with whatever else uses it
/// (an mDNS daemon such as Avahi binds it with SO_REUSEADDR and SO_REUSEPORT too, and the
/// kernel gives each of us every multicast datagram). Sends go out on each interface in
/// turn, so that a machine without a multicast route still reaches every network it is on.
final class MulticastDNSSocket: Sendable {
  static let group = try! SocketAddress(ipAddress: "224.0.0.251", port: 5353)

  private let channel: any Channel
  private let outgoing: AsyncStream<DNSMessage>.Continuation
  private let sender: Task<Void, Never>

  private init(
    channel: any Channel, outgoing: AsyncStream<DNSMessage>.Continuation,
    sender: Task<Void, Never>
  ) {
    self.channel = channel
    self.outgoing = outgoing
    self.sender = sender
  }

  /// Opens the socket; `received` gets each well-formed message with the sender's address
  /// and port (on the event loop: it must not block).
  static func open(
    received: @escaping @Sendable (DNSMessage, _ address: String, _ port: Int) -> Void
  ) async throws(NearbyError) -> MulticastDNSSocket {
    let devices: [NIONetworkDevice]
    do {
      devices = try System.enumerateDevices().filter {
        $0.multicastSupported && $0.address?.protocol == .inet
      }
    } catch {
      throw NearbyError("cannot list this machine's network interfaces: \(error)")
    }
    guard !devices.isEmpty else {
      throw NearbyError(
        "no network interface here can multicast (is this machine on a network?)")
    }
    // Answers only from this machine's own links (RFC 6762 §11).
    let onLink = OnLink(
      interfaces: devices.compactMap { device in
        guard let address = device.address?.ipAddress, let mask = device.netmask?.ipAddress
        else { return nil }
        return (address, mask)
      })
    let reusePort = ChannelOptions.socketOption(NIOBSDSocket.Option(rawValue: SO_REUSEPORT))
    let channel: any Channel
    do {
      channel = try await DatagramBootstrap(group: MultiThreadedEventLoopGroup.singleton)
        .channelOption(.socketOption(.so_reuseaddr), value: 1)
        .channelOption(reusePort, value: 1)
        .channelInitializer { channel in
          channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(
              DatagramReader(onLink: onLink, received: received))
          }
        }
        .bind(host: "0.0.0.0", port: 5353).get()
    } catch {
      throw NearbyError("cannot share port 5353 (multicast DNS): \(error)")
    }
    var joined: [NIONetworkDevice] = []
    do {
      try await channel.setOption(.ipOption(.ip_multicast_ttl), value: 255)
      try await channel.setOption(.ipOption(.ip_multicast_loop), value: 1)
    } catch {
      try? await channel.close()
      throw NearbyError("cannot set up multicast on port 5353: \(error)")
    }
    for device in devices {
      guard let multicast = channel as? any MulticastChannel else { break }
      do {
        try await multicast.joinGroup(group, device: device).get()
        joined.append(device)
      } catch {
        continue  // an interface going away meanwhile; the others still serve
      }
    }
    guard !joined.isEmpty else {
      try? await channel.close()
      throw NearbyError("could not join the multicast DNS group on any interface")
    }
    let (stream, continuation) = AsyncStream.makeStream(
      of: DNSMessage.self, bufferingPolicy: .bufferingNewest(64))
    let sender = Task { [joined] in
      for await message in stream {
        guard let bytes = try? message.encoded() else { continue }
        for device in joined {
          guard case .v4(let address) = device.address else { continue }
          var buffer = channel.allocator.buffer(capacity: bytes.count)
          buffer.writeBytes(bytes)
          do {
            // One socket, so the interface is chosen before each send, in turn.
            if let options = channel as? any SocketOptionProvider {
              try await options.setIPMulticastIF(address.address.sin_addr).get()
            }
            try await channel.writeAndFlush(
              AddressedEnvelope(remoteAddress: group, data: buffer))
          } catch {
            continue  // this interface cannot send now; the next may
          }
        }
      }
    }
    return MulticastDNSSocket(channel: channel, outgoing: continuation, sender: sender)
  }

  /// Queued, sent in order (at most 64 waiting: a burst beyond that loses the oldest).
  func send(_ message: DNSMessage) { outgoing.yield(message) }

  /// Sends what is queued, then closes.
  func close() async {
    outgoing.finish()
    await sender.value
    try? await channel.close()
  }
}

/// Decodes each datagram; what is not a DNS message, or comes from off this machine's
/// links, is dropped (anyone may send to 5353).
private final class DatagramReader: ChannelInboundHandler, Sendable {
  typealias InboundIn = AddressedEnvelope<ByteBuffer>
  let onLink: OnLink
  let received: @Sendable (DNSMessage, String, Int) -> Void

  init(onLink: OnLink, received: @escaping @Sendable (DNSMessage, String, Int) -> Void) {
    self.onLink = onLink
    self.received = received
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    let envelope = unwrapInboundIn(data)
    guard let address = envelope.remoteAddress.ipAddress, onLink.contains(address),
      let port = envelope.remoteAddress.port,
      let bytes = envelope.data.getBytes(
        at: envelope.data.readerIndex, length: envelope.data.readableBytes),
      let message = try? DNSMessage.decode(bytes)
    else { return }
    received(message, address, port)
  }

  func errorCaught(context: ChannelHandlerContext, error: any Error) {
    // A datagram socket's error (ICMP unreachable, say) is no reason to stop listening.
  }
}

/// Why rooms nearby cannot be advertised or found here, in words a person can act on.
public struct NearbyError: Error, Hashable, Sendable, CustomStringConvertible {
  public let reason: String
  init(_ reason: String) { self.reason = reason }
  public var description: String { "rooms nearby: \(reason)" }
}
