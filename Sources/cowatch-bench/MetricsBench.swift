import ArgumentParser
import Foundation
import Logging
import NIOCore
import NIOPosix
import PlaybackCoordination
import RelayMetrics
import RelayRuntime
import Rooms
import WireProtocol

/// What a relay's metrics cost: counting (one addition per message sent, under the lock
/// the relay holds anyway) and a scrape, with 10,000 participants in the relay.
enum MetricsBench {
  /// An outlet that takes every line and keeps none.
  final class NullOutlet: RelayOutlet {
    func write(_ line: [UInt8]) -> Int { 0 }
    func close(flush: Bool) {}
  }

  struct Result {
    var participants: Int
    var scrapeMicroseconds: [Double]
    var scrapeBytes: Int
    /// Microseconds per chat line, five runs each.
    var counting: [Double]
    var notCounting: [Double]
  }

  /// A relay with `participants` in rooms of `roomSize`.
  static func relay(participants: Int, roomSize: Int, counting: Bool) -> (
    RelayRuntime, [ConnectionID]
  ) {
    var configuration = RelayConfiguration()
    configuration.maximumConnections = participants + 10
    configuration.maximumConnectionsPerAddress = participants + 10
    configuration.maximumRoomsPerAddress = participants
    configuration.messagesPerSecond = 1e9
    configuration.messageBurst = 1e9
    var logger = Logger(label: "bench.metrics")
    logger.logLevel = .critical
    let runtime = RelayRuntime(
      configuration: configuration, logger: logger, countsStatistics: counting)
    var ids: [ConnectionID] = []
    for i in 0..<participants {
      guard let id = runtime.open(NullOutlet()) else { break }
      runtime.received(
        .hello(
          version: ProtocolVersion.current, name: "p\(i % roomSize)", room: "r\(i / roomSize)",
          resume: nil),
        from: id)
      ids.append(id)
    }
    return (runtime, ids)
  }

  /// Microseconds per chat line through the relay (to the others in the room), as a
  /// participant sends it: decoded, routed, answered, written.
  static func chat(_ runtime: RelayRuntime, _ ids: [ConnectionID], lines: Int) -> Double {
    let codec = WireCodec()
    var seq: [UInt64] = Array(repeating: 0, count: ids.count)
    let started = monoNow()
    for i in 0..<lines {
      let who = i % ids.count
      seq[who] += 1
      // The same line with its own request id.
      let line = codec.encode(
        ClientMessage.send(seq: seq[who], to: .all, kind: "chat", body: "popcorn 🍿"))
      runtime.received(Array(line.dropLast()), from: ids[who])
    }
    return Double(monoNow() - started) / Double(lines) / 1e3
  }

  /// `lines`: chat lines per run (the smoke run's few only show that it all works).
  static func run(participants: Int, roomSize: Int, scrapes: Int, lines: Int = 50_000) -> Result {
    let (runtime, ids) = relay(participants: participants, roomSize: roomSize, counting: true)
    let exporter = RelayMetricsExporter { runtime.statistics }
    var bytes = 0
    var times: [Double] = []
    for _ in 0..<scrapes {
      let started = monoNow()
      bytes = exporter.scrape().count
      times.append(Double(monoNow() - started) / 1e3)
    }
    // The same load through relays that count and that do not, in turn.
    let (quiet, quietIDs) = relay(participants: participants, roomSize: roomSize, counting: false)
    // Warmed up first: the members' logs of undelivered messages fill, then stay full.
    _ = chat(runtime, ids, lines: lines)
    _ = chat(quiet, quietIDs, lines: lines)
    var counting: [Double] = []
    var notCounting: [Double] = []
    for _ in 0..<5 {
      counting.append(chat(runtime, ids, lines: lines))
      notCounting.append(chat(quiet, quietIDs, lines: lines))
    }
    return Result(
      participants: ids.count, scrapeMicroseconds: times, scrapeBytes: bytes,
      counting: counting, notCounting: notCounting)
  }
}

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The endpoint under idle connections: `idle` raw connections opened and held (as a slow
/// client would), then scrapes timed over HTTP as a scraper makes them.
enum MetricsIdleBench {
  static func run(idle: Int, scrapes: Int) async throws -> (
    times: [Double], open: Int, refused: Int
  ) {
    let exporter = RelayMetricsExporter { RelayRuntime().statistics }
    let server = try await MetricsServer.start(host: "127.0.0.1", port: 0, exporter: exporter)
    var held: [any Channel] = []
    var refused = 0
    for _ in 0..<idle {
      do {
        held.append(
          try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: "127.0.0.1", port: server.port).get())
      } catch {
        refused += 1
      }
    }
    let url = URL(string: "http://127.0.0.1:\(server.port)/metrics")!
    var times: [Double] = []
    for _ in 0..<scrapes {
      var request = URLRequest(url: url)
      request.timeoutInterval = 10
      let started = monoNow()
      let (_, response) = try await URLSession.shared.data(for: request)
      guard (response as? HTTPURLResponse)?.statusCode == 200 else { continue }
      times.append(Double(monoNow() - started) / 1e6)
    }
    let open = server.openConnections
    for channel in held { try? await channel.close() }
    await server.stop()
    return (times, open, refused)
  }
}

