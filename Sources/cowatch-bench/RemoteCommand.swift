import ArgumentParser
import Clocks
import Foundation
import Media
import ParticipantRuntime
import Participation
import PlaybackCoordination
import RelayTLS
import TCPRelayClient
import TCPRelayServer

/// Participants (in this process) against a relay elsewhere, e.g. in another network
/// namespace behind a delaying proxy (scripts/multihost.sh). Measures propagation, sync
/// error and clock-offset error; the relay's clock must be this machine's
/// `CLOCK_MONOTONIC` shifted by `--truth-offset-ns` (0 for `cowatch serve`).
struct RemoteCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "remote", abstract: "Propagation, sync and clock error against an external relay.")
  @Option(help: "Relay address HOST:PORT.") var relay: String
  @Option(
    help:
      "The relay's certificate fingerprint (SHA256:…): connect over TLS and accept only it, as a host's invite does. Without it, plain TCP (a relay run with --no-tls)."
  )
  var fingerprint: String?
  @Option(help: "Room.") var room = "remote"
  @Option(help: "Participants in this process.") var participants = 5
  @Option(help: "Rounds of pause, seek and play.") var rounds = 10
  @Option(help: "Seconds of sync sampling.") var seconds = 30.0
  @Option(help: "Drift spread, ± ppm.") var driftPpm = 200.0
  @Option(help: "Largest start-up latency, ms.") var latencyMs = 300.0
  @Option(help: "The relay clock's offset from CLOCK_MONOTONIC, ns.") var truthOffsetNs: Int64 = 0
  @Option(help: "A label for the output.") var label = "remote"
  @Option(help: "Seconds of playing before the rounds (the clock filter's window fills).")
  var warmup = 30.0

  func run() async throws {
    BenchLogging.setup()
    let transport = try TCPTransport(
      address: relay, tls: fingerprint.map { RelayVerification(pinned: $0, knownRelays: nil) })
    let recorder = ArrivalRecorder()
    let n = participants
    let drift = driftPpm
    let latency = latencyMs / 1000
    let room = try await Room.make(
      count: n, transport: transport, room: self.room, recorder: recorder,
      player: { i in
        SimulatedPlayerConfiguration(
          driftPPM: n == 1 ? 0 : -drift + 2 * drift * Double(i) / Double(n - 1),
          loadLatency: 0.2...max(0.2, latency), playLatency: 0...latency, seekLatency: 0...latency,
          seed: UInt64(7000 + i))
      })
    try await room.startPlaying(timeout: 30)
    await sleepSeconds(max(3, warmup))
    var player: [Double] = []
    var update: [Double] = []
    var clockErrors: [Double] = []
    for round in 0..<rounds {
      for kind in [ArrivalRecorder.Kind.pause, .seek, .play] {
        let sender = Int.random(in: 0..<n)
        let t0 = monoNow()
        recorder.arm(kind, sender: sender, t0: t0)
        switch kind {
        case .pause: _ = await room.clients[sender].pause()
        case .seek: _ = await room.clients[sender].seek(to: Double(200 + 11 * round))
        case .play: _ = await room.clients[sender].play()
        }
        try? await until("\(kind) everywhere", timeout: 3) {
          recorder.result(expected: n - 1) != nil
        }
        let r = recorder.partial()
        player += r.player
        update += r.update
        recorder.disarm()
        await sleepSeconds(0.5)
      }
      for c in room.clients {
        if let e = await c.clockEstimate {
          clockErrors.append(
            abs(e.offset(at: MonotonicClock().localNow()) - Double(truthOffsetNs) / 1e9) * 1000)
        }
      }
    }
    // The clock estimate every half second while the sync is sampled, too.
    let clients = room.clients
    let truth = Double(truthOffsetNs) / 1e9
    let duration = seconds
    let sampler = Task {
      var errors: [Double] = []
      let end = monoNow() + Int64(duration * 1e9)
      while monoNow() < end {
        for c in clients {
          if let e = await c.clockEstimate {
            errors.append(abs(e.offset(at: MonotonicClock().localNow()) - truth) * 1000)
          }
        }
        await sleepSeconds(0.5)
      }
      return errors
    }
    let sync = await SyncBench.sample(room: room, seconds: seconds, interval: 4)
    clockErrors += await sampler.value
    await room.stop()
    var t = Table("case", "measure", "samples", "p50 / p99 / max (ms)")
    var rows: [(String, [Double])] = [
      ("propagation, applied at player", player), ("propagation, update received", update),
      ("clock-offset error", clockErrors), ("sync error, steady state", sync.steady),
      ("sync error, 1 s after a command", sync.afterCommand),
    ]
    for kind in sync.perKind.keys.sorted() {
      rows.append(("sync error, 1 s after \(kind)", sync.perKind[kind]!))
    }
    for (name, values) in rows {
      let s = Summary(values)
      t.add(label, name, "\(s.count)", s.text(2))
    }
    print(t.markdown)
    if let largest = sync.largestAfterCommand {
      print(
        "\(label): the largest divergence within 1 s of a command, \(String(format: "%.2f", largest.spread)) ms, came \(Int(largest.since.rounded())) ms after a \(largest.kind)."
      )
    }
  }
}
