import Foundation
import Logging
import NIOCore
import NIOPosix
import ParticipantRuntime
import Participation
import RelayMetrics
import RelayRuntime
import RelayTLS
import TCPRelayClient
import TCPRelayServer
import TestSupport
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The relay's metrics as a scraper reads them: over HTTP, in Prometheus' text format,
/// moving with what the relay does.
@Suite("A relay's metrics endpoint", .timeLimit(.minutes(1)))
struct MetricsEndpointTests {
  /// GET `path` from the endpoint, as a scraper does (a plain socket, HTTP/1.1).
  static func get(_ path: String, port: Int) async throws -> (status: Int, body: String) {
    let url = try #require(URL(string: "http://127.0.0.1:\(port)\(path)"))
    let (data, response) = try await URLSession.shared.data(from: url)
    let status = (response as? HTTPURLResponse)?.statusCode ?? 0
    return (status, String(decoding: data, as: UTF8.self))
  }

  /// The value of a sample line (`name{labels} value`), parsed as the text format says.
  static func value(_ name: String, in body: String) -> Double? {
    for line in body.split(separator: "\n") where !line.hasPrefix("#") {
      let parts = line.split(separator: " ")
      guard parts.count == 2, parts[0] == name else { continue }
      return Double(parts[1])
    }
    return nil
  }

  @Test("rooms, members, steps and refusals move with the load; other paths are 404")
  func scrape() async throws {
    var logger = Logger(label: "test.metrics")
    logger.logLevel = .critical
    let relay = try await RelayServer.start(host: "127.0.0.1", port: 0, logger: logger)
    let runtime = relay.runtime
    let exporter = RelayMetricsExporter { runtime.statistics }
    let metrics = try await MetricsServer.start(host: "127.0.0.1", port: 0, exporter: exporter)
    defer {
      Task {
        await metrics.stop()
        await relay.stop()
      }
    }
    let idle = try await Self.get("/metrics", port: metrics.port)
    #expect(idle.status == 200)
    #expect(idle.body.contains("# HELP cowatch_rooms "))
    #expect(idle.body.contains("# TYPE cowatch_steps_total counter"))
    #expect(Self.value("cowatch_rooms", in: idle.body) == 0)
    #expect(Self.value("cowatch_connections", in: idle.body) == 0)

    let ann = ParticipantClient(
      transport: TCPTransport(host: "127.0.0.1", port: relay.port),
      configuration: ParticipantConfiguration(name: "ann"))
    try await ann.start()
    for _ in 0..<3 { _ = await ann.send(.setAutoAdvance(true)) }
    _ = await ann.send(.setAutoAdvance(false))
    // A stranger that does not say hello: refused with a code.
    let stranger = try await TCPTransport(host: "127.0.0.1", port: relay.port).connect()
    try stranger.send(.resync)
    do { for try await _ in stranger.inbound {} } catch {}
    let busy = try await Self.get("/metrics", port: metrics.port)
    #expect(Self.value("cowatch_rooms", in: busy.body) == 1)
    #expect(Self.value("cowatch_members_connected", in: busy.body) == 1)
    #expect((Self.value("cowatch_steps_total", in: busy.body) ?? 0) >= 2, "\(busy.body)")
    #expect(Self.value(#"cowatch_refusals_total{code="helloRequired"}"#, in: busy.body) == 1)
    await ann.stop()

    let missing = try await Self.get("/nothing", port: metrics.port)
    #expect(missing.status == 404)
  }
}

@Suite("TLS handshake failures, counted", .timeLimit(.minutes(1)))
struct TLSFailureMetricsTests {
  @Test("a client that refuses the relay's certificate is one failed handshake")
  func counted() async throws {
    var logger = Logger(label: "test.metrics")
    logger.logLevel = .critical
    let identity = try RelayIdentity.makeSelfSigned()
    let relay = try await RelayServer.start(
      host: "127.0.0.1", port: 0, logger: logger, identity: identity)
    defer { Task { await relay.stop() } }
    let other = try RelayIdentity.makeSelfSigned()
    let wrong = TCPTransport(
      host: "127.0.0.1", port: relay.port,
      tls: RelayVerification(pinned: other.fingerprint, knownRelays: nil))
    _ = try? await wrong.connect()
    await eventually("the relay counts the failed handshake") {
      relay.runtime.statistics.tlsHandshakeFailures != 0
    }
    #expect(relay.runtime.statistics.tlsHandshakeFailures == 1)
    let exporter = RelayMetricsExporter { relay.runtime.statistics }
    let text = String(decoding: exporter.scrape(), as: UTF8.self)
    #expect(MetricsEndpointTests.value("cowatch_tls_handshake_failures_total", in: text) == 1)
  }

  /// A raw connection to the endpoint.
  static func connect(port: Int) async throws -> any Channel {
    try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
      .connect(host: "127.0.0.1", port: port).get()
  }

  /// The edges issue: the metrics endpoint had no idle timeout and no connection cap, so
  /// slow connections could eat the descriptors the relay shares.
  @Test(
    "a connection that says nothing, or never finishes its request, is closed; a full endpoint still answers a scrape"
  )
  func bounded() async throws {
    let exporter = RelayMetricsExporter { RelayRuntime().statistics }
    let metrics = try await MetricsServer.start(
      host: "127.0.0.1", port: 0, exporter: exporter,
      limits: MetricsServer.Limits(idleTimeout: 0.3, headerTimeout: 0.3, maximumConnections: 4))
    defer { Task { await metrics.stop() } }
    // Says nothing: closed after the idle timeout.
    let silent = try await Self.connect(port: metrics.port)
    #expect(await eventually(10) { !silent.isActive }, "the silent connection is closed")
    // Starts a request and never finishes it: closed after the header timeout.
    let slow = try await Self.connect(port: metrics.port)
    try await slow.writeAndFlush(ByteBuffer(string: "GET /metrics HTTP/1.1\r\nHost: x\r\n")).get()
    #expect(await eventually(10) { !slow.isActive }, "the unfinished request is closed")
    // Four idle connections fill an endpoint that would let them idle for a long time; a
    // scraper still gets its answer, the oldest idle one making room.
    let full = try await MetricsServer.start(
      host: "127.0.0.1", port: 0, exporter: exporter,
      limits: MetricsServer.Limits(idleTimeout: 60, headerTimeout: 60, maximumConnections: 4))
    defer { Task { await full.stop() } }
    var idle: [any Channel] = []
    for _ in 0..<4 { idle.append(try await Self.connect(port: full.port)) }
    let scrape = try await MetricsEndpointTests.get("/metrics", port: full.port)
    #expect(scrape.status == 200)
    #expect(full.openConnections <= 4)
    // One of them made room (which is the oldest depends on the order the event loops took
    // them in).
    #expect(await eventually(10) { idle.contains { !$0.isActive } }, "an idle connection made room")
    for channel in idle { try? await channel.close() }
  }
}
