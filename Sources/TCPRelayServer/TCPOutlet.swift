import NIOCore
import RelayRuntime
import Synchronization

/// A relay's writes to one TCP connection, straight into the channel. It counts the bytes
/// written and not yet flushed to the socket, for the relay's slow-reader policy.
///
/// Every channel operation is enqueued on the channel's event loop rather than run in
/// place: the runtime calls in while holding its lock, and a write or close that ran
/// synchronously could call back into it (a failed write closes the channel, whose
/// handler reports the close).
final class TCPOutlet: SplicingOutlet {
  private let channel: any Channel
  private let queued = Atomic<Int>(0)

  init(channel: any Channel) { self.channel = channel }

  func write(_ line: [UInt8]) -> Int {
    let count = line.count
    let total = queued.add(count, ordering: .relaxed).newValue
    let promise = channel.eventLoop.makePromise(of: Void.self)
    promise.futureResult.whenComplete { _ in
      self.queued.subtract(count, ordering: .relaxed)
    }
    let channel = self.channel
    let buffer = channel.allocator.buffer(bytes: line)
    channel.eventLoop.execute { channel.writeAndFlush(buffer, promise: promise) }
    return total
  }

  func splice(with other: any SplicingOutlet, meter: TunnelMeter) {
    guard let other = other as? TCPOutlet else {
      close(flush: false)
      other.close(flush: false)
      return
    }
    TunnelEnd.splice(channel, other.channel, meter: meter)
  }

  func close(flush: Bool) {
    let channel = self.channel
    channel.eventLoop.execute {
      guard flush else {
        channel.close(promise: nil)
        return
      }
      // After what is queued (an error line, say) has gone; a peer that does not read gets
      // half a second.
      let done = channel.writeAndFlush(channel.allocator.buffer(capacity: 0))
      done.whenComplete { _ in channel.close(promise: nil) }
      channel.eventLoop.scheduleTask(in: .milliseconds(500)) { channel.close(promise: nil) }
    }
  }
}
