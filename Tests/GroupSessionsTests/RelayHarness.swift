import GroupSessions
import Logging
import Participation
import PlaybackCoordination
import RelayRuntime
import RelayTLS
import RoomCrypto
import Rooms
import TCPRelayClient
import TCPRelayServer
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
/// how busy the machine is. Only the bytes travel in real time, and ``eventually(_:within:_:)``
/// waits (bounded) for them without moving the clock.
final class RelayHarness: Sendable {
  let kind: TransportKind
  let memory: InMemoryRelay?
  let server: RelayServer?
  /// The TCP relay's certificate, which its participants pin.
  let fingerprint: String?
  /// The participants' clock; the relay reads it shifted by ``relayClockOffset``.
  let clock = ManualClock()
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
      server = try await RelayServer.start(
        host: "127.0.0.1", port: 0, configuration: configuration, clock: clock, logger: logger,
        tls: try identity?.serverContext())
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
    return TCPTransport(
      host: "127.0.0.1", port: server!.port,
      tls: fingerprint.map { RelayVerification(pinned: $0, knownRelays: nil) })
  }

  func participant(
    _ name: String, room: String = "lobby", player: (any PlayerDriver)? = nil,
    password: String? = nil, configure: (inout ParticipantConfiguration) -> Void = { _ in }
  ) async throws -> ParticipantClient {
    var configuration = ParticipantConfiguration(
      name: name, room: room, pingInterval: 0.2, reportInterval: 0.5)
    configuration.reconnectInitialDelay = 0.05
    // A cheap derivation: these tests are about the protocol, not the KDF's cost.
    configuration.keyDerivationCost = 12
    configure(&configuration)
    let client = ParticipantClient(
      transport: transport, configuration: configuration, player: player, clock: clock,
      password: try password.map { try RoomPassword($0) })
    try await client.start()
    return client
  }

  func dropAllConnections() async {
    if let memory { memory.dropAllConnections() }
    if let server { server.dropAllConnections() }
  }

  func state(ofRoom room: String) async -> GroupState? {
    if let memory { return memory.state(ofRoom: room) }
    return server!.state(ofRoom: room)
  }

  func stop() async {
    if let memory { await memory.stop() }
    if let server { await server.stop() }
  }

  /// Moves virtual time forward by `seconds`, in steps of `step`, giving the runtimes a
  /// moment of real time after each step to act on what became due.
  func advance(by seconds: Double, step: Double = 0.01) async {
    let end = clock.nanoseconds() + Int64(seconds * 1e9)
    while clock.nanoseconds() < end { await self.step(step, notPast: end) }
  }

  /// Moves virtual time forward in steps of `step` until `condition` holds; records a
  /// failure if it does not within `seconds` of virtual time (or 30 s of real time). Once
  /// virtual time has reached the bound, what was due by then still gets a few seconds of
  /// real time to travel (bytes over TCP on a loaded machine), with the clock held.
  @discardableResult
  func run(
    until what: String, within seconds: Double, step: Double = 0.01,
    sourceLocation: SourceLocation = #_sourceLocation, _ condition: @Sendable () async -> Bool
  ) async -> Bool {
    let end = clock.nanoseconds() + Int64(seconds * 1e9)
    let realEnd = MonotonicClock.monotonicNanoseconds() + 30_000_000_000
    while true {
      if await condition() { return true }
      guard clock.nanoseconds() < end, MonotonicClock.monotonicNanoseconds() < realEnd else {
        break
      }
      await self.step(step, notPast: end)
    }
    let delivered = MonotonicClock.monotonicNanoseconds() + 3_000_000_000
    while MonotonicClock.monotonicNanoseconds() < delivered {
      if await condition() { return true }
      try? await Task.sleep(nanoseconds: 5_000_000)
    }
    Issue.record(
      "not within \(seconds) s of virtual time: \(what)", sourceLocation: sourceLocation)
    return false
  }

  /// One step of virtual time, then a millisecond of real time: the timers the step woke,
  /// and the bytes they sent, get to run before the next step (which keeps virtual time
  /// from running far ahead of a loaded machine; nothing asserted depends on it).
  private func step(_ seconds: Double, notPast end: Int64) async {
    clock.advance(toNanoseconds: min(end, clock.nanoseconds() + Int64(seconds * 1e9)))
    await Task.yield()
    try? await Task.sleep(nanoseconds: 1_000_000)
  }
}

/// Waits, bounded, for what travels in real time (bytes between the participants and the
/// relay) until `condition` holds. It never moves the virtual clock: a condition that
/// needs time to pass belongs in ``RelayHarness/run(until:within:step:sourceLocation:_:)``.
func eventually(
  _ what: String, within seconds: Double = 5, sourceLocation: SourceLocation = #_sourceLocation,
  _ condition: @Sendable () async -> Bool
) async {
  let deadline = MonotonicClock.monotonicNanoseconds() + Int64(seconds * 1e9)
  // Asked once more after the deadline: a task not run for a while (a loaded machine) must
  // not fail for what happened meanwhile.
  while true {
    if await condition() { return }
    guard MonotonicClock.monotonicNanoseconds() < deadline else { break }
    try? await Task.sleep(nanoseconds: 5_000_000)
  }
  Issue.record("timed out after \(seconds) s waiting for: \(what)", sourceLocation: sourceLocation)
}

let testSeries = SeriesInfo(
  id: "harbour", title: "Harbour",
  items: [
    ItemInfo(id: "harbour/s1e1", title: "Arrival", duration: 300),
    ItemInfo(id: "harbour/s1e2", title: "Fog", duration: 240),
    ItemInfo(id: "harbour/s1e3", title: "Departure", duration: 200),
  ])
