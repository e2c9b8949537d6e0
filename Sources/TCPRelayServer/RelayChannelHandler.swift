import LineFraming
import NIOCore
import RelayRuntime
import Rooms

/// Feeds one TCP connection's lines to the relay runtime on the channel's event loop, so
/// that a change reaches the other participants without a task hop.
final class RelayChannelHandler: ChannelInboundHandler {
  typealias InboundIn = InboundFrame

  private let runtime: RelayRuntime
  private var id: ConnectionID?

  init(runtime: RelayRuntime) { self.runtime = runtime }

  func channelActive(context: ChannelHandlerContext) {
    let address = context.channel.remoteAddress?.ipAddress
    // A refused connection was told why and is closed by its outlet.
    id = runtime.open(TCPOutlet(channel: context.channel), address: address)
    context.fireChannelActive()
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    guard let id else { return }
    switch unwrapInboundIn(data) {
    case .line(let bytes): runtime.received(bytes, from: id)
    case .tooLarge(let limit): runtime.receivedOversized(from: id, limit: limit)
    case .overBudget: runtime.receivedOverBudget(from: id)
    }
  }

  func channelInactive(context: ChannelHandlerContext) {
    if let id { runtime.closed(id) }
    id = nil
    context.fireChannelInactive()
  }

  func errorCaught(context: ChannelHandlerContext, error: any Error) {
    // Reset by peer and the like: the same as a close.
    context.close(promise: nil)
  }
}
