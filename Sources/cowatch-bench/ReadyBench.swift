import ArgumentParser
import Clocks
import Foundation
import Media
import MpvPlayer
import ParticipantRuntime
import Participation
import PlaybackCoordination
import RelayRuntime
import SyncplayHarness

/// A ready check's countdown start with five simulated players and two real mpv players in
/// one room: how far apart they start when the countdown ends, and that none starts early.
struct ReadyCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "ready",
    abstract:
      "Start spread after a ready check's countdown: five simulated and two mpv players (needs mpv and ffmpeg)."
  )
  @OptionGroup var common: CommonOptions
  @Option(help: "Ready checks measured.") var rounds = 20

  func run() async throws {
    let rounds = common.smoke ? 2 : rounds
    BenchLogging.setup()
    let clip = FileManager.default.temporaryDirectory
      .appendingPathComponent("cowatch-bench-ready-\(getpid()).mp4").path
    try TestClip.make(clip, seconds: 300)
    defer { try? FileManager.default.removeItem(atPath: clip) }
    let series = SeriesInfo(
      id: "clip", title: "Clip", items: [ItemInfo(id: "clip/e1", title: "Pattern", duration: 300)])
    let clock = MonotonicClock()
    let relay = InMemoryRelay(clock: clock)
    relay.start()
    // Simulated players with start-up latencies from 0 to 200 ms (the coordinated start
    // allows for each), then the two mpv.
    var players: [any PlayerDriver] = []
    for i in 0..<5 {
      let latency = Double(i) * 0.05
      players.append(
        SimulatedPlayer(
          configuration: SimulatedPlayerConfiguration(
            loadLatency: 0.1...0.1, playLatency: latency...latency, seekLatency: 0.05...0.05,
            seed: UInt64(i + 1)),
          itemResolver: { id in
            series.item(id).map { SimulatedItem(id: $0.id, title: $0.title, duration: $0.duration) }
          }))
    }
    var mpvs: [MpvPlayer] = []
    for _ in 0..<2 {
      let mpv = try await MpvPlayer.launch(
        arguments: ["--vo=null", "--ao=null"], resolver: { _ in clip }, clock: clock)
      mpvs.append(mpv)
      players.append(mpv)
    }
    var clients: [ParticipantClient] = []
    for (i, player) in players.enumerated() {
      let client = ParticipantClient(
        transport: relay.transport, configuration: ParticipantConfiguration(name: "p\(i)"),
        player: player, clock: clock)
      try await client.start()
      clients.append(client)
    }
    func positions() -> [Double] {
      let now = clock.localNow()
      return players.map { $0.observe(at: now).position }
    }
    func spread(_ p: [Double]) -> Double { (p.max()! - p.min()!) * 1000 }
    func settled(_ playing: Bool) -> Bool {
      let now = clock.localNow()
      return players.allSatisfy {
        let o = $0.observe(at: now)
        return (o.rate > 0) == playing && !o.isBusy
      }
    }
    _ = try await clients[0].send(.start(series: series, item: "clip/e1")).get()
    for c in clients.dropFirst() { _ = try await c.send(.join).get() }
    _ = await pollUntil(20) { settled(true) }
    await sleepSeconds(2)

    var all: [Double] = []
    var simulated: [Double] = []
    var real: [Double] = []
    var early = 0
    var failures = 0
    for round in 0..<rounds {
      // The asker changes; asking pauses the group, the others say ready one by one.
      let asker = round % clients.count
      _ = try await clients[asker].send(.askReady).get()
      _ = await pollUntil(5) { settled(false) }
      for (i, c) in clients.enumerated() where i != asker {
        _ = try await c.send(.setReadyToWatch(true)).get()
      }
      guard let estimate = await clients[0].clockEstimate,
        let countdown = await clients[0].groupState.session?.countdown
      else {
        failures += 1
        continue
      }
      let held = positions()
      let startsAt = estimate.localTime(at: countdown)
      let toStart = Double(startsAt.nanoseconds - clock.localNow().nanoseconds) / 1e9
      // A quarter second before the end: nobody has moved from where the group holds.
      await sleepSeconds(max(0, toStart - 0.25))
      // (A player may be preparing its start then; its picture must not have moved.)
      // (mpv's paused picture may still settle on the frame at the pause point, up to a
      // frame later: 40 ms at 25 fps.)
      if zip(positions(), held).contains(where: { abs($0 - $1) > 0.05 }) { early += 1 }
      await sleepSeconds(0.45)
      for _ in 0..<100 {
        let p = positions()
        all.append(spread(p))
        simulated.append(spread(Array(p[0..<5])))
        real.append(spread(Array(p[5...])))
        await sleepSeconds(0.01)
      }
      // Everyone said ready; a pause takes it back for the next round's question.
      _ = await clients[(round + 1) % clients.count].pause()
      _ = await pollUntil(5) { settled(false) }
    }
    for c in clients { await c.stop() }
    for p in mpvs { await p.stop() }
    await relay.stop()

    var t = Table("measure", "samples", "p50 / p99 / max (ms)")
    t.add(
      "spread of all seven, the second after the countdown", "\(all.count)", Summary(all).text(2))
    t.add("five simulated players", "\(simulated.count)", Summary(simulated).text(2))
    t.add("two mpv players", "\(real.count)", Summary(real).text(2))
    t.add("checks where a player moved before the countdown ended", "\(rounds)", "\(early)")
    if failures > 0 { t.add("checks that did not start a countdown", "\(rounds)", "\(failures)") }
    emit("A ready check's countdown start, five simulated and two mpv players", t)
    Report.write(
      section: "ready", title: "24. A ready check's countdown start",
      body: """
        Seven participants in one in-process room on the machine's monotonic clock: five
        simulated players (start-up latencies 0, 50, 100, 150 and 200 ms) and two
        `MpvPlayer`s (`--vo=null --ao=null`). Each round one of them asks whether everyone
        is ready (the group pauses), the other six say ready, and the group starts after the
        3-second countdown. A quarter second before the countdown ends no player may have
        moved from where the group holds (by more than a frame); from 0.2 s after it, the spread of the players' positions (the
        simulated players' models, mpv's audio clocks) every 10 ms for a second. \(rounds)
        checks.

        \(t.markdown)

        The countdown is a coordinated start scheduled further ahead: every player has
        three seconds to prepare, so the spread is that of any coordinated start (section 9
        for mpv), and the simulated players, which follow their model exactly, start at one
        instant.
        """, smoke: common.smoke)
  }
}
