import NIOCore
import NIOSSL
import NIOTLS
import Synchronization

/// Tells the connect call how the TLS handshake ended: done, or failed and why (in words:
/// a relay without TLS, a refused certificate, a dropped connection).
final class HandshakeWatcher: ChannelInboundHandler, Sendable {
  typealias InboundIn = NIOAny

  private let outcome = Mutex<
    (done: Bool, failure: String?, waiter: CheckedContinuation<String?, Never>?)
  >(
    (false, nil, nil))

  func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
    if case TLSUserEvent.handshakeCompleted = event { finish(nil) }
    context.fireUserInboundEventTriggered(event)
  }

  func errorCaught(context: ChannelHandlerContext, error: any Error) {
    finish(Self.describe(error))
    context.fireErrorCaught(error)
  }

  func channelInactive(context: ChannelHandlerContext) {
    finish(Self.closed)
    context.fireChannelInactive()
  }

  /// A relay that closes the connection mid-handshake may be one that is still starting,
  /// refuses the connection, or gave up waiting: nothing says it lacks TLS, so nothing here
  /// suggests turning TLS off.
  static let closed =
    "the relay closed the connection during the TLS handshake (try again; if it keeps happening, the relay's log says why)"

  /// nil once the handshake is done; otherwise why it failed (or timed out).
  func wait(on channel: any Channel, seconds: Double) async -> String? {
    let timer = channel.eventLoop.scheduleTask(in: .milliseconds(Int64(seconds * 1000))) {
      self.finish("no TLS handshake within \(Int(seconds)) s")
    }
    defer { timer.cancel() }
    return await withCheckedContinuation { continuation in
      let ready = outcome.withLock { state -> (Bool, String?) in
        if state.done { return (true, state.failure) }
        state.waiter = continuation
        return (false, nil)
      }
      if ready.0 { continuation.resume(returning: ready.1) }
    }
  }

  private func finish(_ failure: String?) {
    let waiter = outcome.withLock { state -> CheckedContinuation<String?, Never>? in
      guard !state.done else { return nil }
      state.done = true
      state.failure = failure
      defer { state.waiter = nil }
      return state.waiter
    }
    waiter?.resume(returning: failure)
  }

  static func describe(_ error: any Error) -> String { describe(text: "\(error)") }

  /// Only a reply that is not TLS at all (a plain relay answers the greeting with a line of
  /// its own) says the relay does not speak TLS, and only then is `--no-tls` named.
  static func describe(text: String) -> String {
    if text.contains("WRONG_VERSION_NUMBER") || text.contains("wrong version")
      || text.contains("PACKET_LENGTH_TOO_LONG")
    {
      return
        "the relay does not speak TLS (is it `cowatch serve --no-tls`? then join with --no-tls)"
    }
    if text.contains("uncleanShutdown") || text.contains("EOF during handshake") {
      return closed
    }
    return "TLS handshake failed: \(text)"
  }
}
