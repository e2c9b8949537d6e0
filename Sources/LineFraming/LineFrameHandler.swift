import NIOCore

/// One line off the wire, or the news that a line went past the limit.
public enum InboundFrame: Sendable, Hashable {
  case line([UInt8])
  case tooLarge(limit: Int)
  /// The server's connections hold more than its ``PartialLineBudget`` in unfinished lines,
  /// and this one's made it overflow.
  case overBudget(limit: Int)
}

/// Splits a TCP byte stream into lines with ``LineFramer``, so that an oversized line
/// becomes a value the next handler can answer with an error instead of a pipeline failure.
///
/// A plain inbound handler rather than NIO's `ByteToMessageHandler`: the framer already
/// keeps the partial line, so a second buffer (and the handler's own queue) would only add
/// to what every idle connection costs a relay with thousands of them.
public final class LineFrameHandler: ChannelInboundHandler, RemovableChannelHandler {
  public typealias InboundIn = ByteBuffer
  public typealias InboundOut = InboundFrame
  private var framer: LineFramer
  private var failed = false
  private let budget: PartialLineBudget?
  /// This connection's unfinished bytes, as counted in the budget.
  private var counted = 0

  public init(
    maximumFrameBytes: Int, emitsEmptyLines: Bool = false, budget: PartialLineBudget? = nil
  ) {
    framer = LineFramer(maximumFrameBytes: maximumFrameBytes, emitsEmptyLines: emitsEmptyLines)
    self.budget = budget
  }

  public func handlerRemoved(context: ChannelHandlerContext) { release() }

  public func channelInactive(context: ChannelHandlerContext) {
    release()
    context.fireChannelInactive()
  }

  /// Gives this connection's share of the budget back.
  private func release() {
    _ = budget?.change(by: -counted)
    counted = 0
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
      release()
      context.fireChannelRead(wrapInboundOut(.tooLarge(limit: framer.maximumFrameBytes)))
      return
    }
    guard let budget else { return }
    let pending = framer.pendingByteCount
    let within = budget.change(by: pending - counted)
    counted = pending
    if !within, pending > 0 {
      failed = true
      release()
      context.fireChannelRead(wrapInboundOut(.overBudget(limit: budget.limit)))
    }
  }
}

@available(*, unavailable)
extension LineFrameHandler: Sendable {}
