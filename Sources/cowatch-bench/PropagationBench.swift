import Clocks
import Foundation
import Media
import ParticipantRuntime
import Participation
import PlaybackCoordination
import Rooms
import TCPRelayClient
import TCPRelayServer

/// Play, pause and seek from one participant to applied at every other, over TCP on
/// loopback to an in-process relay whose clock is offset from the participants' (so that
/// clock-offset estimation has a known truth).
enum PropagationBench {
  struct SizeResult {
    var size: Int
    var player: [ArrivalRecorder.Kind: [Double]] = [:]
    var update: [ArrivalRecorder.Kind: [Double]] = [:]
    var clockErrors: [Double] = []
    var timeouts = 0
    var allPlayer: [Double] { player.values.flatMap { $0 } }
    var allUpdate: [Double] { update.values.flatMap { $0 } }
  }

  /// Seconds between one change reaching everyone and the next, unless told otherwise: the
  /// pace the document's figures are measured at.
  static let defaultGap = 0.05

  /// The relay's clock runs 1 h 0.123456789 s ahead of the participants'.
  static let relayOffsetNanoseconds: Int64 = 3_600_123_456_789

  static func run(
    sizes: [Int], rounds: Int, gap: Double = defaultGap, store: (any RoomStore)? = nil,
    directory: (any RoomDirectory)? = nil, room roomPrefix: String = "prop"
  ) async throws
    -> [SizeResult]
  {
    var configuration = RelayConfiguration()
    configuration.maximumParticipantsPerRoom = max(64, (sizes.max() ?? 0) + 1)
    // Every participant may send a burst of commands in a short run; keep limits out of the way.
    configuration.messagesPerSecond = 1000
    configuration.messageBurst = 1000
    let server = try await RelayServer.start(
      host: "127.0.0.1", port: 0, configuration: configuration,
      clock: MonotonicClock(offsetNanoseconds: relayOffsetNanoseconds), store: store,
      directory: directory)
    defer { Task { await server.stop() } }
    let transport = TCPTransport(host: "127.0.0.1", port: server.port)
    var results: [SizeResult] = []
    for size in sizes {
      progress("propagation: \(size) participants, \(rounds) rounds of pause/seek/play")
      let recorder = ArrivalRecorder()
      let room = try await Room.make(
        count: size, transport: transport, room: "\(roomPrefix)\(size)", recorder: recorder)
      try await room.startPlaying()
      // Let the clock sync's first burst settle.
      await sleepSeconds(0.6)
      var result = SizeResult(size: size)
      var generator = SystemRandomNumberGenerator()
      let expected = size - 1
      for round in 0..<rounds {
        for kind in [ArrivalRecorder.Kind.pause, .seek, .play] {
          let sender = Int.random(in: 0..<size, using: &generator)
          let client = room.clients[sender]
          let t0 = monoNow()
          recorder.arm(kind, sender: sender, t0: t0)
          switch kind {
          case .pause: _ = await client.pause()
          case .seek: _ = await client.seek(to: Double(100 + 7 * round))
          case .play: _ = await client.play()
          }
          do {
            try await until("\(kind) reached everyone", timeout: 3) {
              recorder.result(expected: expected) != nil
            }
            let r = recorder.result(expected: expected)!
            result.player[kind, default: []] += r.player
            result.update[kind, default: []] += r.update
          } catch {
            result.timeouts += 1
            let r = recorder.partial()
            result.player[kind, default: []] += r.player
            result.update[kind, default: []] += r.update
          }
          recorder.disarm()
          await sleepSeconds(gap)
        }
        for c in room.clients {
          if let e = await c.clockEstimate {
            result.clockErrors.append(
              abs(e.offset(at: MonotonicClock().localNow()) - Double(relayOffsetNanoseconds) / 1e9)
                * 1000)
          }
        }
      }
      await room.stop()
      results.append(result)
    }
    await server.stop()
    return results
  }

  static func tables(_ results: [SizeResult]) -> (Table, Table) {
    var t = Table(
      "participants", "command", "samples", "applied at player p50 / p99 / max (ms)",
      "update received p50 / p99 / max (ms)")
    for r in results {
      for kind in [ArrivalRecorder.Kind.pause, .seek, .play] {
        let p = Summary(r.player[kind] ?? [])
        t.add(
          "\(r.size)", kind.rawValue, "\(p.count)", p.text(3), Summary(r.update[kind] ?? []).text(3)
        )
      }
      let all = Summary(r.allPlayer)
      t.add(
        "\(r.size)", "all", "\(all.count)", all.text(3),
        Summary(r.allUpdate).text(3) + (r.timeouts > 0 ? " (\(r.timeouts) rounds timed out)" : ""))
    }
    var c = Table("participants", "estimates", "clock-offset error p50 / p99 / max (ms)")
    for r in results {
      let s = Summary(r.clockErrors)
      c.add("\(r.size)", "\(s.count)", s.text(3))
    }
    return (t, c)
  }
}
