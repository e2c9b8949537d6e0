import Foundation
import PlaybackCoordination
import Rooms
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

  /// Times `body` once per sample after walking 64 MiB of other memory, so that it finds
  /// the caches holding something else, as the first change after an idle while does.
  static func measureCold(_ samples: Int, _ body: () -> Void) -> Summary {
    var other = [UInt8](repeating: 1, count: 64 << 20)
    var values: [Double] = []
    for k in 0..<samples {
      for j in stride(from: 0, to: other.count, by: 64) {
        other[j] &+= UInt8(truncatingIfNeeded: k)
      }
      let t0 = monoNow()
      body()
      values.append(Double(monoNow() - t0) / 1e3)
    }
    if other[1] == 0 { print("") }  // keeps the walk from being optimized away
    return Summary(values)
  }

  /// A relay core with one room of ten members watching; `command()` makes the next of
  /// alternating pauses and plays by the first, as the relay receives it.
  struct RelayRoom {
    var core: RelayCore
    var now = GroupInstant(nanoseconds: 3_600_000_000_000)
    var id: UInt64 = 100

    init() {
      var configuration = RelayConfiguration()
      // The rate limit is not what is measured.
      configuration.messagesPerSecond = 1e9
      configuration.messageBurst = 1e9
      core = RelayCore(configuration: configuration)
      for i in 1...10 {
        let connection = ConnectionID(UInt64(i))
        _ = core.connected(connection, at: now)
        _ = core.received(
          .hello(version: ProtocolVersion.current, name: "p\(i)", room: "r", resume: nil),
          from: connection, at: now)
      }
      _ = core.received(
        .command(id: 1, .start(series: CodecBench.series, item: "bench/e1")),
        from: ConnectionID(1), at: now)
      for i in 2...10 {
        _ = core.received(.command(id: 1, .join), from: ConnectionID(UInt64(i)), at: now)
      }
    }

    /// The actions for one command: the step to all ten and the sender's answer.
    mutating func command() -> [RelayAction] {
      id += 1
      now = now.advanced(bySeconds: 0.001)
      let command: GroupCommand =
        id % 2 == 0 ? .pause(item: "bench/e1", at: Double(id)) : .play(item: "bench/e1", rate: nil)
      return core.received(.command(id: id, command), from: ConnectionID(1), at: now)
    }
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
    var room = RelayRoom()
    let first = room.command()
    precondition(first.count == 2, "the bench room's command was not applied: \(first)")
    row("relay core: a command in a 10-member room, to its step and answer", command) {
      _ = room.command()
    }
    rows.append(
      Row(
        what: "the same, after 64 MiB of other memory traffic (cold caches, one call a sample)",
        bytes: commandBytes.count, microseconds: measureCold(batches) { _ = room.command() }))
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
