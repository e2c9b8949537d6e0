import Clocks
import Foundation
import Media
import ParticipantRuntime
import Participation
import PlaybackCoordination
import Rooms
import TCPRelayClient
import TCPRelayServer

/// Pairwise divergence (max − min) of what every simulated player shows at one monotonic
/// instant, with players drifting over ±driftPPM and start-up latencies over 0–latency.
enum SyncBench {
  struct Result {
    var participants: Int
    var steady: [Double] = []
    var afterCommand: [Double] = []
    var perKind: [String: [Double]] = [:]
    var seconds: Double
    var drift: Double
    var latency: Double
  }

  static func run(
    participants n: Int, seconds: Double, drift: Double, latency: Double, interval: Double
  )
    async throws -> Result
  {
    let server = try await RelayServer.start(
      host: "127.0.0.1", port: 0, configuration: RelayConfiguration(),
      clock: MonotonicClock(offsetNanoseconds: PropagationBench.relayOffsetNanoseconds))
    let transport = TCPTransport(host: "127.0.0.1", port: server.port)
    progress(
      "sync: \(n) players, drift ±\(drift) ppm, latency 0–\(Int(latency * 1000)) ms, \(seconds) s")
    let room = try await Room.make(
      count: n, transport: transport, room: "sync", recorder: nil,
      player: { i in
        SimulatedPlayerConfiguration(
          driftPPM: n == 1 ? 0 : -drift + 2 * drift * Double(i) / Double(n - 1),
          loadLatency: 0.2...max(0.2, latency), playLatency: 0...latency, seekLatency: 0...latency,
          seed: UInt64(1000 + i))
      })
    try await room.startPlaying(timeout: 30)
    // Warm-up: clock sync burst and the first corrections.
    await sleepSeconds(min(3, seconds / 4))
    let sampled = await sample(room: room, seconds: seconds, interval: interval)
    var result = Result(participants: n, seconds: seconds, drift: drift, latency: latency)
    result.steady = sampled.steady
    result.afterCommand = sampled.afterCommand
    result.perKind = sampled.perKind
    await room.stop()
    await server.stop()
    return result
  }

  struct Sampled {
    var steady: [Double] = []
    var afterCommand: [Double] = []
    var perKind: [String: [Double]] = [:]
    /// The largest divergence within a second of a command: which command, how long after
    /// it was sent (ms), how large (ms). Tells a transition (a pause reaching the far end of
    /// a slow path) from an excursion seconds into steady playing.
    var largestAfterCommand: (kind: String, since: Double, spread: Double)?
  }

  /// Samples every player every 10 ms for `seconds` while a random participant sends pause,
  /// play, seek, rate change, seek, rate change in turn every `interval` seconds.
  static func sample(room: Room, seconds: Double, interval: Double) async -> Sampled {
    var result = Sampled()
    let n = room.clients.count
    let end = monoNow() + Int64(seconds * 1e9)
    var lastCommand: Int64 = monoNow() - 10_000_000_000
    var lastKind = "none"
    var nextCommand = monoNow() + Int64(interval * 1e9)
    let script: [(String, @Sendable (ParticipantClient) async -> Void)] = [
      ("pause", { _ = await $0.pause() }),
      ("play", { _ = await $0.play() }),
      ("seek", { c in _ = await c.seek(to: Double.random(in: 60...3000)) }),
      ("rate", { c in _ = await c.setRate([0.75, 1.25, 1.5].randomElement()!) }),
      ("seek", { c in _ = await c.seek(to: Double.random(in: 60...3000)) }),
      ("rate", { c in _ = await c.setRate(1) }),
    ]
    var step = 0
    let clock = MonotonicClock()
    while monoNow() < end {
      let now = monoNow()
      if now >= nextCommand {
        let (kind, action) = script[step % script.count]
        step += 1
        lastCommand = monoNow()
        lastKind = kind
        let sender = room.clients[Int.random(in: 0..<n)]
        Task { await action(sender) }
        nextCommand = lastCommand + Int64(interval * 1e9)
      }
      let at = clock.localNow()
      let positions = room.players.map { $0.observe(at: at).position }
      let spread = ((positions.max() ?? 0) - (positions.min() ?? 0)) * 1000
      let since = Double(at.nanoseconds - lastCommand) / 1e9
      if since <= 1.0 {
        result.afterCommand.append(spread)
        result.perKind[lastKind, default: []].append(spread)
        if spread > result.largestAfterCommand?.spread ?? -1 {
          result.largestAfterCommand = (lastKind, since * 1000, spread)
        }
      } else {
        result.steady.append(spread)
      }
      await sleepSeconds(0.01)
    }
    return result
  }

  static func table(_ results: [Result]) -> Table {
    var t = Table(
      "players", "drift", "start-up latency", "window", "samples", "divergence p50 / p99 / max (ms)"
    )
    for r in results {
      let cfg = ("±\(Int(r.drift)) ppm", "0–\(Int(r.latency * 1000)) ms")
      let s = Summary(r.steady)
      t.add("\(r.participants)", cfg.0, cfg.1, "steady state", "\(s.count)", s.text(2))
      let a = Summary(r.afterCommand)
      t.add("\(r.participants)", cfg.0, cfg.1, "1 s after a command", "\(a.count)", a.text(2))
      for kind in r.perKind.keys.sorted() {
        let k = Summary(r.perKind[kind]!)
        t.add("\(r.participants)", cfg.0, cfg.1, "1 s after \(kind)", "\(k.count)", k.text(2))
      }
    }
    return t
  }
}
