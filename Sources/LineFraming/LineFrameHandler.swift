import NIOCore

/// One line off the wire, or the news that a line went past the limit.
public enum InboundFrame: Sendable, Hashable {
  case line([UInt8])
  case tooLarge(limit: Int)
}

/// Splits a TCP byte stream into lines with ``LineFramer``, so that an oversized line
/// becomes a value the next handler can answer with an error instead of a pipeline failure.
///
/// A plain inbound handler rather than NIO's `ByteToMessageHandler`: the framer already
/// keeps the partial line, so a second buffer (and the handler's own queue) would only add
/// to what every idle connection costs a relay with thousands of them.
public final class LineFrameHandler: ChannelInboundHandler {
  public typealias InboundIn = ByteBuffer
  public typealias InboundOut = InboundFrame
  private var framer: LineFramer
  private var failed = false

  public init(maximumFrameBytes: Int, emitsEmptyLines: Bool = false) {
    framer = LineFramer(maximumFrameBytes: maximumFrameBytes, emitsEmptyLines: emitsEmptyLines)
  }

  public func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    // After an oversized line the stream is unusable: the next handler closes it, and
    // whatever still arrives is dropped.
    guard !failed else { return }
    framer.append(unwrapInboundIn(data).readableBytesView)
    do {
      while let frame = try framer.nextFrame() {
        context.fireChannelRead(wrapInboundOut(.line(frame)))
      }
    } catch {
      failed = true
      context.fireChannelRead(wrapInboundOut(.tooLarge(limit: framer.maximumFrameBytes)))
    }
  }
}

@available(*, unavailable)
extension LineFrameHandler: Sendable {}