struct MetricsCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "metrics",
    abstract: "What the relay's metrics cost: counting per message, and a scrape at 10,000.")
  @OptionGroup var common: CommonOptions
  @Option(help: "Participants in the relay.") var participants = 10_000

  func run() async throws {
    let n = common.smoke ? 100 : participants
    let r = MetricsBench.run(
      participants: n, roomSize: 5, scrapes: common.smoke ? 5 : 200,
      lines: common.smoke ? 2_000 : 50_000)
    let scrape = Summary(r.scrapeMicroseconds)
    // At Prometheus' usual 15 s: the share of one core a scrape takes.
    let share = scrape.p50 / 15e6 * 100
    var table = Table(
      "participants", "scrape p50 / p99 / max (µs)", "scrape bytes", "share of a core at 15 s")
    table.add(
      "\(r.participants)", scrape.text(1), "\(r.scrapeBytes)", fmt(share, 5) + " %")
    var load = Table("relay", "µs per chat line, 5 runs (min … max)")
    func runs(_ values: [Double]) -> String {
      values.map { fmt($0, 2) }.joined(separator: ", ")
        + " (\(fmt(values.min() ?? .nan, 2)) … \(fmt(values.max() ?? .nan, 2)))"
    }
    load.add("counting for the metrics", runs(r.counting))
    load.add("not counting", runs(r.notCounting))
    emit("What the relay's metrics cost", table)
    emit("The same chat load, counting and not", load)
    let idleCount = common.smoke ? 100 : 1_000
    let idle = try await MetricsIdleBench.run(idle: idleCount, scrapes: common.smoke ? 5 : 50)
    let idleScrape = Summary(idle.times)
    var held = Table(
      "idle connections opened", "scrapes answered", "scrape p50 / p99 / max (ms)",
      "connections open at the end")
    held.add(
      "\(idleCount)", "\(idle.times.count) of \(common.smoke ? 5 : 50)", idleScrape.text(2),
      "\(idle.open)")
    emit("Scrapes while idle connections are held open", held)
    Report.write(
      section: "metrics", title: "16. What the relay's metrics cost",
      body: """
        A relay runtime in the bench process (no sockets) with \(r.participants) participants in
        rooms of five. *Scrape*: building the metrics text (`RelayMetricsExporter.scrape`,
        which reads the relay's statistics under its lock: rooms, members, connections,
        counters), 200 times. *Counting*: the same chat load (lines decoded, routed to the
        four others, answered, written to outlets that keep nothing) through a relay that
        counts what it sends for the metrics and one that does not, five runs of 50,000
        lines each, in turn. The aim: counting within the runs' spread.

        \(table.markdown)
        \(load.markdown)

        *Idle connections*: the endpoint on loopback, \(idleCount) connections opened to it
        and held without a word (as slow clients would hold them), then scrapes over HTTP
        as a scraper makes them (each a new connection). The endpoint keeps at most 32
        open, closing the oldest idle one for a newcomer.

        \(held.markdown)
        """, smoke: common.smoke)
  }
}
