import PlaybackCoordination
import Testing

@testable import Media

private let long = SimulatedItem(id: "test/long", title: "Long", duration: 3000)
private let short = SimulatedItem(
  id: "test/short", title: "Short", duration: 10,
  subtitles: try! SubtitleTrack.parse(goodSRT))

private func player(_ configuration: SimulatedPlayerConfiguration) -> SimulatedPlayer {
  SimulatedPlayer(configuration: configuration) { id in
    [long, short].first { $0.id == id }
  }
}

private func t(_ seconds: Double) -> LocalInstant { LocalInstant(seconds: 1000 + seconds) }

@Suite("the simulated player")
struct SimulatedPlayerTests {
  @Test("drifts: +500 ppm is 0.5 s ahead after 1000 s, −200 ppm 0.2 s behind")
  func drift() {
    for (ppm, expected) in [(500.0, 1000.5), (-200, 999.8), (0, 1000)] {
      let p = player(
        .init(driftPPM: ppm, loadLatency: 0...0, playLatency: 0...0, seekLatency: 0...0))
      p.perform(.load(item: "test/long", at: 0), at: t(0))
      p.perform(.play(itemTime: 0, startAt: t(0), rate: 1), at: t(0))
      // Observing often or never must not matter.
      for s in stride(from: 1.0, to: 1000, by: 7) { _ = p.observe(at: t(s)) }
      let o = p.observe(at: t(1000))
      #expect(abs(o.position - expected) < 1e-6, "ppm \(ppm): \(o.position)")
      #expect(o.rate == 1)
      #expect(!o.isBusy)
    }
  }

  @Test("load takes its latency, busy meanwhile, then paused at the asked position")
  func loadLatency() {
    let p = player(.init(loadLatency: 0.5...0.5))
    #expect(p.observe(at: t(0)).item == nil)
    p.perform(.load(item: "test/long", at: 42), at: t(0))
    let during = p.observe(at: t(0.3))
    #expect(during.isBusy && during.item == "test/long" && during.rate == 0)
    #expect(p.snapshot(at: t(0.4)).state == .loading)
    let after = p.observe(at: t(0.5))
    #expect(!after.isBusy && after.position == 42 && after.rate == 0)
    #expect(p.snapshot(at: t(0.6)).state == .paused)
    #expect(p.takeEvents(at: t(1)) == [.loaded("test/long", at: t(0.5))])
  }

  @Test("play with a start far enough ahead prerolls and starts exactly on time")
  func prerolledStart() {
    let p = player(.init(loadLatency: 0...0, playLatency: 0.2...0.2))
    p.perform(.load(item: "test/long", at: 10), at: t(0))
    p.perform(.play(itemTime: 10, startAt: t(1), rate: 1), at: t(0))
    #expect(p.snapshot(at: t(0.1)).state == .starting)
    let waiting = p.observe(at: t(0.5))
    #expect(waiting.isBusy && waiting.position == 10 && waiting.rate == 0)
    let started = p.observe(at: t(1.5))
    #expect(!started.isBusy)
    #expect(abs(started.position - 10.5) < 1e-9)
  }

  @Test("play with a start already past starts after its latency, late by it")
  func lateStart() {
    let p = player(.init(loadLatency: 0...0, playLatency: 0.2...0.2))
    p.perform(.load(item: "test/long", at: 0), at: t(0))
    // The group started at 10 s item time 0.5 s ago.
    p.perform(.play(itemTime: 10, startAt: t(0.5), rate: 1), at: t(1))
    #expect(p.observe(at: t(1.1)).isBusy)
    let o = p.observe(at: t(2))
    // Where the group was when the command arrived (10.5) plus 0.8 s of playing.
    #expect(abs(o.position - 11.3) < 1e-9)
    // The group is at 11.5: the player is late by its latency.
    #expect(abs((10 + 1.5) - o.position - 0.2) < 1e-9)
  }

  @Test("play latency drawn from a range is reproducible with the same seed")
  func latencyRange() {
    func startPosition(seed: UInt64) -> Double {
      let p = player(.init(loadLatency: 0...0, playLatency: 0.1...0.4, seed: seed))
      p.perform(.load(item: "test/long", at: 0), at: t(0))
      p.perform(.play(itemTime: 0, startAt: t(0), rate: 1), at: t(0))
      return p.observe(at: t(1)).position
    }
    let a = startPosition(seed: 7)
    #expect(a == startPosition(seed: 7))
    #expect((0.6...0.9).contains(a))
  }

