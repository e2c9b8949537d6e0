import NIOCore
import TCPFraming

/// Hands one Syncplay connection's lines to its ``SyncplayConnection``.
final class SyncplayChannelHandler: ChannelInboundHandler {
  typealias InboundIn = InboundFrame

  private let makeConnection: @Sendable (any Channel) -> SyncplayConnection
  private var connection: SyncplayConnection?

  init(makeConnection: @escaping @Sendable (any Channel) -> SyncplayConnection) {
    self.makeConnection = makeConnection
  }

  func channelActive(context: ChannelHandlerContext) {
    connection = makeConnection(context.channel)
    context.fireChannelActive()
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
