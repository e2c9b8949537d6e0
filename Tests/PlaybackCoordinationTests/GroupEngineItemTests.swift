import PlaybackCoordination
import Testing

@Suite("Group engine: switching items and auto-advance")
struct GroupEngineItemTests {
  @Test("a manual switch needs the confirmation of the person who asked")
  func needsConfirmation() {
    var h = Harness.playing()
    #expect(
      h.rejected(.replace(series: harbour, item: s1e2, confirmed: false), bob, at: 10)
        == .needsConfirmation(s1e2))
  }

  @Test("a switch to an item not in the series is rejected, confirmed or not")
  func unknownItem() {
    var h = Harness.playing()
    #expect(
      h.rejected(.replace(series: harbour, item: "harbour/s9e9", confirmed: false), bob, at: 10)
        == .unknownItem("harbour/s9e9"))
    #expect(
      h.rejected(.replace(series: harbour, item: "harbour/s9e9", confirmed: true), bob, at: 10)
        == .unknownItem("harbour/s9e9"))
    let empty = SeriesInfo(id: "e", title: "E", items: [])
    #expect(
      h.rejected(.replace(series: empty, item: s1e2, confirmed: true), bob, at: 10) == .emptySeries)
  }

  @Test("a confirmed switch moves everyone to the new item and waits for their first loads")
  func replace() {
    var h = Harness.playing()
    let events = h.ok(.replace(series: harbour, item: s1e2, confirmed: true), bob, at: 10)
    #expect(events.kinds == [.replaced(from: s1e1, to: s1e2)])
    #expect(events.first?.originatorName == "bob")
    let session = h.session
    #expect(session.id == 1)
    #expect(session.item.id == s1e2)
    #expect(session.timeline == Timeline(itemTime: 0, groupTime: g(10), rate: 0))
    #expect(session.intendedRate == 1)
    #expect(session.status == .waiting)
    #expect(
      session.waits == [
        GroupWait(participant: alice, cause: .loading, since: g(10), deadline: g(70)),
        GroupWait(participant: bob, cause: .loading, since: g(10), deadline: g(70)),
      ])
    #expect(h.participant(alice).readiness == .loading && h.participant(bob).readiness == .loading)
    #expect(h.participant(carol).readiness == .ready && !h.participant(carol).isJoined)
    #expect(h.ok(.setReadiness(.ready), alice, at: 11).kinds == [.readinessChanged(.ready)])
    #expect(h.state.waitingFor == ["bob"])
    #expect(
      h.ok(.setReadiness(.ready), bob, at: 12).kinds == [
        .readinessChanged(.ready), .waitEnded(at: 0, startsAt: g(12.1)),
      ])
    #expect(h.session.status == .playing)
  }

  @Test("a switch while paused stays paused once everyone has loaded")
  func replaceWhilePaused() {
    var h = Harness.playing()
    h.ok(.pause(item: nil, at: 7.9), alice, at: 10)
    h.ok(.replace(series: harbour, item: s1e3, confirmed: true), alice, at: 11)
    #expect(h.session.intendedRate == 0)
    #expect(h.session.status == .paused)
    h.ok(.setReadiness(.ready), alice, at: 12)
    #expect(h.ok(.setReadiness(.ready), bob, at: 13).kinds == [.readinessChanged(.ready)])
    #expect(h.session.timeline == Timeline(itemTime: 0, groupTime: g(11), rate: 0))
  }

  @Test(
    "a switch from an episode the group finished plays the new one once everyone has loaded (going on watching), at the group's speed"
  )
  func replaceAfterTheEnd() {
    var h = Harness.playing()
    h.ok(.setRate(item: nil, rate: 1.25), alice, at: 5)
    h.tick(at: 600)
    #expect(h.session.status == .finished)
    h.ok(.replace(series: harbour, item: s1e2, confirmed: true), bob, at: 610)
    #expect(h.session.intendedRate == 1.25)
    #expect(h.session.status == .waiting)
    h.ok(.setReadiness(.ready), alice, at: 611)
    h.ok(.setReadiness(.ready), bob, at: 612)
    #expect(h.session.status == .playing)
    #expect(h.session.timeline.rate == 1.25)
  }

  @Test("a detached participant catches up on its own after a switch")
  func detachedCatchesUp() {
    var h = Harness.playing()
    h.ok(.beginSuspension(.interrupted), bob, at: 9)
    h.ok(.replace(series: harbour, item: s1e2, confirmed: true), alice, at: 10)
    #expect(h.session.waits.map(\.participant) == [alice])
    #expect(h.session.catchingUp == [bob])
    h.ok(.setReadiness(.ready), alice, at: 11)
    #expect(h.session.status == .playing)
    h.ok(.endSuspension(nil, proposing: nil), bob, at: 12)
    #expect(h.session.waits.isEmpty)
  }

  @Test("two advance requests for the same ending item switch once")
  func advanceOnce() {
    var h = Harness.playing()
    h.ok(.setAutoAdvance(true), bob, at: 5)
    let first = h.ok(.advance(endedItem: s1e1), alice, at: 601)
    #expect(first.kinds == [.autoAdvanced(from: s1e1, to: s1e2)])
    #expect(first.first?.originator == alice)
    #expect(h.rejected(.advance(endedItem: s1e1), bob, at: 601.2) == .advanceNotApplicable(s1e1))
    #expect(h.tick(at: 602.1).isEmpty)
    #expect(h.session.item.id == s1e2)
    #expect(h.session.waits.map(\.participant) == [alice, bob])
    #expect(h.session.intendedRate == 1)
  }

  @Test("an advance request and the group clock reaching the end count once")
  func advanceAndTickOnce() {
    var h = Harness.playing()
    h.ok(.setAutoAdvance(true), alice, at: 5)
    #expect(h.tick(at: 602.1).kinds == [.autoAdvanced(from: s1e1, to: s1e2)])
    #expect(h.rejected(.advance(endedItem: s1e1), bob, at: 602.3) == .advanceNotApplicable(s1e1))
  }

  @Test("an advance request far from the end is not applicable")
  func advanceTooEarly() {
    var h = Harness.playing()
    h.ok(.setAutoAdvance(true), alice, at: 5)
    #expect(h.rejected(.advance(endedItem: s1e1), alice, at: 598) == .advanceNotApplicable(s1e1))
    h.ok(.advance(endedItem: s1e1), alice, at: 599.1)
    #expect(h.session.item.id == s1e2)
  }

  @Test("the end tolerance is configurable")
  func endTolerance() {
    var h = Harness.playing(.init(endTolerance: 10))
    h.ok(.advance(endedItem: s1e1), alice, at: 592.1)
    #expect(h.session.reachedEnd)
  }

  @Test("an advance for another item is not applicable")
  func advanceOtherItem() {
    var h = Harness.playing()
    #expect(h.rejected(.advance(endedItem: s1e2), alice, at: 601) == .advanceNotApplicable(s1e2))
  }

  @Test("with nobody on auto-advance the group pauses at the end")
  func stopAtEnd() {
    var h = Harness.playing()
    #expect(h.engine.nextDeadline() == g(602.1))
    let events = h.tick(at: 602.1)
    #expect(events.kinds == [.reachedEnd(item: s1e1)])
    #expect(events.first?.originator == nil)
    #expect(h.session.timeline == Timeline(itemTime: 600, groupTime: g(602.1), rate: 0))
    #expect(h.session.reachedEnd && h.session.status == .finished)
    #expect(h.session.intendedRate == 0)
    #expect(h.engine.nextDeadline() == nil)
    #expect(h.rejected(.advance(endedItem: s1e1), bob, at: 603) == .advanceNotApplicable(s1e1))
    #expect(h.tick(at: 700).isEmpty)
  }

  @Test("an advance request with nobody on auto-advance stops at the end")
  func advanceRequestStops() {
    var h = Harness.playing()
    let events = h.ok(.advance(endedItem: s1e1), bob, at: 601)
    #expect(events.kinds == [.reachedEnd(item: s1e1)])
    #expect(events.first?.originator == bob)
    #expect(h.position(at: 601) == 600)
  }

  @Test("the last episode stops at the end even with auto-advance on")
  func lastEpisode() {
    var h = Harness.room()
    h.ok(.setAutoAdvance(true), alice, at: 0)
    h.ok(.start(series: harbour, item: s1e3), alice, at: 1)
    h.declineAll(at: 1.5)
    h.ok(.setReadiness(.ready), alice, at: 2)
    #expect(h.engine.nextDeadline() == g(302.1))
    #expect(h.tick(at: 302.1).kinds == [.reachedEnd(item: s1e3)])
    #expect(h.session.item.id == s1e3)
    #expect(h.session.status == .finished)
  }

  @Test("the group clock reaching the end auto-advances if anyone joined has it on")
  func tickAutoAdvances() {
    var h = Harness.playing()
    h.ok(.setAutoAdvance(true), bob, at: 5)
    let events = h.tick(at: 602.1)
    #expect(events.kinds == [.autoAdvanced(from: s1e1, to: s1e2)])
    #expect(events.first?.originator == nil)
    #expect(h.session.item.id == s1e2)
    #expect(h.session.timeline == Timeline(itemTime: 0, groupTime: g(602.1), rate: 0))
    #expect(h.session.status == .waiting)
    h.ok(.setReadiness(.ready), alice, at: 603)
    #expect(
      h.ok(.setReadiness(.ready), bob, at: 604).kinds.last == .waitEnded(at: 0, startsAt: g(604.1)))
    #expect(isClose(h.position(at: 614.1), 10))
  }

  @Test("auto-advance of someone not joined does not count")
  func notJoinedAutoAdvance() {
    var h = Harness.playing()
    h.ok(.setAutoAdvance(true), carol, at: 5)
    #expect(h.tick(at: 602.1).kinds == [.reachedEnd(item: s1e1)])
  }

  @Test("a late tick still ends the item once, where it ended")
  func lateTick() {
    var h = Harness.playing()
    #expect(h.tick(at: 650).kinds == [.reachedEnd(item: s1e1)])
    #expect(h.position(at: 650) == 600)
    #expect(h.tick(at: 651).isEmpty)
  }
}
