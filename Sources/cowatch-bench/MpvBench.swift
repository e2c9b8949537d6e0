import ArgumentParser
import Clocks
import Foundation
import LendingEndpoint
import MpvPlayer
import ParticipantRuntime
import Participation
import PlaybackCoordination
import RelayRuntime
import SyncplayHarness

/// Three real mpv players (`--vo=null --ao=null`) in one room on this machine, each told
/// speeds off by a few hundred ppm (as drifting sound cards would play them): how close
/// starts, pauses, seeks and steady playing keep them, read from each mpv's audio clock
/// (and, paused, from the frame it shows).
struct MpvBenchCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "mpv", abstract: "Sync of three real mpv players (needs mpv and ffmpeg).")
  @OptionGroup var common: CommonOptions
  @Option(help: "Seconds of steady playing sampled.") var seconds = 60.0
  @Option(help: "Speed error injected into the players, ± ppm.") var driftPpm = 200.0
  @Option(help: "Rounds of pause, play and seek.") var rounds = 8
  @Option(
    name: .customLong("offset-ms"),
    help:
      "The third player's personal offset, ms (as --offset): its position counts against the group's line shifted by it; the tables are printed, the document is left alone."
  )
  var offsetMilliseconds = 0.0
  @Flag(
    help:
      "Also run the workload with syncplay-server and Syncplay's own client driving mpv (installs Debian's syncplay; runs in `unshare -n`)."
  )
  var syncplay = false
  @Flag(
    help:
      "The third player borrows the clip, as a member without the file: from a lender's endpoint over TLS, through its own loopback endpoint (written as the lending section)."
  )
  var lent = false

  func run() async throws {
    if syncplay && !NetworkNamespace.isInside {
      try NetworkNamespace.ensureInstalled("syncplay-server", package: "syncplay-server")
      try NetworkNamespace.ensureInstalled("syncplay", package: "syncplay")
      try NetworkNamespace.rerunInside()
      return
    }
    let seconds = common.smoke ? 3 : seconds
    let rounds = common.smoke ? 2 : rounds
    BenchLogging.setup()
    let clip = FileManager.default.temporaryDirectory
      .appendingPathComponent("cowatch-bench-clip-\(getpid()).mp4").path
    try TestClip.make(clip, seconds: 300)
    defer { try? FileManager.default.removeItem(atPath: clip) }
    let clock = MonotonicClock()
    let relay = InMemoryRelay(clock: clock)
    relay.start()
    // Borrowed: the third player reads the lender's copy as a member without the file would.
    let lending = lent ? try await LentClip.open(clip) : nil
    var players: [MpvPlayer] = []
    var clients: [ParticipantClient] = []
    // Each player's personal offset, seconds: where it is meant to be beside the others.
    let offsets = [0, 0, offsetMilliseconds / 1000]
    for (i, error) in [-driftPpm, 0, driftPpm].enumerated() {
      var configuration = MpvPlaybackMachine.Configuration()
      configuration.injectedSpeedError = error * 1e-6
      let path = i == 2 ? lending?.url ?? clip : clip
      let options =
        i == 2 && lending != nil ? MpvFileOptions(readAhead: ItemLending.readAhead) : .init()
      let player = try await MpvPlayer.launch(
        arguments: ["--vo=null", "--ao=null"], resolver: { _ in path },
        fileOptions: { _ in options }, clock: clock, configuration: configuration)
      var participant = ParticipantConfiguration(name: "p\(i)")
      participant.personalOffset = offsets[i]
      let client = ParticipantClient(
        transport: relay.transport, configuration: participant, player: player, clock: clock)
      try await client.start()
      players.append(player)
      clients.append(client)
    }
    let series = SeriesInfo(
      id: "clip", title: "Clip", items: [ItemInfo(id: "clip/e1", title: "Pattern", duration: 300)])
    func seen() -> [PlayerObservation] {
      let now = clock.localNow()
      return players.map { $0.observe(at: now) }
    }
    func spread() -> Double {
      let p = zip(seen(), offsets).map { $0.position - $1 }
      return (p.max()! - p.min()!) * 1000
    }
    /// Finely, so that what is timed after it is not its polling.
    func until(_ seconds: Double, _ condition: () -> Bool) async -> Bool {
      await pollUntil(seconds, every: 0.002, condition)
    }
    /// Spread every 10 ms for a second, and into `line` how far the player furthest from
    /// the group's line is from it, ms (where a participant with another kind of player, or
    /// another file's frames, would be). The line and the clock estimate are read once:
    /// neither changes within the second, and reading them from the client's actor every
    /// 10 ms would compete with the players measured.
    func sampleSecond(line: inout [Double]) async -> [Double] {
      let estimate = await clients[0].clockEstimate
      let session = await clients[0].groupState.session
      var values: [Double] = []
      for _ in 0..<100 {
        values.append(spread())
        if let estimate, let session {
          let now = clock.localNow()
          let position = session.position(at: estimate.groupTime(at: now))
          line.append(
            zip(players, offsets).map { abs($0.observe(at: now).position - $1 - position) * 1000 }
              .max()!)
        }
        await sleepSeconds(0.01)
      }
      return values
    }
    let started = monoNow()
    _ = try await clients[0].send(.start(series: series, item: "clip/e1")).get()
    for c in clients.dropFirst() { _ = try await c.send(.join).get() }
    // When each player first has the clip loaded, ready to show its first frame.
    var firstFrame: [Double?] = [nil, nil, nil]
    _ = await until(15) {
      for (i, o) in seen().enumerated() where firstFrame[i] == nil && o.item != nil && !o.isBusy {
        firstFrame[i] = Double(monoNow() - started) / 1e6
      }
      return !firstFrame.contains(nil)
    }
    _ = await until(15) { seen().allSatisfy { $0.rate > 0 && !$0.isBusy } }
    await sleepSeconds(3)

    var startSpread: [Double] = []
    var startLine: [Double] = []
    var seekLine: [Double] = []
    var seekSpread: [Double] = []
    var pauseFramesEqual = 0
    var pausePointError: [Double] = []
    var seekTogether: [Double] = []
    var remotePause: [Double] = []
    // Each player's time from a seek to playing at the target (local ones, the borrower).
    var seekLocal: [Double] = []
    var seekBorrowed: [Double] = []
    for round in 0..<rounds {
      let originator = round % 3
      _ = await clients[originator].pause()
      _ = await until(5) { seen().allSatisfy { $0.rate == 0 && !$0.isBusy } }
      let at = await clients[0].groupState.session?.timeline.itemTime ?? 0
      var frames: [Double] = []
      for (p, offset) in zip(players, offsets) {
        frames.append((await p.property("time-pos")?.number ?? -1) - offset)
      }
      for i in 0..<3 where i != originator {
        remotePause.append((frames[i] - frames[originator]) * 1000)
      }
      if frames.allSatisfy({ abs($0 - frames[0]) < 1e-6 }) { pauseFramesEqual += 1 }
      // mpv shows the frame its exact seek landed on: mostly the first at or after the pause
      // point (negative here, up to a frame), sometimes one a few ms before it.
      pausePointError.append(contentsOf: frames.map { (at - $0) * 1000 })
      _ = await clients[(round + 1) % 3].play()
      _ = await until(5) { seen().allSatisfy { $0.rate > 0 && !$0.isBusy } }
      startSpread += await sampleSecond(line: &startLine)
      let seekStart = monoNow()
      let target = Double(30 + 20 * round)
      _ = await clients[(round + 2) % 3].seek(to: target)
      var arrived: [Double?] = [nil, nil, nil]
      if await until(
        5,
        {
          for (i, o) in seen().enumerated()
          where arrived[i] == nil && o.rate > 0 && !o.isBusy && o.position >= target {
            arrived[i] = Double(monoNow() - seekStart) / 1e6
          }
          return !arrived.contains(nil)
        })
      {
        seekLocal += arrived[0..<2].compactMap { $0 }
        seekBorrowed += arrived[2...].compactMap { $0 }
        if await until(5, { spread() < 2 }) {
          seekTogether.append(Double(monoNow() - seekStart) / 1e6)
        }
        seekSpread += await sampleSecond(line: &seekLine)
      }
    }
    // One player starts 100 ms late (as a slow machine would): how soon it is back in step.
    // From early in the clip, so that the steady minute after it ends before the clip does.
    _ = await clients[0].pause()
    _ = await until(5) { seen().allSatisfy { $0.rate == 0 && !$0.isBusy } }
    _ = await clients[0].seek(to: 10)
    _ = await until(5) { seen().allSatisfy { $0.rate == 0 && !$0.isBusy && $0.position >= 10 } }
    var lateStart: [Double] = []
    var lateGap: [Double] = []
    for _ in 0..<(common.smoke ? 1 : 3) {
      players[2].delayNextStart(by: 0.1)
      _ = await clients[1].play()
      _ = await until(5) { seen().allSatisfy { $0.rate > 0 && !$0.isBusy } }
      let started = monoNow()
      var largest = 0.0
      // Together once within 2 ms for 200 ms running.
      var since: Int64?
      while monoNow() - started < 10_000_000_000 {
        let s = spread()
        largest = max(largest, s)
        if s < 2 {
          if since == nil { since = monoNow() }
          if monoNow() - since! > 200_000_000 { break }
        } else {
          since = nil
        }
        await sleepSeconds(0.005)
      }
      if let since { lateStart.append(Double(since - started) / 1e6) }
      lateGap.append(largest)
      _ = await clients[0].pause()
      _ = await until(5) { seen().allSatisfy { $0.rate == 0 && !$0.isBusy } }
    }
    // Steady playing with the injected speed errors.
    _ = await clients[0].play()
    _ = await until(5) { seen().allSatisfy { $0.rate > 0 && !$0.isBusy } }
    var steady: [Double] = []
    var steadyEnd: [Double] = []
    let end = monoNow() + Int64(seconds * 1e9)
    while monoNow() < end {
      let s = spread()
      steady.append(s)
      if end - monoNow() < 1_000_000_000 { steadyEnd.append(s) }
      await sleepSeconds(0.01)
    }
    let elapsed = Double(monoNow() - started) / 1e9
    for c in clients { await c.stop() }
    for p in players { await p.stop() }
    await relay.stop()
    if let lending {
      await lending.close()
      LentClip.report(
        lending, elapsed: elapsed, seconds: seconds, firstFrame: firstFrame.map { $0 ?? .nan },
        seekLocal: seekLocal, seekBorrowed: seekBorrowed, startSpread: startSpread,
        seekSpread: seekSpread, steady: steady, smoke: common.smoke)
      return
    }

    var t = Table("measure", "samples", "p50 / p99 / max (ms)")
    let rows: [(String, [Double])] = [
      ("spread in the second after a start (audio clocks)", startSpread),
      ("the furthest from the group's line in the second after a start", startLine),
      ("spread in the second after a seek while playing", seekSpread),
      ("the furthest from the group's line in the second after a seek", seekLine),
      ("spread, steady, ±\(Int(driftPpm)) ppm injected, \(Int(seconds)) s", steady),
      ("time from a seek to all within 2 ms", seekTogether),
      ("pause: group point − time-pos of the frame shown", pausePointError),
      ("a remote pause: others' frame past the originator's", remotePause),
      ("one started 100 ms late: time to within 2 ms (held 200 ms)", lateStart),
      ("one started 100 ms late: largest spread seen", lateGap),
    ]
    for (name, values) in rows {
      let s = Summary(values)
      t.add(name, "\(s.count)", s.text(2))
    }
    t.add("pauses on the same frame in all three", "\(rounds)", "\(pauseFramesEqual) of \(rounds)")
    emit("mpv", t)
    var sideBySide = ""
    if syncplay {
      let s = try await SyncplayMpvRun(
        clip: clip, rounds: rounds, seconds: seconds, driftPpm: driftPpm
      ).run()
      var table = Table("measure", "Cowatch p50 / p99 / max (ms)", "Syncplay p50 / p99 / max (ms)")
      table.add(
        "a remote pause: where the others stop past the originator", Summary(remotePause).text(1),
        Summary(s.pauseOvershoot).text(1))
      table.add(
        "spread in the second after a start", Summary(startSpread).text(2),
        Summary(s.startSpread).text(2))
      table.add(
        "spread while playing \(Int(seconds)) s, ±\(Int(driftPpm)) ppm injected",
        Summary(steady).text(2), Summary(s.steadySpread).text(2))
      table.add(
        "spread in the last second of it", Summary(steadyEnd).text(2),
        Summary(s.endSpread).text(2))
      table.add("seeks mpv made while playing on", "–", "\(s.steadySeeks)")
      emit("mpv, Cowatch beside Syncplay \(s.version)", table)
      sideBySide = """

        **Beside Syncplay \(s.version).** The same clip, players and injected speed errors
        (given to Syncplay's mpv as `--speed`, which Syncplay's own slow-down resets to 1),
        with syncplay-server (`--disable-ready`, so that an unpause is not held for
        readiness, as in Cowatch) and three Syncplay clients (`syncplay --no-gui`, commands
        on stdin), all inside a network namespace with only loopback. Each mpv is read
        through a second connection to its IPC socket (audio clocks carried to one instant;
        paused frames from `time-pos`). \(rounds) rounds of a start by one client and a
        pause by another, then \(Int(seconds)) s of playing.

        \(table.markdown)
        """
    }
    Report.write(
      section: "mpv", title: "9. Three real mpv players",
      body: """
        Three `MpvPlayer`s (mpv 0.35, `--vo=null --ao=null`, a 24 fps test clip with a
        440 Hz tone) in one in-process room, each sent speeds off by −\(Int(driftPpm)), 0
        and +\(Int(driftPpm)) ppm (as drifting sound cards would play them); positions are
        the drivers' models of mpv's audio clock (read every 50 ms at the midpoint of
        request and reply), sampled every 10 ms; paused frames are mpv's own `time-pos`.
        \(rounds) rounds of pause, play and seek by different participants; three starts
        with one player's unpause sent 100 ms late (`MpvPlayer.delayNextStart(by:)`, as a
        machine slow to start would); then \(Int(seconds)) s of steady playing.

        \(t.markdown)\(sideBySide)
        """, smoke: common.smoke || offsetMilliseconds != 0)
  }
}
