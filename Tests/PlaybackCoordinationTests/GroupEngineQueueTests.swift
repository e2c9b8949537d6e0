import PlaybackCoordination
import Testing

/// The room's shared queue in the engine: edits by entry number, who added what, bounds,
/// control, and auto-advance through it.
@Suite("Group engine: the shared queue")
struct GroupEngineQueueTests {
  @Test("add, move, remove and clear: by entry number, with who added each")
  func edits() {
    var h = Harness.room()
    let added = h.ok(.queueAdd(series: harbour, item: s1e2), bob, at: 1)
    #expect(added.kinds == [.queueAdded(entry: 1, item: s1e2)])
    h.ok(.queueAdd(series: harbour, item: s1e3), carol, at: 2)
    h.ok(.queueAdd(series: harbour, item: s1e1), alice, at: 3)
    #expect(h.state.queue.map(\.item) == [s1e2, s1e3, s1e1])
    #expect(h.state.queue.map(\.addedByName) == ["bob", "carol", "alice"])
    #expect(h.state.queue.map(\.id) == [1, 2, 3])
    // Moved to the top; a place past the end is the end.
    #expect(
      h.ok(.queueMove(entry: 3, to: 0), bob, at: 4).kinds == [
        .queueMoved(entry: 3, item: s1e1, to: 0)
      ])
    h.ok(.queueMove(entry: 1, to: 99), bob, at: 5)
    #expect(h.state.queue.map(\.id) == [3, 2, 1])
    // Moving where it is changes nothing, and says nothing.
    #expect(h.ok(.queueMove(entry: 1, to: 2), bob, at: 6).isEmpty)
    #expect(
      h.ok(.queueRemove(entry: 2), carol, at: 7).kinds == [.queueRemoved(entry: 2, item: s1e3)])
    #expect(h.rejected(.queueRemove(entry: 2), alice, at: 8) == .notInQueue(entry: 2))
    #expect(h.ok(.queueClear, alice, at: 9).kinds == [.queueCleared])
    #expect(h.state.queue.isEmpty && h.state.queueCounter == 3)
    // Numbers are never given twice.
    h.ok(.queueAdd(series: harbour, item: s1e2), bob, at: 10)
    #expect(h.state.queue.map(\.id) == [4])
  }

  @Test(
    "two people edit at once: sequenced one way, the second edit finds the entry gone, in words")
  func concurrentEdits() {
    var h = Harness.room()
    h.ok(.queueAdd(series: harbour, item: s1e2), bob, at: 1)
    h.ok(.queueAdd(series: harbour, item: s1e3), bob, at: 1)
    // bob removes entry 2 and carol moves it to the top, both having seen it: whichever
    // the relay sequences first applies; the other is refused and changes nothing.
    h.ok(.queueRemove(entry: 2), bob, at: 2)
    let refused = h.rejected(.queueMove(entry: 2, to: 0), carol, at: 2)
    #expect(refused?.description == "that is no longer in the queue")
    #expect(h.state.queue.map(\.id) == [1])
  }

  @Test("bounded: 100 entries, and about 256 KiB of titles")
  func bounds() {
    var h = Harness.room()
    for i in 0..<GroupState.maximumQueueEntries {
      h.ok(.queueAdd(series: harbour, item: s1e1), alice, at: Double(i) * 0.01)
    }
    #expect(h.rejected(.queueAdd(series: harbour, item: s1e1), alice, at: 2) != nil)
    var big = Harness.room()
    let long = String(repeating: "x", count: 200)
    let series = SeriesInfo(
      id: "big", title: long,
      items: (0..<1000).map { ItemInfo(id: ItemID("big/\($0)"), title: long, duration: 60) })
    var added = 0
    while case .success = big.engine.apply(
      .queueAdd(series: series, item: "big/1"), from: alice, at: g(1))
    {
      added += 1
    }
    #expect(added >= 1 && added < 5, "\(added) series of 1,000 long titles")
    #expect(big.rejected(.queueAdd(series: series, item: "big/1"), alice, at: 2) != nil)
  }

  @Test("under owner-only control only the owner edits the queue")
  func ownerOnly() {
    var h = Harness.room()
    h.ok(.setPlaybackControl(.owner), alice, at: 1)
    #expect(
      h.rejected(.queueAdd(series: harbour, item: s1e2), bob, at: 2)
        == .ownerControlsPlayback(owner: "alice"))
    h.ok(.queueAdd(series: harbour, item: s1e2), alice, at: 3)
    #expect(h.rejected(.queueClear, bob, at: 4) == .ownerControlsPlayback(owner: "alice"))
    #expect(h.rejected(.playQueued(entry: 1), bob, at: 5) == .ownerControlsPlayback(owner: "alice"))
  }

  @Test(
    "at the end of an item the group goes on to the queue's first entry, once; then to its series' next"
  )
  func autoAdvance() {
    var h = Harness.playing()
    h.ok(.setAutoAdvance(true), alice, at: 5)
    h.ok(.queueAdd(series: harbour, item: s1e3), bob, at: 6)
    // s1e1 (600 s) ends at 602.1: the group goes to s1e3 from the queue, not to s1e2.
    let events = h.tick(at: 602.1)
    #expect(events.kinds.filter { if case .autoAdvanced = $0 { true } else { false } }.count == 1)
    #expect(events.kinds.contains(.autoAdvanced(from: s1e1, to: s1e3)))
    #expect(h.session.item.id == s1e3 && h.state.queue.isEmpty)
    // Everyone loads it; its end (300 s) goes on as today: s1e3 is the series' last.
    h.ok(.setReadiness(.ready), alice, at: 603)
    h.ok(.setReadiness(.ready), bob, at: 603)
    let start = h.session.timeline.groupTime.seconds
    let end = h.tick(at: start + 300)
    #expect(end.kinds.contains(.reachedEnd(item: s1e3)))
  }

  @Test("nobody on auto-advance: the group stops at the end and the queue stays")
  func noAutoAdvance() {
    var h = Harness.playing()
    h.ok(.queueAdd(series: harbour, item: s1e3), bob, at: 6)
    let events = h.tick(at: 602.1)
    #expect(events.kinds.contains(.reachedEnd(item: s1e1)))
    #expect(h.state.queue.count == 1)
  }

  @Test(
    "play now: a switch for everyone (the entry leaves the queue); with nothing watched, a start")
  func playNow() {
    var h = Harness.playing()
    h.ok(.queueAdd(series: harbour, item: s1e3), carol, at: 5)
    let played = h.ok(.playQueued(entry: 1), bob, at: 6)
    #expect(played.kinds.contains(.queuePlayed(entry: 1, from: s1e1, to: s1e3)))
    #expect(h.session.item.id == s1e3 && h.state.queue.isEmpty)
    #expect(h.rejected(.playQueued(entry: 1), bob, at: 7) == .notInQueue(entry: 1))

    var idle = Harness.room()
    idle.ok(.queueAdd(series: harbour, item: s1e2), carol, at: 1)
    let started = idle.ok(.playQueued(entry: 1), carol, at: 2)
    #expect(
      started.kinds == [.sessionStarted(item: s1e2), .queuePlayed(entry: 1, from: nil, to: s1e2)])
    #expect(idle.session.item.id == s1e2 && idle.state.queue.isEmpty)
  }
}

