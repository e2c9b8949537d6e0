import Clocks
import Logging
import ParticipantRuntime
import Participation
import PlaybackCoordination
import RelayRuntime
import RelayTLS
import RoomCrypto
import Rooms
import Synchronization
import TCPRelayClient
import TCPRelayServer
import TestSupport
import Testing
import Transports
import WireProtocol

/// Which transport a session test runs on: the same scenarios run on both, as
/// Hummingbird's `.router` and `.live` testers do.
enum TransportKind: String, CaseIterable, CustomTestStringConvertible, Sendable {
  case inMemory, tcp
  var testDescription: String { rawValue }
}

/// A relay of either kind with a clock offset from the participants' (as another
/// machine's would be), and participants connected to it, all on one virtual clock.
///
/// Time stands still unless a test moves it (``advance(by:)``, ``run(until:within:)``):
/// heartbeats, timeouts, reconnection delays, clock sync and the players all follow the
/// ``ManualClock``, so what a scenario checks about time is exact and does not depend on
/// how busy the machine is. Only the bytes travel in real time: the clock moves only once
/// every line sent has been handled on the other side (``VirtualTime``, with the relay's
/// and the participants' line counts), and ``eventually(_:within:_:)`` waits (bounded) for
/// them without moving the clock.
final class RelayHarness: Sendable {
  let kind: TransportKind
  let memory: InMemoryRelay?
  let server: RelayServer?
  /// The TCP relay's certificate, which its participants pin.
  let fingerprint: String?
  /// The participants' clock; the relay reads it shifted by ``relayClockOffset``.
  let clock = ManualClock(simulation: SimulationExecutor())
  /// Lines the participants of a TCP relay sent and handled.
  let traffic = ClientTraffic()
  static let relayClockOffset: Int64 = 3_600_000_000_000 + 123_456_789

  /// `tls`: the TCP relay speaks TLS (as `cowatch serve` does by default); without it,
  /// plain TCP, for tests that write raw bytes at it.
  init(
    _ kind: TransportKind, configuration: RelayConfiguration = RelayHarness.fastConfiguration,
    tls: Bool = true
  ) async throws {
    self.kind = kind
    let clock = OffsetClock(self.clock, offsetNanoseconds: Self.relayClockOffset)
    switch kind {
    case .inMemory:
      let relay = InMemoryRelay(configuration: configuration, clock: clock)
      relay.start()
      memory = relay
      server = nil
      fingerprint = nil
    case .tcp:
      memory = nil
      var logger = Logger(label: "test.relay")
      logger.logLevel = .warning
      // TCP as people use it: over TLS, the participants pinning the relay's certificate.
      let identity = tls ? try RelayIdentity.makeSelfSigned() : nil
      fingerprint = identity?.fingerprint
      let server = try await RelayServer.start(
        host: "127.0.0.1", port: 0, configuration: configuration, clock: clock, logger: logger,
        identity: identity)
      // The relay's event loops are not the simulation's: what moves there, it is told.
      let simulation = self.clock.simulation!
      server.runtime.observeTraffic { simulation.nudge() }
      self.server = server
    }
  }

  static var fastConfiguration: RelayConfiguration {
    var c = RelayConfiguration()
    // Short enough to keep the tests quick; long enough that a participant starved of CPU
    // while the whole suite runs on 2 cores is not taken for a dead one.
    c.heartbeatTimeout = 4
    c.reconnectGrace = 2
    c.helloTimeout = 2
    return c
  }

  var transport: any Transport {
    if let memory { return memory.transport }
    return CountingTransport(
      base: TCPTransport(
        host: "127.0.0.1", port: server!.port,
        tls: fingerprint.map { RelayVerification(pinned: $0, knownRelays: nil) }),
      traffic: traffic)
  }

  /// Whether nothing travels between the relay and its participants.
  var isSettled: Bool {
    if let memory { return memory.isSettled }
    let relay = server!.runtime.openTraffic
    let participants = traffic.total
    return traffic.connecting == 0 && relay.connections == participants.connections
      && relay.received == participants.written && relay.written == participants.received
  }

