import ArgumentParser
import Foundation
import GroupSessions
import MpvPlayer
import Participation
import PlaybackCoordination
import RelayRuntime
import Transports

/// Three real mpv players (`--vo=null --ao=null`) in one room on this machine, each told
/// speeds off by a few hundred ppm (as drifting sound cards would play them): how close
/// starts, pauses, seeks and steady playing keep them, read from each mpv's audio clock
/// (and, paused, from the frame it shows).
struct MpvCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "mpv", abstract: "Sync of three real mpv players (needs mpv and ffmpeg).")
  @OptionGroup var common: CommonOptions
  @Option(help: "Seconds of steady playing sampled.") var seconds = 60.0
  @Option(help: "Speed error injected into the players, ± ppm.") var driftPpm = 200.0
  @Option(help: "Rounds of pause, play and seek.") var rounds = 8

  func run() async throws {
    let seconds = common.smoke ? 3 : seconds
    let rounds = common.smoke ? 2 : rounds
    BenchLogging.setup()
    let clip = try Self.makeClip(seconds: 240)
    defer { try? FileManager.default.removeItem(atPath: clip) }
    let clock = MonotonicClock()
    let relay = InMemoryRelay(clock: clock)
    relay.start()
    var players: [MpvPlayer] = []
    var clients: [ParticipantClient] = []
    for (i, error) in [-driftPpm, 0, driftPpm].enumerated() {
      var configuration = MpvPlaybackMachine.Configuration()
      configuration.injectedSpeedError = error * 1e-6
      let player = try await MpvPlayer.launch(
        arguments: ["--vo=null", "--ao=null"], resolver: { _ in clip }, clock: clock,
        configuration: configuration)
      let client = ParticipantClient(
        transport: relay.transport, configuration: ParticipantConfiguration(name: "p\(i)"),
        player: player, clock: clock)
      try await client.start()
      players.append(player)
      clients.append(client)
    }
    let series = SeriesInfo(
      id: "clip", title: "Clip", items: [ItemInfo(id: "clip/e1", title: "Pattern", duration: 240)])
    func seen() -> [PlayerObservation] {
      let now = clock.localNow()
      return players.map { $0.observe(at: now) }
    }
    func spread() -> Double {
      let p = seen().map(\.position)
      return (p.max()! - p.min()!) * 1000
    }
    func until(_ seconds: Double, _ condition: () -> Bool) async -> Double? {
      let start = monoNow()
      while Double(monoNow() - start) / 1e9 < seconds {
        if condition() { return Double(monoNow() - start) / 1e9 }
        await sleepSeconds(0.002)
      }
      return nil
    }
    /// Spread every 10 ms for a second.
    func sampleSecond() async -> [Double] {
      var values: [Double] = []
      for _ in 0..<100 {
        values.append(spread())
        await sleepSeconds(0.01)
      }
      return values
    }
    _ = try await clients[0].send(.start(series: series, item: "clip/e1")).get()
    for c in clients.dropFirst() { _ = try await c.send(.join).get() }
    _ = await until(15) { seen().allSatisfy { $0.rate > 0 && !$0.isBusy } }
    await sleepSeconds(3)

    var startSpread: [Double] = []
    var seekSpread: [Double] = []
    var pauseFramesEqual = 0
    var pausePointError: [Double] = []
    var seekTogether: [Double] = []
    for round in 0..<rounds {
      _ = await clients[round % 3].pause()
      _ = await until(5) { seen().allSatisfy { $0.rate == 0 && !$0.isBusy } }
      let at = await clients[0].groupState.session?.timeline.itemTime ?? 0
      var frames: [Double] = []
      for p in players { frames.append(await p.property("time-pos")?.number ?? -1) }
      if frames.allSatisfy({ abs($0 - frames[0]) < 1e-6 }) { pauseFramesEqual += 1 }
      // mpv shows the frame at or just before the pause point.
      pausePointError.append(contentsOf: frames.map { (at - $0) * 1000 })
      _ = await clients[(round + 1) % 3].play()
      _ = await until(5) { seen().allSatisfy { $0.rate > 0 && !$0.isBusy } }
      startSpread += await sampleSecond()
      let seekStart = monoNow()
      let target = Double(30 + 20 * round)
      _ = await clients[(round + 2) % 3].seek(to: target)
      if await until(
        5, { seen().allSatisfy { $0.rate > 0 && !$0.isBusy && $0.position >= target } })
        != nil
      {
        if await until(5, { spread() < 2 }) != nil {
          seekTogether.append(Double(monoNow() - seekStart) / 1e6)
        }
        seekSpread += await sampleSecond()
      }
    }
    // Steady playing with the injected speed errors.
    var steady: [Double] = []
    let end = monoNow() + Int64(seconds * 1e9)
    while monoNow() < end {
      steady.append(spread())
      await sleepSeconds(0.01)
    }
    for c in clients { await c.stop() }
    for p in players { await p.stop() }
    await relay.stop()

    var t = Table("measure", "samples", "p50 / p99 / max (ms)")
    let rows: [(String, [Double])] = [
      ("spread in the second after a start (audio clocks)", startSpread),
      ("spread in the second after a seek while playing", seekSpread),
      ("spread, steady, ±\(Int(driftPpm)) ppm injected, \(Int(seconds)) s", steady),
      ("time from a seek to all within 2 ms", seekTogether),
      ("pause: group point − time-pos of the frame shown", pausePointError),
    ]
    for (name, values) in rows {
      let s = Summary(values)
      t.add(name, "\(s.count)", s.text(2))
    }
    t.add("pauses on the same frame in all three", "\(rounds)", "\(pauseFramesEqual) of \(rounds)")
    emit("mpv", t)
    Report.write(
      section: "mpv", title: "9. Three real mpv players",
      body: """
        Three `MpvPlayer`s (mpv 0.35, `--vo=null --ao=null`, a 24 fps test clip with a
        440 Hz tone) in one in-process room, each sent speeds off by −\(Int(driftPpm)), 0
        and +\(Int(driftPpm)) ppm (as drifting sound cards would play them); positions are
        the drivers' models of mpv's audio clock (read every 50 ms at the midpoint of
        request and reply), sampled every 10 ms; paused frames are mpv's own `time-pos`.
        \(rounds) rounds of pause, play and seek by different participants, then
        \(Int(seconds)) s of steady playing.

        \(t.markdown)
        """, smoke: common.smoke)
  }

  static func makeClip(seconds: Int) throws -> String {
    let path = FileManager.default.temporaryDirectory
      .appendingPathComponent("cowatch-bench-clip-\(getpid()).mp4").path
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    p.arguments = [
      "ffmpeg", "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i",
      "testsrc=size=160x120:rate=24", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000",
      "-t", "\(seconds)", "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a",
      "aac", "-shortest", path,
    ]
    try p.run()
    p.waitUntilExit()
    guard p.terminationStatus == 0 else {
      throw ValidationError("ffmpeg could not make the test clip (is ffmpeg installed?)")
    }
    return path
  }
}
