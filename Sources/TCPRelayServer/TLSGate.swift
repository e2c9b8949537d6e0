import NIOCore
import WireProtocol

/// Looks at the first byte a connection sends, so that a peer speaking the wrong kind of
/// connection gets one clear answer instead of garbage or a hang: a TLS handshake starts
/// with a record of type 22 (0x16), a Cowatch hello with `{`.
///
/// On a TLS relay a plain client is told, in plain JSON, to connect with TLS; on a plain
/// relay a TLS client gets a plain line and the end of the stream at once (its handshake
/// then fails with a clear error on its side rather than waiting for the hello timeout). Either way the gate then leaves
/// the pipeline.
final class TLSGate: ChannelInboundHandler, RemovableChannelHandler {
  typealias InboundIn = ByteBuffer
  typealias InboundOut = ByteBuffer

  private let expectsTLS: Bool
  /// A TLS client at a plain relay, told so by the end of our stream: what else it sends
  /// is read and dropped until it closes (or the hello timeout closes it).
  private var refusing = false

  init(expectsTLS: Bool) { self.expectsTLS = expectsTLS }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    guard !refusing else { return }
    let buffer = unwrapInboundIn(data)
    guard let first = buffer.getInteger(at: buffer.readerIndex, as: UInt8.self) else { return }
    let isTLS = first == 0x16
    if isTLS == expectsTLS {
      context.fireChannelRead(data)
      context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
      return
    }
    if expectsTLS {
      // Written from here, before the TLS handler: in the clear, which is all the peer
      // can read.
      let line = WireCodec().encode(
        ServerMessage.error(
          code: .tlsRequired,
          message:
            "this relay only speaks TLS: connect without --no-tls (and check its fingerprint)",
          fatal: true))
      let channel = context.channel
      context.writeAndFlush(wrapOutboundOut(channel.allocator.buffer(bytes: line)))
        .whenComplete { _ in channel.close(promise: nil) }
    } else {
      // A line in the clear, which its TLS library reads as no TLS at all (a wrong record
      // version): the evidence that lets it say this relay does not speak TLS, rather
      // than guess it from a closed connection, which other things cause too. Then only
      // our side ends: closing outright with the rest of its handshake unread would reset
      // the connection, and its TLS library would report a reset instead.
      refusing = true
      let line = WireCodec().encode(
        ServerMessage.error(
          code: .tlsRequired,
          message:
            "this relay does not speak TLS: connect with --no-tls (and only on a network you trust)",
          fatal: true))
      context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(bytes: line)))
        .whenComplete { [channel = context.channel] _ in channel.close(mode: .output, promise: nil)
        }
    }
  }

  typealias OutboundOut = ByteBuffer
}
