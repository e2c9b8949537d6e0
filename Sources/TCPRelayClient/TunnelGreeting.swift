import NIOCore
import Synchronization
import WireProtocol

/// The start of a tunnel's connection to the relay: waits for the relay's one line
/// (`tunnelReady`, or the error that says why not), then holds what follows until the
/// reader's own handlers are in place (``release()``) and from then on lets every byte
/// through. What it holds is bounded: the peer's first flight (a TLS hello), never more
/// than ``maximumHeld``.
final class TunnelGreeting: ChannelInboundHandler {
  typealias InboundIn = ByteBuffer
  typealias InboundOut = ByteBuffer

  /// The longest line taken from the relay, and the most bytes held after it.
  static let maximumLine = 4096
  static let maximumHeld = 1 << 20

  private let answer: EventLoopPromise<ServerMessage>
  private var line = ByteBuffer()
  private var answered = false
  private var held: ByteBuffer?
  private var released = false
  private var context: ChannelHandlerContext?

  init(answer: EventLoopPromise<ServerMessage>) { self.answer = answer }

  func handlerAdded(context: ChannelHandlerContext) { self.context = context }
  func handlerRemoved(context: ChannelHandlerContext) { self.context = nil }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    var buffer = unwrapInboundIn(data)
    if !answered {
      guard let newline = buffer.readableBytesView.firstIndex(of: UInt8(ascii: "\n")) else {
        line.writeBuffer(&buffer)
        if line.readableBytes > Self.maximumLine { fail(context, "the relay's answer is too long") }
        return
      }
      var head = buffer.readSlice(length: newline - buffer.readerIndex + 1)!
      line.writeBuffer(&head)
      answered = true
      let bytes = Array(line.readableBytesView.dropLast())
      do throws(WireError) {
        answer.succeed(try WireCodec().decodeServer(bytes))
      } catch {
        fail(context, "the relay's answer is not a message: \(error)")
        return
      }
    }
    guard buffer.readableBytes > 0 else { return }
    if released {
      context.fireChannelRead(wrapInboundOut(buffer))
      return
    }
    var kept = held ?? ByteBuffer()
    kept.writeBuffer(&buffer)
    held = kept
    if kept.readableBytes > Self.maximumHeld { context.close(promise: nil) }
  }

  /// The reader's handlers follow this one now: what was held goes to them, and what
  /// comes after.
  func release() {
    guard !released, let context else { return }
    released = true
    if let held, held.readableBytes > 0 {
      // A read as the channel would have delivered it: the bytes, then the end of the read
      // (TLS acts on what it was given, and flushes its answer, at the end of a read).
      context.fireChannelRead(wrapInboundOut(held))
      context.fireChannelReadComplete()
    }
    held = nil
  }

  private func fail(_ context: ChannelHandlerContext, _ why: String) {
    answered = true
    answer.fail(TunnelDialError(why))
    context.close(promise: nil)
  }

  func channelInactive(context: ChannelHandlerContext) {
    if !answered {
      answered = true
      answer.fail(TunnelDialError("the relay closed the tunnel's connection"))
    }
    context.fireChannelInactive()
  }

  func errorCaught(context: ChannelHandlerContext, error: any Error) {
    if !answered {
      answered = true
      answer.fail(error)
    }
    context.close(promise: nil)
  }
}

/// Why a tunnel's connection could not be opened, in words.
public struct TunnelDialError: Error, Sendable, CustomStringConvertible {
  public let description: String
  /// The relay's address could not be connected to (another of its addresses may be).
  public let unreachable: Bool
  public init(_ description: String, unreachable: Bool = false) {
    self.description = description
    self.unreachable = unreachable
  }
}
