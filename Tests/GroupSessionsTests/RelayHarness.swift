import GroupSessions
import Logging
import Participation
import PlaybackCoordination
import RelayRuntime
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
/// machine's would be), and participants connected to it.
final class RelayHarness: Sendable {
  let kind: TransportKind
  let memory: InMemoryRelay?
  let server: RelayServer?
  static let relayClockOffset: Int64 = 3_600_000_000_000 + 123_456_789

  init(_ kind: TransportKind, configuration: RelayConfiguration = RelayHarness.fastConfiguration)
    async throws
  {
    self.kind = kind
    let clock = MonotonicClock(offsetNanoseconds: Self.relayClockOffset)
    switch kind {
    case .inMemory:
      let relay = InMemoryRelay(configuration: configuration, clock: clock)
      relay.start()
      memory = relay
      server = nil
    case .tcp:
      memory = nil
      var logger = Logger(label: "test.relay")
      logger.logLevel = .warning
      server = try await RelayServer.start(
        host: "127.0.0.1", port: 0, configuration: configuration, clock: clock, logger: logger)
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
    return TCPTransport(host: "127.0.0.1", port: server!.port)
  }

  func participant(
    _ name: String, room: String = "lobby", player: (any PlayerDriver)? = nil,
    configure: (inout ParticipantConfiguration) -> Void = { _ in }
  ) async throws -> ParticipantClient {
    var configuration = ParticipantConfiguration(
      name: name, room: room, pingInterval: 0.2, reportInterval: 0.5)
    configuration.reconnectInitialDelay = 0.05
    configure(&configuration)
    let client = ParticipantClient(
      transport: transport, configuration: configuration, player: player)
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
}

/// Polls `condition` until it holds or `seconds` pass; every wait in the tests is bounded.
func eventually(
  _ what: String, within seconds: Double = 5, sourceLocation: SourceLocation = #_sourceLocation,
  _ condition: @Sendable () async -> Bool
) async {
  let deadline = MonotonicClock.monotonicNanoseconds() + Int64(seconds * 1e9)
  while MonotonicClock.monotonicNanoseconds() < deadline {
    if await condition() { return }
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
