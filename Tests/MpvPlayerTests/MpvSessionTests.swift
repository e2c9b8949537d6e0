import Foundation
import GroupSessions
import Participation
import PlaybackCoordination
import RelayRuntime
import Testing
import Transports

@testable import MpvPlayer

/// Real mpv and ffmpeg, when installed (`.ci/run` installs both, so CI always runs these).
enum RealMpv {
  static func find(_ name: String) -> String? {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    return path.split(separator: ":").map { "\($0)/\(name)" }
      .first { FileManager.default.isExecutableFile(atPath: $0) }
  }
  static let available = find("mpv") != nil && find("ffmpeg") != nil

  /// A 30 s clip (24 fps test pattern, a 440 Hz tone), made once per test run.
  static let clip: String? = {
    guard let ffmpeg = find("ffmpeg") else { return nil }
    let path = FileManager.default.temporaryDirectory
      .appendingPathComponent("cowatch-test-clip-\(getpid()).mp4").path
    let p = Process()
    p.executableURL = URL(fileURLWithPath: ffmpeg)
    p.arguments = [
      "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i",
      "testsrc=size=160x120:rate=24", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000",
      "-t", "30", "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac",
      "-shortest", path,
    ]
    p.standardOutput = FileHandle.nullDevice
    p.standardError = FileHandle.nullDevice
    guard (try? p.run()) != nil else { return nil }
    p.waitUntilExit()
    return p.terminationStatus == 0 ? path : nil
  }()

  static let series = SeriesInfo(
    id: "clip", title: "Test clip", items: [ItemInfo(id: "clip/e1", title: "Pattern", duration: 30)]
  )
}

@Suite(
  "Three participants watch with real mpv players", .serialized, .enabled(if: RealMpv.available),
  .timeLimit(.minutes(2)))
struct MpvSessionTests {
  /// Waits in real time (mpv runs in real time) until `condition` holds.
  func until(
    _ what: String, within seconds: Double = 10, _ condition: () async -> Bool
  ) async throws {
    let deadline = Date().addingTimeInterval(seconds)
    while !(await condition()) {
      guard Date() < deadline else {
        Issue.record("timed out waiting for \(what)")
        throw CancellationError()
      }
      try await Task.sleep(nanoseconds: 20_000_000)
    }
  }

