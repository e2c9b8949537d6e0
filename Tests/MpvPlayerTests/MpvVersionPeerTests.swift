import Clocks
import Foundation
import PlaybackCoordination
import TestSupport
import Testing

@testable import MpvPlayer

/// The driver against a fake mpv (`Fixtures/fake-mpv`) that reads commands as a given mpv
/// version does: 0.35 (Debian 12's, as the real-mpv tests run), 0.38 (the `index` argument
/// before `options`), 0.40, and a 0.33 that is too old. Each loads a file, starts, pauses,
/// seeks and shows text, and every reply must be a success.
@Suite(.serialized) struct MpvVersionPeerTests {
  static let fake = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("Fixtures/fake-mpv").path

  /// A file the fake "plays" for 30 s (it reads only the name), and a directory for its logs.
  static func scratch() throws -> String {
    let dir = FileManager.default.temporaryDirectory
      .appendingPathComponent("cowatch-fake-mpv-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    _ = FileManager.default.createFile(atPath: dir + "/clip-30s.mp4", contents: Data())
    return dir
  }

  /// Waits (5 s at most, on the real clock: the fake runs in real time) for `condition`.
  static func until(
    _ player: MpvPlayer, _ clock: MonotonicClock, _ what: String,
    _ condition: (PlayerObservation) -> Bool
  ) async throws -> PlayerObservation {
    var seen = player.observe(at: clock.localNow())
    let came = await eventually(5) {
      seen = player.observe(at: clock.localNow())
      return condition(seen)
    }
    guard came else {
      Issue.record("no \(what) within 5 s: \(seen)")
      throw CancellationError()
    }
    return seen
  }

  @Test(
    "the driver's commands are read the same by mpv 0.35, 0.38 and 0.40",
    arguments: ["0.35.1", "0.38.0", "0.40.0"])
  func session(version: String) async throws {
    let dir = try Self.scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let clock = MonotonicClock()
    let player = try await MpvPlayer.launch(
      executable: Self.fake,
      arguments: ["--fake-version=\(version)", "--fake-osd-log=\(dir)/osd"],
      resolver: { _ in dir + "/clip-30s.mp4" }, clock: clock)
    let item = ItemID("clip/e1")
    player.perform(.load(item: item, at: 5), at: clock.localNow())
    let loaded = try await Self.until(player, clock, "load") {
      $0.problem != nil || ($0.item == item && !$0.isBusy)
    }
    #expect(loaded.problem == nil)
    #expect(abs(loaded.position - 5) < 0.05)
    #expect(loaded.fileDuration == 30)

    let start = clock.localNow().advanced(bySeconds: 0.2)
    player.perform(.play(itemTime: 5, startAt: start, rate: 1), at: clock.localNow())
    let playing = try await Self.until(player, clock, "play") {
      $0.problem != nil || ($0.rate > 0 && $0.position > 5.3)
    }
    #expect(playing.problem == nil)
    player.perform(.pause(at: 12), at: clock.localNow())
    let paused = try await Self.until(player, clock, "pause") {
      $0.problem != nil || ($0.rate == 0 && !$0.isBusy && abs($0.position - 12) < 0.01)
    }
    #expect(paused.problem == nil)
    player.showText("bob paused", seconds: 2)
    // Each command on its own gets mpv's success, named loadfile included.
    for command: MpvCommand in [
      .loadPaused(path: dir + "/clip-30s.mp4", start: 1.5), .seekExact(to: 3),
      .showText("ann seeked", milliseconds: 1000), .setSpeed(1.25), .get(.audioPTS),
    ] {
      let reply = await player.request(command)
      #expect(reply?.status == .success, "\(command) on \(version): \(String(describing: reply))")
    }
    let reported = await player.property(.named("mpv-version"))
    await player.stop()
    guard case .string(let text)? = reported else {
      Issue.record("no mpv-version: \(String(describing: reported))")
      return
    }
    #expect(MpvVersion(parsing: text)?.description == version)
    let osd = try String(contentsOfFile: dir + "/osd", encoding: .utf8)
    #expect(osd.contains("bob paused") && osd.contains("ann seeked"))
  }

  @Test(
    "the fake is strict: the old positional loadfile is refused by 0.38, a five-argument one by 0.35"
  )
  func positionalForms() async throws {
    let dir = try Self.scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let file = MpvValue.string(dir + "/clip-30s.mp4")
    let fourArguments: MpvCommand = ["loadfile", file, "replace", "start=1.5,pause=yes"]
    let fiveArguments: MpvCommand = [
      "loadfile", file, "replace", .number(-1), "start=1.5,pause=yes",
    ]
    for (version, refused, accepted) in [
      ("0.38.0", fourArguments, fiveArguments), ("0.35.1", fiveArguments, fourArguments),
    ] {
      let player = try await MpvPlayer.launch(
        executable: Self.fake, arguments: ["--fake-version=\(version)"],
        resolver: { _ in nil }, clock: MonotonicClock())
      let no = await player.request(refused)
      let yes = await player.request(accepted)
      await player.stop()
      #expect(no?.status == .failure("invalid parameter"), "\(version)")
      #expect(yes?.status == .success, "\(version)")
    }
  }

  @Test("an mpv older than 0.34 is refused at launch in one line, and nothing is left running")
  func tooOld() async throws {
    do {
      let player = try await MpvPlayer.launch(
        executable: Self.fake, arguments: ["--fake-version=0.33.1"], resolver: { _ in nil },
        clock: MonotonicClock())
      await player.stop()
      Issue.record("mpv 0.33.1 was accepted")
    } catch {
      #expect(
        error.description
          == "\(Self.fake) is mpv 0.33.1, too old for Cowatch: it needs mpv 0.34 or later (install a newer mpv, or use --player simulated)"
      )
    }
    // The refused mpv was quit, not left behind.
    let pgrep = Process()
    pgrep.executableURL = URL(fileURLWithPath: "/usr/bin/pgrep")
    pgrep.arguments = ["-f", "fake-version=0.33.1"]
    try pgrep.run()
    pgrep.waitUntilExit()
    #expect(pgrep.terminationStatus == 1, "a fake mpv 0.33.1 still runs")
  }
}