  /// Virtual time in steps of at most `step` seconds.
  private func virtualTime(step: Double) -> VirtualTime {
    VirtualTime(clock: clock, maximumStep: step, settledWhen: { self.isSettled })
  }

  func participant(
    _ name: String, room: String = "lobby", player: (any PlayerDriver)? = nil,
    password: String? = nil, configure: (inout ParticipantConfiguration) -> Void = { _ in }
  ) async throws -> ParticipantClient {
    let client = self.client(
      name, room: room, player: player, password: try password.map { try RoomPassword($0) },
      configure: configure)
    try await client.start()
    return client
  }

  /// A participant of this relay, not started yet.
  func client(
    _ name: String, room: String = "lobby", player: (any PlayerDriver)? = nil,
    password: RoomPassword? = nil, configure: (inout ParticipantConfiguration) -> Void = { _ in }
  ) -> ParticipantClient {
    var configuration = ParticipantConfiguration(
      name: name, room: room, pingInterval: 0.2, reportInterval: 0.5)
    configuration.reconnectInitialDelay = 0.05
    // A cheap derivation: these tests are about the protocol, not the KDF's cost.
    configuration.keyDerivationCost = 12
    configure(&configuration)
    return ParticipantClient(
      transport: transport, configuration: configuration, player: player, clock: clock,
      password: password)
  }

  /// A task of the simulated system (a test's observer of a client's events, a headless
  /// runner and its output): on the clock's executor, so that virtual time waits for it as
  /// it waits for the runtimes' own. A plain `Task` runs unseen, and what it records can
  /// lag behind a clock that has already moved on.
  @discardableResult
  func task<T: Sendable>(_ body: sending @escaping () async -> T) -> Task<T, Never> {
    Task(executorPreference: clock.taskExecutor, operation: body)
  }

  func dropAllConnections() async {
    if let memory { memory.dropAllConnections() }
    if let server { server.dropAllConnections() }
  }

  /// The first of `clients` starts Harbour S1E1 and the others join it once they see it: a
  /// group about to watch together.
  func startTogether(_ clients: [ParticipantClient]) async throws {
    try await clients[0].send(.start(series: testSeries, item: "harbour/s1e1")).get()
    for c in clients.dropFirst() {
      await eventually("session seen") { await c.groupState.session != nil }
      try await c.send(.join).get()
    }
  }

  func state(ofRoom room: String) async -> GroupState? {
    if let memory { return memory.state(ofRoom: room) }
    return server!.state(ofRoom: room)
  }

  func stop() async {
    if let memory { await memory.stop() }
    if let server { await server.stop() }
  }

  /// Moves virtual time forward by `seconds`, from deadline to deadline (steps of at most
  /// `step`), letting what each step woke run and its lines arrive before the next.
  func advance(by seconds: Double, step: Double = 0.01) async {
    await virtualTime(step: step).advance(bySeconds: seconds)
  }

  /// Moves virtual time forward (steps of at most `step`) until `condition` holds; records
  /// a failure if it does not within `seconds` of virtual time (or 30 s of real time).
  @discardableResult
  func run(
    until what: String, within seconds: Double, step: Double = 0.01,
    sourceLocation: SourceLocation = #_sourceLocation, _ condition: @Sendable () async -> Bool
  ) async -> Bool {
    let end = clock.nanoseconds() + Int64(seconds * 1e9)
    let realEnd = MonotonicClock.monotonicNanoseconds() + 30_000_000_000
    let time = virtualTime(step: step)
    await time.settle()
    while true {
      if await condition() { return true }
      guard clock.nanoseconds() < end, MonotonicClock.monotonicNanoseconds() < realEnd else {
        break
      }
      await time.step(notPast: end)
    }
    Issue.record(
      "not within \(seconds) s of virtual time: \(what)", sourceLocation: sourceLocation)
    return false
  }

}