  @Test("start together, a pause on one frame at the originator's time, a seek, a rate change")
  func watchTogether() async throws {
    let clip = try #require(RealMpv.clip, "ffmpeg could not make the test clip")
    let clock = MonotonicClock()
    let relay = InMemoryRelay(clock: clock)
    relay.start()
    var players: [MpvPlayer] = []
    var clients: [ParticipantClient] = []
    for name in ["ann", "bob", "cat"] {
      let player = try await MpvPlayer.launch(
        arguments: ["--vo=null", "--ao=null"], resolver: { _ in clip }, clock: clock)
      let client = ParticipantClient(
        transport: relay.transport, configuration: ParticipantConfiguration(name: name),
        player: player, clock: clock)
      try await client.start()
      players.append(player)
      clients.append(client)
    }
    func stopAll() async {
      for c in clients { await c.stop() }
      for p in players { await p.stop() }
      await relay.stop()
    }
    do {
      _ = try await clients[0].send(.start(series: RealMpv.series, item: "clip/e1")).get()
      for c in clients.dropFirst() { _ = try await c.send(.join).get() }
      func seen() -> [PlayerObservation] {
        let now = clock.localNow()
        return players.map { $0.observe(at: now) }
      }
      func spread() -> Double {
        let p = seen().map(\.position)
        return p.max()! - p.min()!
      }
      try await until("everyone plays") {
        seen().allSatisfy { $0.rate > 0 && !$0.isBusy }
      }
      // Started together, and kept so. (How close, and how soon, is measured by
      // `cowatch-bench mpv` on a quiet machine; beside a whole test suite on two cores only
      // loose bounds hold.)
      try await until("everyone together", within: 10) { spread() < 0.01 }

      // bob pauses: everyone stops on the same frame, at the item time bob's player showed.
      _ = try await clients[1].pause().get()
      try await until("everyone paused") {
        seen().allSatisfy { $0.rate == 0 && !$0.isBusy }
      }
      let pausedAt = try #require(await clients[0].groupState.session?.timeline.itemTime)
      var frames: [Double] = []
      for p in players {
        frames.append(try #require(await p.property("time-pos")?.number))
      }
      #expect(frames.allSatisfy { abs($0 - frames[0]) < 1e-6 }, "frames \(frames)")
      #expect(abs(frames[0] - pausedAt) < 1.0 / 24 + 1e-3, "frame \(frames[0]) for \(pausedAt)")

      // cat plays again, then seeks while playing: everyone lands on the new spot together.
      _ = try await clients[2].play().get()
      try await until("everyone plays again") { seen().allSatisfy { $0.rate > 0 && !$0.isBusy } }
      _ = try await clients[2].seek(to: 20).get()
      try await until("everyone at the new spot") {
        seen().allSatisfy { $0.rate > 0 && !$0.isBusy && $0.position >= 20 }
      }
      try await until("everyone together after the seek", within: 10) { spread() < 0.01 }

      // ann makes it faster: all bend at one instant and stay together.
      _ = try await clients[0].setRate(1.5).get()
      try await until("everyone at 1.5×") {
        seen().allSatisfy { abs($0.rate - 1.5) < 1.5 * 0.05 && !$0.isBusy }
      }
      try await until("everyone together at 1.5×", within: 10) { spread() < 0.01 }
      for p in players {
        // The rate mpv plays at: 1.5, give or take the controller's nudge (at most 5 %).
        let speed = try #require(await p.property("speed")?.number)
        #expect(abs(speed - 1.5) <= 1.5 * 0.05 + 1e-9, "speed \(speed)")
      }
      // bob presses space in his own mpv: the group pauses, with bob as who did it. (While
      // the driver itself holds mpv paused for a moment — re-syncing — there is nothing
      // to press: wait until everyone plays on undisturbed.)
      try await until("everyone plays undisturbed") {
        seen().allSatisfy { $0.rate > 0 && !$0.isBusy }
      }
      players[1].sendBehindTheDriver(["set_property", "pause", .bool(true)])
      try await until("the group paused by bob") {
        let change = await clients[0].groupState.lastChange
        return change?.originatorName == "bob"
          && change.map { "\($0.kind)" }?.contains("paused") == true
      }
      try await until("everyone paused") { seen().allSatisfy { $0.rate == 0 && !$0.isBusy } }
    } catch {
      await stopAll()
      throw error
    }
    await stopAll()
  }

  @Test("the end of the file advances the group to the next episode, and every mpv plays it")
  func endOfFileAdvances() async throws {
    let clip = try #require(RealMpv.clip, "ffmpeg could not make the test clip")
    let series = SeriesInfo(
      id: "clip", title: "Test clip",
      items: [
        ItemInfo(id: "clip/e1", title: "Pattern", duration: 30),
        ItemInfo(id: "clip/e2", title: "Pattern again", duration: 30),
      ])
    let clock = MonotonicClock()
    let relay = InMemoryRelay(clock: clock)
    relay.start()
    var players: [MpvPlayer] = []
    var clients: [ParticipantClient] = []
    for name in ["ann", "bob"] {
      let player = try await MpvPlayer.launch(
        arguments: ["--vo=null", "--ao=null"], resolver: { _ in clip }, clock: clock)
      let client = ParticipantClient(
        transport: relay.transport,
        configuration: ParticipantConfiguration(name: name, autoAdvance: true), player: player,
        clock: clock)
      try await client.start()
      players.append(player)
      clients.append(client)
    }
    func stopAll() async {
      for c in clients { await c.stop() }
      for p in players { await p.stop() }
      await relay.stop()
    }
    do {
      _ = try await clients[0].send(.start(series: series, item: "clip/e1")).get()
      _ = try await clients[1].send(.join).get()
      func seen() -> [PlayerObservation] {
        let now = clock.localNow()
        return players.map { $0.observe(at: now) }
      }
      try await until("everyone plays") { seen().allSatisfy { $0.rate > 0 && !$0.isBusy } }
      _ = try await clients[1].seek(to: 28).get()
      try await until("the group advanced to the next episode", within: 15) {
        await clients[0].groupState.session?.item.id == "clip/e2"
      }
      try await until("every mpv plays the next episode from its start", within: 15) {
        return seen().allSatisfy {
          $0.item == "clip/e2" && $0.rate > 0 && !$0.isBusy && $0.position < 10
        }
      }
    } catch {
      await stopAll()
      throw error
    }
    await stopAll()
  }

  @Test("mpv quitting is a problem the participant steps away with, not a stuck group")
  func mpvQuits() async throws {
    let clip = try #require(RealMpv.clip, "ffmpeg could not make the test clip")
    let player = try await MpvPlayer.launch(
      arguments: ["--vo=null", "--ao=null"], resolver: { _ in clip })
    let clock = MonotonicClock()
    player.perform(.load(item: "clip/e1", at: 3), at: clock.localNow())
    try await until("loaded") {
      let seen = player.observe(at: clock.localNow())
      return !seen.isBusy && seen.item == "clip/e1"
    }
    #expect(player.observe(at: clock.localNow()).position == 3)
    // Killed from outside, as a crash would.
    let pid = try #require(await player.property("pid")?.number)
    kill(pid_t(pid), SIGKILL)
    try await until("the problem is seen") {
      player.observe(at: clock.localNow()).problem != nil
    }
    #expect(player.observe(at: clock.localNow()).item == nil)
    await player.stop()
  }

  @Test("no mpv: one clear error, nothing left running")
  func missing() async {
    do {
      _ = try await MpvPlayer.launch(executable: "mpv-that-is-not-there", resolver: { _ in nil })
      Issue.record("launched a missing mpv")
    } catch {
      #expect(error.description.contains("not found on PATH"))
    }
  }
}
