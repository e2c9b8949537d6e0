import GroupSessions
import Logging
import NIOCore
import PlaybackCoordination
import Rooms
import WireProtocol

/// Serialises every connection's events through the one ``RelayCore`` and fans its
/// answers out to per-connection writer tasks, so that a slow reader never holds up the
/// room (its queue overflows and it alone is closed).
actor RelayHub {
  private var core: RelayCore
  private let clock: MonotonicClock
  private let logger: Logger
  private let codec = WireCodec()
  private var outlets: [ConnectionID: Outlet] = [:]
  private var nextConnection: UInt64 = 1
  private var ticker: Task<Void, Never>?
  /// Messages queued for one connection before it counts as too slow and is closed.
  static let outletCapacity = 4096

  private struct Outlet {
    var continuation: AsyncStream<ByteBuffer>.Continuation
    var channel: any Channel
  }

  init(core: RelayCore, clock: MonotonicClock, logger: Logger) {
    self.core = core
    self.clock = clock
    self.logger = logger
  }

  func startTicking() {
    let clock = self.clock
    ticker = Task { [weak self] in
      while !Task.isCancelled {
        guard let wait = await self?.tick() else { return }
        await clock.sleep(seconds: Double(max(1_000_000, min(wait, 50_000_000))) / 1e9)
      }
    }
  }

  func state(ofRoom room: String) -> GroupState? { core.state(ofRoom: room) }

  func closeAll() {
    for (_, outlet) in outlets {
      outlet.continuation.finish()
    }
  }

  /// Runs one connection until it closes.
  nonisolated func serve(_ channel: NIOAsyncChannel<InboundFrame, ByteBuffer>) async {
    let codec = WireCodec()
    do {
      try await channel.executeThenClose { inbound, outbound in
        let (id, writes) = await self.register(channel.channel)
        await withTaskGroup(of: Void.self) { group in
          group.addTask {
            for await buffer in writes {
              do { try await outbound.write(buffer) } catch { break }
            }
            try? await channel.channel.close()
          }
          do {
            for try await frame in inbound {
              switch frame {
              case .line(let bytes):
                do throws(WireError) {
                  let message = try codec.decodeClient(bytes)
                  await self.received(message, from: id)
                } catch {
                  await self.invalid(error, from: id)
                }
              case .tooLarge(let limit):
                await self.invalid(.frameTooLarge(limit: limit), from: id)
              }
            }
          } catch {
            // Reset by peer and the like: same as a close.
          }
          await self.disconnected(id)
          group.cancelAll()
        }
      }
    } catch {
      logger.debug("connection ended: \(error)")
    }
  }

  private func register(_ channel: any Channel) -> (ConnectionID, AsyncStream<ByteBuffer>) {
    let id = ConnectionID(nextConnection)
    nextConnection += 1
    let (stream, continuation) = AsyncStream<ByteBuffer>.makeStream(
      bufferingPolicy: .bufferingOldest(Self.outletCapacity))
    outlets[id] = Outlet(continuation: continuation, channel: channel)
    perform(core.connected(id, at: clock.groupNow()))
    return (id, stream)
  }

  private func received(_ message: ClientMessage, from id: ConnectionID) {
    perform(core.received(message, from: id, at: clock.groupNow()))
  }

  private func invalid(_ error: WireError, from id: ConnectionID) {
    perform(core.receivedInvalid(error, from: id, at: clock.groupNow()))
  }

  private func disconnected(_ id: ConnectionID) {
    if let outlet = outlets.removeValue(forKey: id) { outlet.continuation.finish() }
    perform(core.disconnected(id, at: clock.groupNow()))
  }

  private func tick() -> Int64 {
    let now = clock.groupNow()
    perform(core.tick(at: now))
    return core.nextDeadline(after: now).nanoseconds - clock.groupNow().nanoseconds
  }

  private func perform(_ actions: [RelayAction]) {
    for action in actions {
      switch action {
      case .send(let message, let to):
        write(ByteBuffer(bytes: codec.encode(message)), to: to)
      case .broadcast(let message, let to):
        let buffer = ByteBuffer(bytes: codec.encode(message))
        for id in to { write(buffer, to: id) }
      case .pong(let to, let id, let t0, let t1):
        write(
          ByteBuffer(bytes: codec.encodePong(id: id, t0: t0, t1: t1, t2: clock.groupNow())), to: to)
      case .close(let id):
        // Finishing the stream lets the writer flush what is queued, then close.
        outlets.removeValue(forKey: id)?.continuation.finish()
      case .log(let level, let text):
        switch level {
        case .debug: logger.debug("\(text)")
        case .info: logger.info("\(text)")
        case .notice: logger.notice("\(text)")
        case .warning: logger.warning("\(text)")
        }
      }
    }
  }

  private func write(_ buffer: ByteBuffer, to id: ConnectionID) {
    guard let outlet = outlets[id] else { return }
    if case .dropped = outlet.continuation.yield(buffer) {
      logger.notice("\(id) is not reading; closing it")
      outlets[id] = nil
      outlet.continuation.finish()
      perform(core.disconnected(id, at: clock.groupNow()))
    }
  }
}
