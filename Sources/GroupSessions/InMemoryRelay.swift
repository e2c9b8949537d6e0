import PlaybackCoordination
import Rooms
import WireProtocol

/// A relay running ``RelayCore`` in-process, with connections that are async streams.
/// Tests use it (and the TCP relay) to run the same session scenarios; it can also drop
/// every connection to exercise reconnection.
public actor InMemoryRelay {
  private var core: RelayCore
  private let clock: MonotonicClock
  private var outlets: [ConnectionID: AsyncThrowingStream<ServerMessage, any Error>.Continuation] =
    [:]
  private var nextConnection: UInt64 = 1
  private var ticker: Task<Void, Never>?
  private var refusing = false

  public init(
    configuration: RelayConfiguration = .init(), clock: MonotonicClock = .init(), seed: UInt64 = 1
  ) {
    self.core = RelayCore(configuration: configuration, seed: seed)
    self.clock = clock
  }

  /// Starts the timer that drives timeouts and engine deadlines.
  public func start() {
    guard ticker == nil else { return }
    let clock = self.clock
    ticker = Task { [weak self] in
      while !Task.isCancelled {
        guard let self else { return }
        let wait = await self.tickOnce()
        await clock.sleep(seconds: Double(max(1_000_000, min(wait, 50_000_000))) / 1e9)
      }
    }
  }

  public func stop() {
    ticker?.cancel()
    ticker = nil
    for (_, outlet) in outlets { outlet.finish() }
    outlets = [:]
  }

  public nonisolated var transport: InMemoryTransport { InMemoryTransport(relay: self) }

  /// Closes every connection at once, as a relay restart or network cut would; members
  /// keep their places for the reconnect grace.
  public func dropAllConnections() {
    let now = clock.groupNow()
    for (id, outlet) in outlets.sorted(by: { $0.key < $1.key }) {
      outlet.finish(throwing: TransportError.closed)
      outlets[id] = nil
      perform(core.disconnected(id, at: now))
    }
  }

  /// While refusing, new connections fail as an unreachable relay would.
  public func setRefusingConnections(_ refusing: Bool) { self.refusing = refusing }

  public func state(ofRoom room: String) -> GroupState? { core.state(ofRoom: room) }
  public var roomNames: [String] { core.roomNames }

  // MARK: - Called by connections

  func open() throws(TransportError) -> (
    ConnectionID, AsyncThrowingStream<ServerMessage, any Error>
  ) {
    if refusing { throw .unreachable(endpoint: "in-memory relay", reason: "refused") }
    let id = ConnectionID(nextConnection)
    nextConnection += 1
    let (stream, continuation) = AsyncThrowingStream<ServerMessage, any Error>.makeStream()
    outlets[id] = continuation
    perform(core.connected(id, at: clock.groupNow()))
    return (id, stream)
  }

  func receive(_ message: ClientMessage, from id: ConnectionID) throws(TransportError) {
    guard outlets[id] != nil else { throw .closed }
    perform(core.received(message, from: id, at: clock.groupNow()))
  }

  func close(_ id: ConnectionID) {
    guard let outlet = outlets.removeValue(forKey: id) else { return }
    outlet.finish()
    perform(core.disconnected(id, at: clock.groupNow()))
  }

  private func tickOnce() -> Int64 {
    let now = clock.groupNow()
    perform(core.tick(at: now))
    return core.nextDeadline(after: now).nanoseconds - clock.groupNow().nanoseconds
  }

  private func perform(_ actions: [RelayAction]) {
    for action in actions {
      switch action {
      case .send(let message, let to):
        outlets[to]?.yield(message)
      case .broadcast(let message, let to):
        for id in to { outlets[id]?.yield(message) }
      case .pong(let to, let id, let t0, let t1):
        outlets[to]?.yield(.pong(id: id, t0: t0, t1: t1, t2: clock.groupNow()))
      case .close(let id):
        if let outlet = outlets.removeValue(forKey: id) {
          outlet.finish()
          perform(core.disconnected(id, at: clock.groupNow()))
        }
      case .log:
        break
      }
    }
  }
}

/// The ``Transport`` of an ``InMemoryRelay``.
public struct InMemoryTransport: Transport {
  let relay: InMemoryRelay
  public var endpointDescription: String { "in-memory relay" }

  public func connect() async throws(TransportError) -> any TransportConnection {
    let (id, stream) = try await relay.open()
    return InMemoryConnection(relay: relay, id: id, inbound: stream)
  }
}

struct InMemoryConnection: TransportConnection {
  let relay: InMemoryRelay
  let id: ConnectionID
  let inbound: AsyncThrowingStream<ServerMessage, any Error>

  func send(_ message: ClientMessage) async throws(TransportError) {
    try await relay.receive(message, from: id)
  }

  func close() async { await relay.close(id) }
}