  @Test("seek keeps playing after its latency, from the new position")
  func seekLatency() {
    let p = player(.init(loadLatency: 0...0, playLatency: 0...0, seekLatency: 0.3...0.3))
    p.perform(.load(item: "test/long", at: 0), at: t(0))
    p.perform(.play(itemTime: 0, startAt: t(0), rate: 1), at: t(0))
    p.perform(.seek(to: 100), at: t(5))
    let during = p.observe(at: t(5.2))
    #expect(during.isBusy && during.position == 5 && during.rate == 0)
    #expect(p.snapshot(at: t(5.25)).state == .seeking)
    let after = p.observe(at: t(6.3))
    #expect(!after.isBusy && abs(after.position - 101) < 1e-9 && after.rate == 1)

    // Paused: a seek stays paused.
    p.perform(.pause(at: 200), at: t(7))
    p.perform(.seek(to: 50), at: t(8))
    let paused = p.observe(at: t(9))
    #expect(paused.position == 50 && paused.rate == 0 && !paused.isBusy)
  }

  @Test("pause stops at exactly the asked time; setRate changes speed in place")
  func pauseAndRate() {
    let p = player(.ideal)
    p.perform(.load(item: "test/long", at: 0), at: t(0))
    p.perform(.play(itemTime: 0, startAt: t(0), rate: 1), at: t(0))
    p.perform(.setRate(1.1), at: t(10))
    #expect(abs(p.observe(at: t(20)).position - 21) < 1e-9)
    #expect(p.observe(at: t(20)).rate == 1.1)
    p.perform(.pause(at: 20.5), at: t(20))
    #expect(p.observe(at: t(30)).position == 20.5)
    #expect(p.snapshot(at: t(30)).state == .paused)
    p.perform(.play(itemTime: 20.5, startAt: t(31), rate: 2), at: t(30))
    #expect(abs(p.observe(at: t(32)).position - 22.5) < 1e-9)
    p.perform(.unload, at: t(33))
    #expect(p.observe(at: t(34)) == PlayerObservation(item: nil, position: 0, rate: 0))
  }

  @Test("play while playing switches to the new target at its start, busy until then")
  func retarget() {
    let p = player(.init(loadLatency: 0...0, playLatency: 0.1...0.1))
    p.perform(.load(item: "test/long", at: 0), at: t(0))
    p.perform(.play(itemTime: 0, startAt: t(0), rate: 1), at: t(0))
    p.perform(.play(itemTime: 50, startAt: t(11), rate: 1), at: t(10))
    let before = p.observe(at: t(10.5))
    #expect(before.isBusy && before.rate == 1 && abs(before.position - 10.4) < 1e-9)
    let after = p.observe(at: t(12))
    #expect(!after.isBusy && abs(after.position - 51) < 1e-9)
  }

  @Test("stalls: seeded, reported, frozen during, then resumed where it froze")
  func stalls() throws {
    let config = SimulatedPlayerConfiguration(
      loadLatency: 0...0, playLatency: 0...0, seekLatency: 0...0, stallsPerSecond: 0.05,
      stallDuration: 2...2, seed: 42)
    let p = player(config)
    p.perform(.load(item: "test/long", at: 0), at: t(0))
    p.perform(.play(itemTime: 0, startAt: t(0), rate: 1), at: t(0))
    var stalledAt: Double?
    var frozen: Double?
    var s = 0.0
    while s < 500 {
      s += 0.1
      let o = p.observe(at: t(s))
      if o.isStalled {
        if stalledAt == nil {
          stalledAt = s
          frozen = o.position
        }
        #expect(o.position == frozen)
        #expect(o.rate == 0)
      } else if stalledAt != nil {
        break
      }
    }
    let began = try #require(stalledAt)
    let events = p.takeEvents(at: t(s))
    guard events.count >= 3, case .loaded = events[0], case .stallBegan(let b, let pos) = events[1],
      case .stallEnded(let e, let pos2) = events[2]
    else {
      Issue.record("events: \(events)")
      return
    }
    #expect(abs(b.seconds(since: t(0)) - pos) < 1e-6)  // no drift, started at 0
    #expect(pos == pos2 && pos == frozen)
    #expect(abs(e.seconds(since: b) - 2) < 1e-6)
    #expect(b.seconds(since: t(0)) <= began)
    // After the stall it plays on from where it froze: 2 s behind real time.
    let later = p.observe(at: e.advanced(bySeconds: 1))
    #expect(!later.isStalled && abs(later.position - (pos + 1)) < 1e-6)

    // The same seed gives the same stall, however often it is observed.
    let q = player(config)
    q.perform(.load(item: "test/long", at: 0), at: t(0))
    q.perform(.play(itemTime: 0, startAt: t(0), rate: 1), at: t(0))
    #expect(Array(q.takeEvents(at: t(s)).prefix(3)) == Array(events.prefix(3)))
  }

