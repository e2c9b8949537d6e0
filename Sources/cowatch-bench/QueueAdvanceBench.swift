import ArgumentParser
import Clocks
import Foundation
import MpvPlayer
import ParticipantRuntime
import Participation
import PlaybackCoordination
import RelayRuntime
import SyncplayHarness

/// Auto-advance into the room's queue with three real mpv players: from the instant the
/// group's item ends to every player playing the queue's first entry, and to all of them
/// within 2 ms of each other.
struct QueueAdvanceCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "queue-advance",
    abstract:
      "Auto-advance to the queue's next item on three real mpv players (needs mpv and ffmpeg).")
  @OptionGroup var common: CommonOptions
  @Option(help: "Advances measured.") var rounds = 8

  func run() async throws {
    let rounds = common.smoke ? 1 : rounds
    BenchLogging.setup()
    let dir = FileManager.default.temporaryDirectory
      .appendingPathComponent("cowatch-bench-advance-\(getpid())")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    // The episode playing ends; the queued film (another clip, another tone) comes next.
    let episode = dir.appendingPathComponent("episode.mp4").path
    let film = dir.appendingPathComponent("film.mp4").path
    try TestClip.make(episode, seconds: 12)
    try TestClip.make(film, seconds: 30, tone: 660)
    let show = SeriesInfo(
      id: "show", title: "Show",
      items: [ItemInfo(id: "show/e1", title: "Pilot", duration: 12)])
    let films = SeriesInfo(
      id: "films", title: "Films", items: [ItemInfo(id: "films/f1", title: "Feature", duration: 30)]
    )
    let paths: [ItemID: String] = ["show/e1": episode, "films/f1": film]
    let clock = MonotonicClock()
    let relay = InMemoryRelay(clock: clock)
    relay.start()
    var players: [MpvPlayer] = []
    var clients: [ParticipantClient] = []
    for i in 0..<3 {
      let player = try await MpvPlayer.launch(
        arguments: ["--vo=null", "--ao=null"], resolver: { paths[$0] }, clock: clock)
      let client = ParticipantClient(
        transport: relay.transport,
        configuration: ParticipantConfiguration(name: "p\(i)", autoAdvance: i == 0),
        player: player, clock: clock)
      try await client.start()
      players.append(player)
      clients.append(client)
    }
    func seen() -> [PlayerObservation] {
      let now = clock.localNow()
      return players.map { $0.observe(at: now) }
    }
    func spread() -> Double {
      let p = seen().map(\.position)
      return (p.max()! - p.min()!) * 1000
    }
    var playing: [Double] = []
    var together: [Double] = []
    var after: [Double] = []
    var failures = 0
    for _ in 0..<rounds {
      _ = try await clients[0].send(.start(series: show, item: "show/e1")).get()
      for c in clients.dropFirst() { _ = try await c.send(.join).get() }
      _ = await pollUntil(15) {
        seen().allSatisfy { $0.item == "show/e1" && $0.rate > 0 && !$0.isBusy }
      }
      _ = try await clients[1].send(.queueAdd(series: films, item: "films/f1")).get()
      // Near the end, then to its end: when the line reaches 12 s, in local time.
      _ = try await clients[2].seek(to: 9).get()
      _ = await pollUntil(5) {
        seen().allSatisfy { $0.position >= 9 && $0.rate > 0 && !$0.isBusy }
      }
      guard let estimate = await clients[0].clockEstimate,
        let session = await clients[0].groupState.session
      else { throw BenchError("no clock estimate or session") }
      let endsAt = estimate.localTime(
        at: session.timeline.groupTime.advanced(
          bySeconds: (12 - session.timeline.itemTime) / session.timeline.rate))
      let nanosecondsToEnd = endsAt.nanoseconds - clock.localNow().nanoseconds
      let endMono = monoNow() + nanosecondsToEnd
      let advanced = await pollUntil(20, every: 0.002) {
        seen().allSatisfy { $0.item == "films/f1" && $0.rate > 0 && !$0.isBusy }
      }
      guard advanced else {
        failures += 1
        continue
      }
      playing.append(Double(monoNow() - endMono) / 1e6)
      if await pollUntil(10, every: 0.002, { spread() < 2 }) {
        together.append(Double(monoNow() - endMono) / 1e6)
      }
      for _ in 0..<100 {
        after.append(spread())
        await sleepSeconds(0.01)
      }
      // It was the queue's entry, taken off the queue; counted once.
      let state = await clients[0].groupState
      guard state.queue.isEmpty, state.session?.item.id == "films/f1" else {
        throw BenchError("the advance did not take the queued entry once")
      }
    }
    for c in clients { await c.stop() }
    for p in players { await p.stop() }
    await relay.stop()

    var t = Table("measure", "samples", "p50 / p99 / max (ms)")
    t.add(
      "from the episode's end to all three playing the queued film", "\(playing.count)",
      Summary(playing).text(1))
    t.add(
      "from the episode's end to all three within 2 ms", "\(together.count)",
      Summary(together).text(1))
    t.add("spread in the second after", "\(after.count)", Summary(after).text(2))
    if failures > 0 {
      t.add("advances that did not reach every player in 20 s", "\(rounds)", "\(failures)")
    }
    emit("Auto-advance into the queue, three mpv players", t)
    Report.write(
      section: "queue-advance", title: "20. Auto-advance into the queue with real mpv",
      body: """
        Three `MpvPlayer`s (mpv 0.35, `--vo=null --ao=null`) in one in-process room, one
        with auto-advance on. Each round: a 12 s episode starts, another participant
        queues a 30 s film (another clip), a third seeks to 0:09; at the episode's end the
        group goes on to the queue's first entry (auto-advance takes it before the series'
        next), every mpv loads the film and all start it together. Timed from the instant
        the group's line reached the episode's end (the first participant's clock estimate,
        carried to this process's monotonic clock) to every player showing the film playing
        (the drivers' models of mpv's audio clocks), and to all three within 2 ms of each
        other; then the spread every 10 ms for a second. \(rounds) rounds.

        \(t.markdown)

        The time to playing is the players' end-of-item report reaching the relay, every
        mpv loading the film and saying it is ready, and the coordinated start's lead (at
        least 100 ms, `minimumStartDelay`) that lets all three start at one instant: they
        start together, so both rows are the same.
        """, smoke: common.smoke)
  }
}