@Suite("Group engine: a personal offset")
struct GroupEnginePersonalOffsetTests {
  @Test("set within ±10 s, told once; out of range refused; the timeline it follows is shifted")
  func offset() {
    var h = Harness.room()
    #expect(h.ok(.setPersonalOffset(0.2), bob, at: 1).kinds == [.personalOffsetChanged(0.2)])
    #expect(h.participant(bob).personalOffset == 0.2)
    #expect(h.ok(.setPersonalOffset(0.2), bob, at: 2).isEmpty, "no change, no event")
    #expect(h.rejected(.setPersonalOffset(10.5), bob, at: 3) != nil)
    #expect(h.rejected(.setPersonalOffset(.nan), bob, at: 3) != nil)

    // Playing from 10 at t = 5: 200 ms ahead is 10.2 then.
    let playing = Timeline(itemTime: 10, groupTime: g(5), rate: 1)
    #expect(isClose(playing.shifted(by: 0.2).position(at: g(6)), 11.2))
    // From the start, 200 ms behind: held at 0 until 200 ms after the group started.
    let start = Timeline(itemTime: 0, groupTime: g(5), rate: 1).shifted(by: -0.2)
    #expect(start.position(at: g(5.1)) == 0 && isClose(start.position(at: g(6)), 0.8))
    // Paused at 10: held at 10.2.
    #expect(
      Timeline(itemTime: 10, groupTime: g(5), rate: 0).shifted(by: 0.2).position(at: g(9)) == 10.2)
  }
}