/// Lines the participants of a harness sent and handled, per connection still open.
final class ClientTraffic: Sendable {
  private struct Counts {
    var sent = 0
    var handled = 0
  }
  private let state = Mutex<(next: UInt64, open: [UInt64: Counts])>((0, [:]))
  private let opening = Mutex(0)

  /// Connections being opened: until they are, bytes move on the relay's side alone.
  var connecting: Int { opening.withLock { $0 } }
  func connectStarted() { opening.withLock { $0 += 1 } }
  func connectEnded() { opening.withLock { $0 -= 1 } }

  func opened() -> UInt64 {
    state.withLock { s in
      s.next += 1
      s.open[s.next] = Counts()
      return s.next
    }
  }
  func sent(on id: UInt64) { state.withLock { _ = $0.open[id]?.sent += 1 } }
  func handled(on id: UInt64) { state.withLock { _ = $0.open[id]?.handled += 1 } }
  func closed(_ id: UInt64) { state.withLock { _ = $0.open.removeValue(forKey: id) } }

  /// Seen from the participants: `written` is what they sent, `received` what they handled.
  var total: LineTraffic {
    state.withLock { s in
      s.open.values.reduce(into: LineTraffic(connections: s.open.count)) {
        $0.written += $1.sent
        $0.received += $1.handled
      }
    }
  }
}

/// A transport that counts, per connection, the lines sent and the lines handled: a line
/// counts as handled when the participant asks for the next one.
struct CountingTransport: Transport {
  let base: any Transport
  let traffic: ClientTraffic
  var endpointDescription: String { base.endpointDescription }

  func connect() async throws(TransportError) -> any TransportConnection {
    traffic.connectStarted()
    defer { traffic.connectEnded() }
    return CountingConnection(try await base.connect(), traffic: traffic)
  }

  func connect(to relay: RelayEndpoint?) async throws(TransportError) -> any TransportConnection {
    traffic.connectStarted()
    defer { traffic.connectEnded() }
    return CountingConnection(try await base.connect(to: relay), traffic: traffic)
  }
}

final class CountingConnection: TransportConnection {
  let base: any TransportConnection
  let traffic: ClientTraffic
  let id: UInt64
  let inbound: AsyncThrowingStream<ServerMessage, any Error>
  var relayFingerprint: String? { base.relayFingerprint }

  init(_ base: any TransportConnection, traffic: ClientTraffic) {
    self.base = base
    self.traffic = traffic
    let id = traffic.opened()
    self.id = id
    let reader = Reader(base.inbound.makeAsyncIterator())
    inbound = AsyncThrowingStream {
      do {
        guard let message = try await reader.next(id: id, traffic: traffic) else {
          traffic.closed(id)
          return nil
        }
        return message
      } catch {
        traffic.closed(id)
        throw error
      }
    }
  }

  func send(_ message: ClientMessage) throws(TransportError) {
    try base.send(message)
    traffic.sent(on: id)
  }

  func close() async {
    traffic.closed(id)
    await base.close()
  }

  /// The base stream's iterator, asked by one reader at a time.
  private final class Reader: @unchecked Sendable {
    var iterator: AsyncThrowingStream<ServerMessage, any Error>.AsyncIterator
    var asked = false
    init(_ iterator: AsyncThrowingStream<ServerMessage, any Error>.AsyncIterator) {
      self.iterator = iterator
    }
    func next(id: UInt64, traffic: ClientTraffic) async throws -> ServerMessage? {
      if asked { traffic.handled(on: id) }
      asked = true
      return try await iterator.next()
    }
  }
}

/// Waits, bounded, for what travels in real time (bytes between the participants and the
/// relay) until `condition` holds. It never moves the virtual clock: a condition that
/// needs time to pass belongs in ``RelayHarness/run(until:within:step:sourceLocation:_:)``.
let testSeries = SeriesInfo(
  id: "harbour", title: "Harbour",
  items: [
    ItemInfo(id: "harbour/s1e1", title: "Arrival", duration: 300),
    ItemInfo(id: "harbour/s1e2", title: "Fog", duration: 240),
    ItemInfo(id: "harbour/s1e3", title: "Departure", duration: 200),
  ])
