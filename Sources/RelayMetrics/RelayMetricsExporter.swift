import NIOConcurrencyHelpers
import Prometheus
import RelayRuntime
import WireProtocol

/// A relay's statistics as Prometheus metrics, read at each scrape (the relay counts
/// anyway, under the lock it holds for every message: nothing is added to its hot path).
public final class RelayMetricsExporter: Sendable {
  private let registry = PrometheusCollectorRegistry()
  private let read: @Sendable () -> RelayStatistics
  private let rooms: Gauge
  private let members: Gauge
  private let connectedMembers: Gauge
  private let connections: Gauge
  private let steps: Counter
  private let messages: Counter
  private let tlsFailures: Counter
  private let storeWrites: Counter
  private let storeFailures: Counter
  private let storeSeconds: Counter
  private let longestStoreWrite: Gauge
  private let storeUnwritten: Gauge
  private let openTunnels: Gauge
  private let tunnelBytes: Counter
  private let tunnelsRefused: Counter
  /// What each counter showed at the last scrape (counters only go up, by the difference).
  private let last = NIOLockedValueBox(RelayStatistics())

  /// `read`: the relay's statistics now (``RelayRuntime/statistics``).
  public init(read: @escaping @Sendable () -> RelayStatistics) {
    self.read = read
    rooms = registry.makeGauge(
      descriptor: Self.named(
        "rooms",
        help: "Rooms the relay runs now."))
    members = registry.makeGauge(
      descriptor: Self.named(
        "members",
        help: "Members of those rooms, connected or keeping a place."))
    connectedMembers = registry.makeGauge(
      descriptor: Self.named(
        "members_connected",
        help: "Members connected now."))
    connections = registry.makeGauge(
      descriptor: Self.named(
        "connections",
        help: "Open connections (members and others)."))
    steps = registry.makeCounter(
      descriptor: Self.named(
        "steps_total",
        help: "Changes applied to rooms and sent to their members."))
    messages = registry.makeCounter(
      descriptor: Self.named(
        "messages_total",
        help: "Messenger payloads delivered (one per recipient)."))
    tlsFailures = registry.makeCounter(
      descriptor: Self.named(
        "tls_handshake_failures_total",
        help: "TLS handshakes that failed."))
    storeWrites = registry.makeCounter(
      descriptor: Self.named(
        "store_writes_total",
        help: "Batches written to the room store."))
    storeFailures = registry.makeCounter(
      descriptor: Self.named(
        "store_write_failures_total",
        help: "Writes to the room store that failed."))
    storeSeconds = registry.makeCounter(
      descriptor: Self.named(
        "store_write_seconds_total",
        help: "Time spent writing to the room store (divide by the writes for the mean)."))
    longestStoreWrite = registry.makeGauge(
      descriptor: Self.named(
        "store_write_longest_seconds",
        help: "The longest write to the store."))
    storeUnwritten = registry.makeGauge(
      descriptor: Self.named(
        "store_unwritten",
        help:
          "1 while changes wait for the store or a write is under way; 0: all applied is stored."))
    openTunnels = registry.makeGauge(
      descriptor: Self.named(
        "tunnels_open",
        help: "Tunnels carrying a lent copy between two members now."))
    tunnelBytes = registry.makeCounter(
      descriptor: Self.named(
        "tunnel_bytes_total",
        help: "Bytes of lent copies carried through tunnels (both directions)."))
    tunnelsRefused = registry.makeCounter(
      descriptor: Self.named(
        "tunnels_refused_total",
        help: "Tunnels asked for and refused (not carried here, bounds, not members)."))
  }

  /// `cowatch_NAME`, with its help line.
  static func named(_ name: String, help: String) -> MetricNameDescriptor {
    MetricNameDescriptor(namespace: "cowatch", metricName: name, unitName: "", helpText: help)
  }

  /// The metrics now, in Prometheus' text format.
  public func scrape() -> [UInt8] {
    let now = read()
    last.withLockedValue { before in
      rooms.set(Double(now.rooms))
      members.set(Double(now.members))
      connectedMembers.set(Double(now.connectedMembers))
      connections.set(Double(now.connections))
      steps.increment(by: Int64(max(0, now.steps - before.steps)))
      messages.increment(by: Int64(max(0, now.messages - before.messages)))
      tlsFailures.increment(
        by: Int64(max(0, now.tlsHandshakeFailures - before.tlsHandshakeFailures)))
      storeWrites.increment(by: Int64(max(0, now.storeWrites - before.storeWrites)))
      storeFailures.increment(
        by: Int64(max(0, now.storeWriteFailures - before.storeWriteFailures)))
      storeSeconds.increment(
        by: Double(max(0, now.storeWriteNanoseconds - before.storeWriteNanoseconds)) / 1e9)
      longestStoreWrite.set(Double(now.longestStoreWrite) / 1e9)
      storeUnwritten.set(now.storeUnwritten ? 1.0 : 0.0)
      openTunnels.set(Double(now.openTunnels))
      tunnelBytes.increment(by: max(0, now.tunnelBytes - before.tunnelBytes))
      tunnelsRefused.increment(by: Int64(max(0, now.tunnelsRefused - before.tunnelsRefused)))
      for (code, count) in now.refusals {
        let delta = count - (before.refusals[code] ?? 0)
        guard delta > 0 else { continue }
        registry.makeCounter(
          descriptor: Self.named("refusals_total", help: "Errors sent to participants, by code."),
          labels: [("code", code.rawValue)]
        ).increment(by: Int64(delta))
      }
      before = now
    }
    return registry.emitToBuffer()
  }
}

/// A value behind a lock.
