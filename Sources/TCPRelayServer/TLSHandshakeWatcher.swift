import NIOCore
import NIOSSL
import NIOTLS
import RelayRuntime

/// Counts TLS handshakes that fail on a relay's connections (the metrics' word for clients
/// that could not agree with it: scanners, wrong protocols, old TLS), then steps aside.
final class TLSHandshakeWatcher: ChannelInboundHandler, RemovableChannelHandler {
  typealias InboundIn = NIOAny

  private let runtime: RelayRuntime
  private var done = false

  init(runtime: RelayRuntime) { self.runtime = runtime }

  func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
    if let event = event as? TLSUserEvent, case .handshakeCompleted = event, !done {
      done = true
      context.fireUserInboundEventTriggered(event)
      context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
      return
    }
    context.fireUserInboundEventTriggered(event)
  }

  func errorCaught(context: ChannelHandlerContext, error: any Error) {
    if !done, error is NIOSSLError || error is BoringSSLError {
      done = true
      runtime.countTLSHandshakeFailure()
    }
    context.fireErrorCaught(error)
  }
}
