import LineFraming
import NIOCore
import SyncplayProtocol

/// Hands one Syncplay connection's lines to its ``SyncplayConnection``, once the port has
/// a place for it.
final class SyncplayChannelHandler: ChannelInboundHandler {
  typealias InboundIn = InboundFrame

  enum Admission {
    case admitted(SyncplayConnection)
    /// No place (the relay's connection limits): said in Syncplay's words, then closed.
    case refused(String)
  }

  private let admit: @Sendable (any Channel) -> Admission
  private var connection: SyncplayConnection?

  init(admit: @escaping @Sendable (any Channel) -> Admission) {
    self.admit = admit
  }

  func channelActive(context: ChannelHandlerContext) {
    switch admit(context.channel) {
    case .admitted(let connection):
      self.connection = connection
      connection.opened()
      context.fireChannelActive()
    case .refused(let why):
      let line = SyncplayCodec().encode(.error(why))
      let channel = context.channel
      context.writeAndFlush(NIOAny(ByteBuffer(bytes: line))).whenComplete { _ in
        channel.close(promise: nil)
      }
    }
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    connection?.received(unwrapInboundIn(data))
  }

  func channelInactive(context: ChannelHandlerContext) {
    connection?.channelClosed()
    connection = nil
    context.fireChannelInactive()
  }

  func errorCaught(context: ChannelHandlerContext, error: any Error) {
    context.close(promise: nil)
  }
}
