import LineFraming
import NIOCore
import RelayRuntime
import Synchronization

/// One connection of a spliced tunnel, seen from the other: where to write what the other
/// reads, and how many of those bytes are still on their way out (so that the reader stops
/// while they pile up: a tunnel holds at most ``TunnelHalf/highWater`` and a read in each
/// direction, however slow one side reads).
final class TunnelEnd: Sendable {
  let channel: any Channel
  /// Bytes handed to this end's channel and not yet written to its socket.
  let pending = Atomic<Int>(0)
  /// When this end last read anything (`NIODeadline` nanoseconds).
  let lastRead = Atomic<UInt64>(NIODeadline.now().uptimeNanoseconds)
  /// The handler reading this end, once it is in place (touched on its event loop only).
  let reader = Mutex<NIOLoopBound<TunnelHalf>?>(nil)

  init(channel: any Channel) { self.channel = channel }

  /// Wakes this end's reader if it waits for its peer to drain.
  func wake() {
    channel.eventLoop.execute { self.reader.withLock { $0 }?.value.resumeIfAllowed() }
  }

  /// Makes `near` and `far` one tunnel: each connection stops framing lines and carries
  /// the other's bytes, paced by `meter`.
  static func splice(_ near: any Channel, _ far: any Channel, meter: TunnelMeter) {
    let a = TunnelEnd(channel: near)
    let b = TunnelEnd(channel: far)
    a.install(peer: b, meter: meter)
    b.install(peer: a, meter: meter)
  }

  /// Puts the tunnel's handler where the line framer was, on the channel's event loop
  /// (after the `tunnelReady` line the runtime queued there before).
  private func install(peer: TunnelEnd, meter: TunnelMeter) {
    let channel = self.channel
    channel.eventLoop.execute {
      let half = TunnelHalf(own: self, peer: peer, meter: meter)
      self.reader.withLock { $0 = NIOLoopBound(half, eventLoop: channel.eventLoop) }
      do {
        let framer = try channel.pipeline.syncOperations.handler(type: LineFrameHandler.self)
        try channel.pipeline.syncOperations.addHandler(half, position: .before(framer))
        channel.pipeline.syncOperations.removeHandler(framer, promise: nil)
        // Reads were on (automatic); from now on they are asked for by the half.
        channel.read()
      } catch {
        channel.close(promise: nil)
      }
    }
  }
}

/// Reads one connection of a tunnel and writes what it read to the other, reading only
/// while the other drains and the relay's rates allow (``TunnelMeter``): a slow or paced
/// tunnel waits in the sockets' buffers, not in the relay's memory.
final class TunnelHalf: ChannelDuplexHandler {
  typealias InboundIn = ByteBuffer
  typealias OutboundIn = ByteBuffer
  typealias OutboundOut = ByteBuffer

  /// Bytes on their way to the other side above which this side stops reading; it reads
  /// again below ``lowWater``.
  static let highWater = 256 * 1024
  static let lowWater = 64 * 1024

  private let own: TunnelEnd
  private let peer: TunnelEnd
  private let meter: TunnelMeter
  private var context: ChannelHandlerContext?
  /// A read was asked for (by the channel's automatic reads) while this side waits.
  private var readWanted = false
  /// Until when the rates hold this side's reading back.
  private var pacedUntil: NIODeadline?
  /// Looks every quarter of the idle timeout whether either side read anything.
  private var idleCheck: RepeatedTask?

  init(own: TunnelEnd, peer: TunnelEnd, meter: TunnelMeter) {
    self.own = own
    self.peer = peer
    self.meter = meter
  }

  func handlerAdded(context: ChannelHandlerContext) {
    self.context = context
    let idle = TimeAmount.nanoseconds(Int64(meter.idleTimeout * 1e9))
    let quarter = TimeAmount.nanoseconds(idle.nanoseconds / 4)
    let (own, peer, channel) = (self.own, self.peer, context.channel)
    idleCheck = context.eventLoop.scheduleRepeatedTask(initialDelay: quarter, delay: quarter) {
      _ in
      let last = max(own.lastRead.load(ordering: .relaxed), peer.lastRead.load(ordering: .relaxed))
      if NIODeadline.now().uptimeNanoseconds &- last > UInt64(idle.nanoseconds) {
        channel.close(promise: nil)
      }
    }
  }

  func handlerRemoved(context: ChannelHandlerContext) {
    idleCheck?.cancel()
    idleCheck = nil
    self.context = nil
    // The end and its reader hold each other (and the peer's end): let them go.
    own.reader.withLock { $0 = nil }
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    let buffer = unwrapInboundIn(data)
    let count = buffer.readableBytes
    guard count > 0 else { return }
    own.lastRead.store(NIODeadline.now().uptimeNanoseconds, ordering: .relaxed)
    let delay = meter.charge(count)
    if delay > 0 {
      let until = NIODeadline.now() + .nanoseconds(Int64(delay * 1e9))
      pacedUntil = until
      let own = self.own
      context.eventLoop.scheduleTask(deadline: until) {
        own.reader.withLock { $0 }?.value.paced(until: until)
      }
    }
    let peer = self.peer
    let own = self.own
    peer.pending.add(count, ordering: .relaxed)
    let written = peer.channel.eventLoop.makePromise(of: Void.self)
    written.futureResult.whenComplete { _ in
      let left = peer.pending.subtract(count, ordering: .relaxed).newValue
      if left <= Self.lowWater, left + count > Self.lowWater { own.wake() }
    }
    peer.channel.writeAndFlush(buffer, promise: written)
  }

  func read(context: ChannelHandlerContext) {
    guard allowed else {
      readWanted = true
      return
    }
    context.read()
  }

  /// Whether this side may read now: its peer drains and the rates allow.
  private var allowed: Bool {
    pacedUntil == nil && peer.pending.load(ordering: .relaxed) <= Self.highWater
  }

  /// The pause the rates asked for until `until` is over (unless a later one replaced it).
  func paced(until: NIODeadline) {
    guard pacedUntil == until else { return }
    pacedUntil = nil
    resumeIfAllowed()
  }

  /// Reads again if it was waiting and may now.
  func resumeIfAllowed() {
    guard readWanted, allowed, let context else { return }
    readWanted = false
    context.read()
  }

  func errorCaught(context: ChannelHandlerContext, error: any Error) {
    context.close(promise: nil)
  }
}
