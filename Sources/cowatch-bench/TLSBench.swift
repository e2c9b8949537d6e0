import Foundation
import Media
import ParticipantRuntime
import Participation
import RelayTLS
import TCPRelayClient
import WireProtocol

/// What TLS costs: propagation and relay CPU with and without it, in one run, against a
/// `cowatch serve` process; and how long 1,000 participants joining at once take to be
/// welcomed.
enum TLSBench {
  struct Mode {
    var tls: Bool
    var propagation: [Double] = []
    var cpuPercentPerParticipant = 0.0
    var setup: [Double] = []
    var setupFailures = 0
    var name: String { tls ? "TLS" : "plain TCP" }
  }

  static func transport(_ server: ServerProcess, tls: Bool) -> TCPTransport {
    TCPTransport(
      host: "127.0.0.1", port: server.port, connectTimeout: 30,
      tls: tls ? RelayVerification(pinned: server.fingerprint, knownRelays: nil) : nil)
  }

  /// Propagation of pause/seek/play among `participants`, and the relay's CPU time over
  /// the rounds and `steady` seconds of plain watching after them.
  static func propagation(tls: Bool, participants: Int, rounds: Int, steady: Double) async throws
    -> Mode
  {
    let server = try ServerProcess.cowatch(tls: tls)
    defer { server.stop() }
    let recorder = ArrivalRecorder()
    let room = try await Room.make(
      count: participants, transport: transport(server, tls: tls), room: "tls", recorder: recorder)
    try await room.startPlaying()
    await sleepSeconds(0.6)
    var mode = Mode(tls: tls)
    let cpu0 = server.cpuSeconds
    let t0 = monoNow()
    var generator = SystemRandomNumberGenerator()
    for round in 0..<rounds {
      for kind in [ArrivalRecorder.Kind.pause, .seek, .play] {
        let sender = Int.random(in: 0..<participants, using: &generator)
        let client = room.clients[sender]
        recorder.arm(kind, sender: sender, t0: monoNow())
        switch kind {
        case .pause: _ = await client.pause()
        case .seek: _ = await client.seek(to: Double(100 + 7 * round))
        case .play: _ = await client.play()
        }
        try? await until("\(kind) reached everyone", timeout: 3) {
          recorder.result(expected: participants - 1) != nil
        }
        mode.propagation +=
          (recorder.result(expected: participants - 1) ?? recorder.partial()).player
        recorder.disarm()
        await sleepSeconds(0.05)
      }
    }
    await sleepSeconds(steady)
    let seconds = Double(monoNow() - t0) / 1e9
    mode.cpuPercentPerParticipant =
      (server.cpuSeconds - cpu0) / seconds * 100 / Double(participants)
    await room.stop()
    return mode
  }

  /// `count` participants connect at once; each one's time from starting to connect to its
  /// welcome (TCP, the TLS handshake and its checks, hello), ms.
  static func setup(tls: Bool, count: Int, into mode: inout Mode) async throws {
    let server = try ServerProcess.cowatch(tls: tls)
    defer { server.stop() }
    let transport = transport(server, tls: tls)
    let times = await withTaskGroup(of: Double?.self) { group in
      for i in 0..<count {
        group.addTask {
          let t0 = monoNow()
          do {
            let connection = try await transport.connect()
            try connection.send(
              .hello(
                version: ProtocolVersion.current, name: "p\(i)", room: "r\(i % 50)", resume: nil))
            for try await message in connection.inbound {
              if case .welcome = message {
                let elapsed = Double(monoNow() - t0) / 1e6
                await connection.close()
                return elapsed
              }
              break
            }
            await connection.close()
          } catch {}
          return nil
        }
      }
      var all: [Double?] = []
      for await t in group { all.append(t) }
      return all
    }
    mode.setup = times.compactMap { $0 }
    mode.setupFailures = times.count - mode.setup.count
  }

  static func table(_ modes: [Mode], participants: Int, joining: Int) -> Table {
    var t = Table(
      "connection", "propagation p50 / p99 / max (ms), \(participants) participants",
      "relay CPU per participant (% of a core)",
      "\(joining) joining at once: connect → welcome p50 / p99 / max (ms)")
    for m in modes {
      let s = Summary(m.setup)
      t.add(
        m.name, Summary(m.propagation).text(3), String(format: "%.3f", m.cpuPercentPerParticipant),
        s.text(1) + (m.setupFailures > 0 ? " (\(m.setupFailures) failed)" : ""))
    }
    return t
  }
}
