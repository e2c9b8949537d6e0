import NIOCore
import WireProtocol

/// One line off the wire, or the news that a line went past the limit.
public enum InboundFrame: Sendable, Hashable {
  case line([UInt8])
  case tooLarge(limit: Int)
}

/// Splits a TCP byte stream into lines with ``LineFramer``, so that an oversized line
/// becomes a value the relay can answer with an error instead of a pipeline failure.
public struct LineFrameDecoder: ByteToMessageDecoder {
  public typealias InboundOut = InboundFrame
  private var framer: LineFramer
  private var failed = false

  public init(maximumFrameBytes: Int, emitsEmptyLines: Bool = false) {
    framer = LineFramer(maximumFrameBytes: maximumFrameBytes, emitsEmptyLines: emitsEmptyLines)
  }

  public mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws
    -> DecodingState
  {
    if failed {
      buffer.moveReaderIndex(forwardBy: buffer.readableBytes)
      return .needMoreData
    }
    if let bytes = buffer.readBytes(length: buffer.readableBytes) { framer.append(bytes) }
    do {
      while let frame = try framer.nextFrame() {
        context.fireChannelRead(wrapInboundOut(.line(frame)))
      }
    } catch {
      failed = true
      context.fireChannelRead(wrapInboundOut(.tooLarge(limit: framer.maximumFrameBytes)))
    }
    return .needMoreData
  }

  public mutating func decodeLast(
    context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool
  )
    throws -> DecodingState
  {
    _ = try decode(context: context, buffer: &buffer)
    return .needMoreData
  }
}
