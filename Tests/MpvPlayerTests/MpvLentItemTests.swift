import Clocks
import Foundation
import LendingEndpoint
import PlaybackCoordination
import Testing

@testable import MpvPlayer

/// A real mpv reads an item from the loopback endpoint a borrower's player will read a
/// lent item from: it loads, plays on time, and seeks, reading the item by byte ranges.
@Suite(
  "A real mpv plays an item from the loopback endpoint", .serialized,
  .enabled(if: RealMpv.available), .timeLimit(.minutes(1)))
struct MpvLentItemTests {
  @Test("mpv loads the item over HTTP by byte ranges, plays it in time, and seeks")
  func playsAndSeeks() async throws {
    let clip = try #require(await RealMpv.clip(), "ffmpeg could not make the test clip")
    defer { try? FileManager.default.removeItem(atPath: clip) }
    let endpoint = try await LoopbackItemEndpoint.start(
      serving: try FileItemSource(path: clip), as: "clip.mp4")
    let clock = MonotonicClock()
    let player = try await MpvPlayer.launch(
      arguments: ["--vo=null", "--ao=null"],
      resolver: { _ in endpoint.url }, clock: clock)
    func until(_ what: String, _ condition: (PlayerObservation) -> Bool) async throws
      -> PlayerObservation
    {
      let deadline = clock.nanoseconds() + 15_000_000_000
      while true {
        let seen = player.observe(at: clock.localNow())
        if condition(seen) { return seen }
        guard clock.nanoseconds() < deadline else {
          Issue.record("no \(what) within 15 s: \(seen), endpoint \(endpoint.counts)")
          throw CancellationError()
        }
        await clock.sleep(seconds: 0.02)
      }
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
    #expect(endpoint.counts.refused == 0)
    await player.stop()
    await endpoint.stop()
  }
}
