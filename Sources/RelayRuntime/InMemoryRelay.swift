import Clocks
import Logging
import PlaybackCoordination
import Rooms
import Synchronization
import Transports
import WireProtocol

/// A relay in this process, reached through ``InMemoryTransport``: the same
/// ``RelayRuntime`` as the TCP server, with pipes instead of sockets. Tests run the same
/// session scenarios on it and on TCP; it can also drop every connection or refuse new
/// ones to exercise reconnection.
public final class InMemoryRelay: Sendable {
  public let runtime: RelayRuntime
  private let ticker = Mutex<Task<Void, Never>?>(nil)
  private let refusing = Atomic<Bool>(false)
  /// The pipes of connections still open, for ``isSettled``.
  private let pipes = Mutex<[InMemoryPipe]>([])

  public init(
    configuration: RelayConfiguration = .init(), clock: any SessionClock = MonotonicClock(),
    logger: Logger = Logger(label: "cowatch.relay.memory") { _ in SwiftLogNoOpLogHandler() },
    epoch: String? = nil
  ) {
    runtime = RelayRuntime(configuration: configuration, clock: clock, logger: logger, epoch: epoch)
  }

  /// Starts the tick loop that drives timeouts and engine deadlines.
  public func start() {
    ticker.withLock { task in
      guard task == nil else { return }
      let runtime = self.runtime
      task = Task(executorPreference: runtime.clock.taskExecutor) { await runtime.run() }
    }
  }

  /// Stops the tick loop and closes every connection.
  public func stop() async {
    let task = ticker.withLock { task in
      defer { task = nil }
      return task
    }
    task?.cancel()
    await task?.value
    runtime.stop()
  }

  public var transport: InMemoryTransport { InMemoryTransport(relay: self) }

  /// Closes every connection at once, as a network cut would.
  public func dropAllConnections() { runtime.dropAllConnections() }

  /// While refusing, new connections fail as an unreachable relay would.
  public func setRefusingConnections(_ refusing: Bool) {
    self.refusing.store(refusing, ordering: .relaxed)
  }

  public func state(ofRoom room: String) -> GroupState? { runtime.state(ofRoom: room) }
  public var roomNames: [String] { runtime.roomNames }

  fileprivate func open() throws(TransportError) -> InMemoryConnection {
    let refused = TransportError.refused(endpoint: "in-memory relay")
    if refusing.load(ordering: .relaxed) { throw refused }
    guard let connection = InMemoryConnection.open(on: runtime) else { throw refused }
    pipes.withLock { $0.append(connection.pipe) }
    return connection
  }

  /// Nothing travels between the relay and its participants: every line the relay wrote
  /// has been read and handled, and every reader waits for the next. What a participant
  /// sends is handled before `send` returns, so with this, the relay and its participants
  /// are all waiting — for time to pass or for someone to act. A driver of virtual time
  /// (``ManualClock``) moves the clock only then, however busy the machine is.
  public var isSettled: Bool {
    pipes.withLock { pipes in
      pipes.removeAll { $0.isClosed && $0.isSettled }
      return pipes.allSatisfy(\.isSettled)
    }
  }
}

/// The ``Transport`` of an ``InMemoryRelay``.
public struct InMemoryTransport: Transport {
  let relay: InMemoryRelay
  public var endpointDescription: String { "in-memory relay" }

  public func connect() async throws(TransportError) -> any TransportConnection {
    try relay.open()
  }
}

/// Both directions go through the wire codec, as over TCP: what a test sends in memory
/// is what a TCP peer would put on the wire.
final class InMemoryConnection: TransportConnection {
  /// In memory there is no certificate: proofs name no relay.
  let relayFingerprint: String? = nil
  let runtime: RelayRuntime
  let id: ConnectionID
  let inbound: AsyncThrowingStream<ServerMessage, any Error>
  let pipe: InMemoryPipe
  private let codec = WireCodec()
  private let open = Atomic<Bool>(true)

  /// A new connection to `runtime` (nil: the relay refused it).
  static func open(
    on runtime: RelayRuntime, address: String? = nil, origin: ParticipantOrigin = .cowatch
  ) -> InMemoryConnection? {
    let pipe = InMemoryPipe()
    guard let id = runtime.open(pipe, address: address, origin: origin) else { return nil }
    return InMemoryConnection(runtime: runtime, id: id, pipe: pipe)
  }

  init(runtime: RelayRuntime, id: ConnectionID, pipe: InMemoryPipe) {
    self.runtime = runtime
    self.id = id
    self.pipe = pipe
    let codec = WireCodec()
    inbound = AsyncThrowingStream {
      guard var line = await pipe.next() else { return nil }
      if line.last == UInt8(ascii: "\n") { line.removeLast() }
      return try codec.decodeServer(line)
    }
  }

  func send(_ message: ClientMessage) throws(TransportError) {
    guard open.load(ordering: .relaxed), !pipe.isClosed else { throw .closed }
    var line = codec.encode(message)
    line.removeLast()
    runtime.received(line, from: id)
  }

  func close() async {
    guard open.exchange(false, ordering: .relaxed) else { return }
    pipe.readerClosed()
    pipe.close(flush: true)
    runtime.closed(id)
  }
}
