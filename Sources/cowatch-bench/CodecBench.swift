import Foundation
import PlaybackCoordination
import WireProtocol

/// CPU cost of the wire codec and of a replica's replay, per message, on one thread: what
/// every participant pays for every change, and what the relay pays per received command.
enum CodecBench {
  struct Row {
    var what: String
    var bytes: Int
    var microseconds: Summary
  }

  static let series = SeriesInfo(
    id: "bench", title: "Bench",
    items: [
      ItemInfo(id: "bench/e1", title: "One", duration: 3600),
      ItemInfo(id: "bench/e2", title: "Two", duration: 3600),
    ])

  /// Times `body` in batches of `batch` calls; one sample (µs per call) per batch.
  static func measure(_ batches: Int, batch: Int = 200, _ body: () -> Void) -> Summary {
    for _ in 0..<batch { body() }
    var samples: [Double] = []
    for _ in 0..<batches {
      let t0 = monoNow()
      for _ in 0..<batch { body() }
      samples.append(Double(monoNow() - t0) / 1e3 / Double(batch))
    }
    return Summary(samples)
  }

  static func run(batches: Int) -> [Row] {
    let codec = WireCodec()
    var engine = GroupEngine(configuration: EngineConfiguration())
    let at = GroupInstant(nanoseconds: 3_600_000_000_000)
    for i in 0..<10 {
      _ = engine.apply(.enter(name: "p\(i)"), from: ParticipantID("p\(i)"), at: at)
    }
    _ = engine.apply(.start(series: series, item: "bench/e1"), from: "p0", at: at)
    for i in 1..<10 { _ = engine.apply(.join, from: ParticipantID("p\(i)"), at: at) }
    let state = engine.state
    let pause = GroupCommand.pause(item: "bench/e1", at: 754.25)
    let command = ClientMessage.command(id: 4711, pause)
    let step = SequencedStep(
      before: state.sequence, after: state.sequence + 1,
      at: GroupInstant(nanoseconds: 3_600_500_000_000), input: .command(pause, from: "p3"))
    let stepMessage = ServerMessage.step(step)
    let update = ServerMessage.update(state: state, events: [])
    let ping = ClientMessage.ping(id: 99, t0: LocalInstant(nanoseconds: 123_456_789_000))

    var rows: [Row] = []
    func row<Message: Encodable>(_ what: String, _ message: Message, _ body: () -> Void) {
      rows.append(
        Row(what: what, bytes: codec.encode(message).count, microseconds: measure(batches, body)))
    }
    let commandBytes = codec.encode(command)
    let stepBytes = codec.encode(stepMessage)
    let updateBytes = codec.encode(update)
    let pingBytes = codec.encode(ping)
    row("encode command (participant)", command) { _ = codec.encode(command) }
    row("decode command (relay)", command) {
      _ = try? codec.decodeClient(Array(commandBytes.dropLast()))
    }
    row("encode step (relay, once per change)", stepMessage) { _ = codec.encode(stepMessage) }
    row("decode step (every participant, per change)", stepMessage) {
      _ = try? codec.decodeServer(Array(stepBytes.dropLast()))
    }
    row("replay step on a 10-member replica", stepMessage) {
      var replica = engine
      _ = replica.replay(step)
    }
    row("decode ping (relay)", ping) { _ = try? codec.decodeClient(Array(pingBytes.dropLast())) }
    row("decode 10-member room state (resync)", update) {
      _ = try? codec.decodeServer(Array(updateBytes.dropLast()))
    }
    return rows
  }

  static func table(_ rows: [Row]) -> Table {
    var t = Table("operation", "bytes", "µs per call p50 / p99 / max")
    for r in rows { t.add(r.what, "\(r.bytes)", r.microseconds.text(2)) }
    return t
  }
}
