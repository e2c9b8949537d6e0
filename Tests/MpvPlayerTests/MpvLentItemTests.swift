import Clocks
import Foundation
import LendingEndpoint
import PlaybackCoordination
import SyncplayHarness
import TestSupport
import Testing

@testable import MpvPlayer

/// A real mpv reads a lent item as a borrower's player will: from its own loopback
/// endpoint, which reads the lender's range by range. It loads, plays on time, and seeks.
@Suite(
  "A real mpv plays an item lent through two endpoints", .serialized,
  .enabled(if: RealMpv.available), .timeLimit(.minutes(1)))
struct MpvLentItemTests {
  @Test("mpv loads the lent item through its own endpoint, plays it in time, and seeks")
  func playsAndSeeks() async throws {
    // A clip of its own: the session tests' one is made again by each (a suite running beside
    // them would find it half written).
    let clip = FileManager.default.temporaryDirectory
      .appendingPathComponent("cowatch-lent-clip-\(UInt64.random(in: 0...UInt64.max)).mp4").path
    try await blocking { try TestClip.make(clip, seconds: 30) }
    defer { try? FileManager.default.removeItem(atPath: clip) }
    // ann lends her file; carol's endpoint reads it from ann's, range by range, and
    // carol's mpv reads carol's endpoint.
    let lender = try await LoopbackItemEndpoint.start(
      serving: try FileItemSource(path: clip), as: "clip.mp4")
    let borrowed = try await RemoteItemSource.open(lender.url)
    let endpoint = try await LoopbackItemEndpoint.start(serving: borrowed, as: "clip.mp4")
    let clock = MonotonicClock()
    let player = try await MpvPlayer.launch(
      arguments: ["--vo=null", "--ao=null"],
      resolver: { _ in endpoint.url }, clock: clock)
    func until(_ what: String, _ condition: (PlayerObservation) -> Bool) async throws
      -> PlayerObservation
    {
      var seen = player.observe(at: clock.localNow())
      let came = await eventually(15) {
        seen = player.observe(at: clock.localNow())
        return condition(seen)
      }
      guard came else {
        Issue.record("no \(what) within 15 s: \(seen), endpoint \(endpoint.counts)")
        throw CancellationError()
      }
      return seen
    }
    let item = ItemID("lent/clip")
    player.perform(.load(item: item, at: 0), at: clock.localNow())
    let loaded = try await until("load") { $0.problem != nil || ($0.item == item && !$0.isBusy) }
    #expect(loaded.problem == nil)
    #expect(abs((loaded.fileDuration ?? 0) - 30) < 0.1)
    let start = clock.localNow().advanced(bySeconds: 0.5)
    player.perform(.play(itemTime: 0, startAt: start, rate: 1), at: clock.localNow())
    _ = try await until("playing past 2 s") { $0.rate > 0 && $0.position > 2 }
    // On time as a local file is: within a frame of where the start says it is.
    let now = clock.localNow()
    let seen = player.observe(at: now)
    #expect(abs(seen.position - now.seconds(since: start)) < 0.05, "\(seen)")
    player.perform(.seek(to: 20), at: clock.localNow())
    _ = try await until("the seek") { !$0.isBusy && $0.position >= 20 && $0.position < 22 }
    // mpv asks for the parts it needs (the index at the end of an mp4 first): whether a seek
    // asks again depends on what it still holds.
    #expect(endpoint.counts.ranges > 0, "\(endpoint.counts)")
    #expect(endpoint.counts.refused == 0 && lender.counts.refused == 0)
    #expect(lender.counts.ranges > 0, "\(lender.counts)")
    await player.stop()
    await endpoint.stop()
    await borrowed.close()
    await lender.stop()
  }

  @Test(
    "the subtitle files mpv would find beside the lender's video: found, and loaded beside the lent video by the borrower's mpv, for that file only; read 120 s ahead"
  )
  func lentSubtitles() async throws {
    let folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("cowatch-lent-sub-\(UInt64.random(in: 0...UInt64.max))")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let clip = folder.appendingPathComponent("Night.Ferry.S01E01.mp4").path
    try await blocking { try TestClip.make(clip, seconds: 10) }
    for name in ["Night.Ferry.S01E01.en.srt", "Night.Ferry.S01E01.fr.srt", "Other.srt"] {
      try "1\n00:00:01,000 --> 00:00:04,000\nAhoy\n\n".write(
        to: folder.appendingPathComponent(name), atomically: true, encoding: .utf8)
    }
    // The lender finds them as mpv would: the video's name, a language, an extension.
    let found = FileItemSource.subtitles(besides: clip)
    #expect(found.map(\.name) == ["Night.Ferry.S01E01.en.srt", "Night.Ferry.S01E01.fr.srt"])
    // The borrower's mpv reads the video from its endpoint and the files as they were
    // written for it.
    let endpoint = try await LoopbackItemEndpoint.start(
      serving: try FileItemSource(path: clip), as: "clip.mp4")
    let files = found.map(\.path)
    let clock = MonotonicClock()
    let item = ItemID("lent/clip")
    let player = try await MpvPlayer.launch(
      arguments: ["--vo=null", "--ao=null"], resolver: { _ in endpoint.url },
      fileOptions: { $0 == item ? MpvFileOptions(subtitles: files, readAhead: 120) : .init() },
      clock: clock)
    func external() async -> [String] {
      var names: [String] = []
      let count = Int(await player.property(.named("track-list/count"))?.number ?? 0)
      for index in 0..<count {
        if case .string(let file)? = await player.property(
          .named("track-list/\(index)/external-filename"))
        {
          names.append(file)
        }
      }
      return names
    }
    player.perform(.load(item: item, at: 0), at: clock.localNow())
    var seen: [String] = []
    let came = await eventually(15) {
      seen = await external()
      return seen == files
    }
    #expect(came, "mpv's external tracks: \(seen)")
    #expect(await player.property(.named("cache-secs"))?.number == 120)
    // The next file loaded has none of its own: none is carried over.
    let other = ItemID("lent/other")
    player.perform(.load(item: other, at: 0), at: clock.localNow())
    #expect(
      await eventually(15) {
        let seen = player.observe(at: clock.localNow())
        return seen.item == other && !seen.isBusy
      })
    #expect(await external().isEmpty)
    await player.stop()
    await endpoint.stop()
  }
}