  @Test("a pause during a stall ends it and is reported")
  func pauseEndsStall() throws {
    let p = player(
      .init(
        loadLatency: 0...0, playLatency: 0...0, stallsPerSecond: 1, stallDuration: 100...100,
        seed: 3))
    p.perform(.load(item: "test/long", at: 0), at: t(0))
    p.perform(.play(itemTime: 0, startAt: t(0), rate: 1), at: t(0))
    #expect(p.observe(at: t(60)).isStalled)
    p.perform(.pause(at: 5), at: t(60))
    let o = p.observe(at: t(61))
    #expect(!o.isStalled && o.position == 5)
    let events = p.takeEvents(at: t(61))
    #expect(
      events.last
        == .stallEnded(
          at: t(60),
          position: events.compactMap {
            if case .stallBegan(_, let pos) = $0 { pos } else { nil }
          }.first!))
  }

  @Test("an injected stall begins at once while playing, or when it next plays, and lasts as asked")
  func injectedStall() {
    let p = player(.ideal)
    p.perform(.load(item: "test/long", at: 0), at: t(0))
    p.perform(.play(itemTime: 0, startAt: t(0), rate: 1), at: t(0))
    p.injectStall(duration: 4, at: t(10))
    #expect(p.observe(at: t(12)).isStalled && p.observe(at: t(12)).position == 10)
    let after = p.observe(at: t(15))
    #expect(!after.isStalled && abs(after.position - 11) < 1e-9)
    #expect(
      p.takeEvents(at: t(15)).suffix(2) == [
        .stallBegan(at: t(10), position: 10), .stallEnded(at: t(14), position: 10),
      ])

    // Paused: the stall waits for the next play.
    p.perform(.pause(at: 20), at: t(16))
    p.injectStall(duration: 2, at: t(17))
    #expect(!p.observe(at: t(18)).isStalled)
    p.perform(.play(itemTime: 20, startAt: t(19), rate: 1), at: t(19))
    #expect(p.observe(at: t(20)).isStalled && p.observe(at: t(20)).position == 20)
    #expect(abs(p.observe(at: t(22)).position - 21) < 1e-9)
  }

  @Test("stops at the end of the item and reports ended")
  func end() {
    let p = player(
      .init(driftPPM: 1000, loadLatency: 0...0, playLatency: 0...0, seekLatency: 0...0))
    p.perform(.load(item: "test/short", at: 0), at: t(0))
    p.perform(.play(itemTime: 8, startAt: t(0), rate: 1), at: t(0))
    let o = p.observe(at: t(5))
    #expect(o.position == 10 && o.rate == 0 && !o.isBusy)
    #expect(p.snapshot(at: t(5)).state == .ended)
    let endAt = 2 / 1.001
    #expect(
      p.takeEvents(at: t(6)).last == .ended("test/short", at: t(0).advanced(bySeconds: endAt)))
    // Seeking back resumes playing.
    p.perform(.seek(to: 1), at: t(6))
    #expect(abs(p.observe(at: t(7)).position - (1 + 1.001)) < 1e-9)
  }

  @Test("the snapshot shows the subtitle line and the pattern frame of the position")
  func snapshot() {
    let p = player(.ideal)
    p.perform(.load(item: "test/short", at: 0), at: t(0))
    p.perform(.play(itemTime: 0, startAt: t(0), rate: 1), at: t(0))
    let a = p.snapshot(at: t(1.5))
    #expect(a.subtitle == "Hello.")
    #expect(a.title == "Short" && a.duration == 10 && a.state == .playing)
    #expect(a.frame == TestPattern.frame(at: 1.5))
    #expect(p.snapshot(at: t(3.5)).subtitle == nil)
    #expect(p.snapshot(at: t(4.0)).subtitle == "Goodbye.")

    // Two players at the same position show the same frame; 100 ms apart they differ.
    let q = player(.ideal)
    q.perform(.load(item: "test/short", at: 0), at: t(0))
    q.perform(.play(itemTime: 0, startAt: t(0), rate: 1), at: t(0))
    #expect(q.snapshot(at: t(5)).frame == p.snapshot(at: t(5)).frame)
    q.perform(.seek(to: 5.2), at: t(5))
    #expect(q.snapshot(at: t(6)).frame != p.snapshot(at: t(6)).frame)
  }

  @Test("an unknown item leaves the player idle with a problem, reported as having no file")
  func unknownItem() {
    let p = player(.ideal)
    p.perform(.load(item: "test/nope", at: 0), at: t(0))
    let s = p.snapshot(at: t(1))
    #expect(s.state == .idle && s.item == nil && s.problem == "no file for test/nope")
    #expect(p.observe(at: t(1)).problem == PlayerObservation.noFile(for: "test/nope"))
    #expect(p.takeEvents(at: t(1)) == [.loadFailed("test/nope", at: t(0))])
  }

  @Test("a link is refused with a line that says what would play it")
  func link() {
    let p = player(.ideal)
    p.perform(.load(item: "https://media.example.org/harbour.mkv", at: 0), at: t(0))
    #expect(
      p.observe(at: t(1)).problem
        == "the simulated player cannot play links (media.example.org): join with --player mpv to watch it"
    )
  }
}
