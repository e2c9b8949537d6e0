import PlaybackCoordination
import Testing

@Suite("Group engine: ready checks and the countdown start")
struct GroupEngineReadyCheckTests {
  /// `playing()` with alice asking at t = 10 (position 7.9): the group pauses there.
  static func asked() -> Harness {
    var h = Harness.playing()
    h.ok(.askReady, alice, at: 10)
    return h
  }

  @Test("asking pauses a playing group where it is; the asker counts as ready; the rest are asked")
  func asking() {
    var h = Harness.playing()
    let events = h.ok(.askReady, alice, at: 10)
    #expect(
      events.kinds == [
        .paused(at: 10 - 2.1), .readyToWatchChanged(true), .readyCheckStarted(deadline: g(130)),
      ])
    #expect(h.session.timeline.rate == 0 && h.session.intendedRate == 0)
    #expect(h.session.readyCheck?.askedBy == alice && h.session.readyCheck?.askedByName == "alice")
    #expect(h.state.notReadyToWatch.map(\.id) == [bob], "carol is only in the room: not asked")
    #expect(h.engine.nextDeadline() == g(130))
    #expect(h.rejected(.askReady, bob, at: 11) != nil, "one check at a time")
  }

  @Test("when everyone asked is ready, the group starts together after the countdown")
  func allReady() {
    var h = Self.asked()
    let events = h.ok(.setReadyToWatch(true), bob, at: 20)
    #expect(
      events.kinds == [.readyToWatchChanged(true), .readyCheckEnded(.allReady, startsAt: g(23))])
    #expect(h.session.readyCheck == nil)
    #expect(h.session.countdown == g(23))
    #expect(h.session.intendedRate == 1)
    #expect(isClose(h.position(at: 22.9), 7.9), "holds until the countdown ends")
    #expect(isClose(h.position(at: 24), 8.9))
    #expect(h.session.lastPlaybackChange?.kind == .readyCheckEnded(.allReady, startsAt: g(23)))
  }

  @Test("the countdown is at least a coordinated start's delay")
  func countdownCoversTheStartDelay() {
    var h = Harness.playing(EngineConfiguration(readyCountdown: 0.5))
    h.ok(.report(roundTrip: 0.8, startupLatency: 0.2, playerOffset: nil), bob, at: 5)
    h.ok(.askReady, alice, at: 10)
    let events = h.ok(.setReadyToWatch(true), bob, at: 11)
    // 2 × 0.8 + 0.2 = 1.8 s > 0.5 s.
    #expect(events.last?.kind == .readyCheckEnded(.allReady, startsAt: g(12.8)))
  }

  @Test("the asker or the owner starts anyway (also by pressing play); nobody else can")
  func startAnyway() {
    var h = Self.asked()
    #expect(h.rejected(.startAnyway, bob, at: 11) != nil)
    #expect(
      h.ok(.startAnyway, alice, at: 12).kinds == [.readyCheckEnded(.startedAnyway, startsAt: g(15))]
    )

    var byPlay = Self.asked()
    #expect(
      byPlay.ok(.play(item: s1e1, rate: nil), alice, at: 12).kinds == [
        .readyCheckEnded(.startedAnyway, startsAt: g(15))
      ])

    // bob asks; alice owns the room.
    var owner = Harness.playing()
    owner.ok(.askReady, bob, at: 10)
    #expect(
      owner.ok(.startAnyway, alice, at: 11).last?.kind
        == .readyCheckEnded(.startedAnyway, startsAt: g(14)))
  }

  @Test("anyone else pressing play during a check says they are ready")
  func playSaysReady() {
    var h = Self.asked()
    let events = h.ok(.play(item: s1e1, rate: nil), bob, at: 12)
    #expect(
      events.kinds == [.readyToWatchChanged(true), .readyCheckEnded(.allReady, startsAt: g(15))])
  }

  @Test("taken back by the asker, or lapsed at the deadline: the group stays paused")
  func cancelledOrLapsed() {
    var h = Self.asked()
    #expect(h.rejected(.cancelReadyCheck, bob, at: 11) != nil)
    #expect(
      h.ok(.cancelReadyCheck, alice, at: 12).kinds == [.readyCheckEnded(.cancelled, startsAt: nil)])
    #expect(h.session.readyCheck == nil && h.session.timeline.rate == 0)
    #expect(h.rejected(.cancelReadyCheck, alice, at: 13) != nil, "nothing to take back")

    var lapsed = Self.asked()
    #expect(lapsed.tick(at: 129).isEmpty)
    #expect(lapsed.tick(at: 130).kinds == [.readyCheckEnded(.timedOut, startsAt: nil)])
    #expect(lapsed.session.readyCheck == nil && lapsed.session.intendedRate == 0)
    #expect(lapsed.engine.nextDeadline() == nil)
  }

  @Test("someone not ready who leaves the session, or loses the connection, is no longer asked")
  func presenceChanges() {
    var h = Self.asked()
    #expect(h.ok(.leave, bob, at: 12).last?.kind == .readyCheckEnded(.allReady, startsAt: g(15)))

    var offline = Self.asked()
    #expect(
      offline.ok(.setConnected(false), bob, at: 12).last?.kind
        == .readyCheckEnded(.allReady, startsAt: g(15)))

    // The asker leaves, then the last one asked drops out: nobody is left to answer.
    var nobody = Self.asked()
    #expect(nobody.ok(.leave, alice, at: 11).kinds == [.left], "bob is still asked")
    #expect(
      nobody.ok(.setConnected(false), bob, at: 12).last?.kind
        == .readyCheckEnded(.cancelled, startsAt: nil))
    #expect(nobody.state.session?.readyCheck == nil)
  }

  @Test("a Syncplay client through the bridge cannot be asked, so it is not waited for")
  func syncplayNotAsked() {
    var h = Harness.playing()
    h.ok(.enter(name: "dan", origin: .syncplay), "dan", at: 5)
    h.ok(.join, "dan", at: 5)
    h.ok(.setReadiness(.ready), "dan", at: 5.5)
    h.ok(.askReady, alice, at: 10)
    #expect(h.state.notReadyToWatch.map(\.id) == [bob])
  }

  @Test("only whoever may move playback asks, and only with something to start")
  func whoMayAsk() {
    var h = Harness.room()
    #expect(h.rejected(.askReady, alice, at: 1) == .noSession)
    var owned = Harness.playing()
    owned.ok(.setPlaybackControl(.owner), alice, at: 5)
    #expect(owned.rejected(.askReady, bob, at: 6) == .ownerControlsPlayback(owner: "alice"))
    #expect(owned.rejected(.setStartWhenAllReady(true), bob, at: 6) == .notOwner(owner: "alice"))
  }

  @Test("a play says ready, a pause takes it back; one's own answer any time")
  func ownAnswer() {
    var h = Harness.playing()
    h.ok(.pause(item: s1e1, at: 5), bob, at: 7.1)
    #expect(h.participant(bob).readyToWatch == false)
    h.ok(.play(item: s1e1, rate: nil), bob, at: 8)
    #expect(h.participant(bob).readyToWatch)
    #expect(h.ok(.setReadyToWatch(false), bob, at: 9).kinds == [.readyToWatchChanged(false)])
    #expect(h.ok(.setReadyToWatch(false), bob, at: 9).isEmpty, "no change, no event")
    #expect(h.ok(.setReadyToWatch(true), carol, at: 9).kinds == [.readyToWatchChanged(true)])
  }

  @Test("a room that starts only when all are ready turns a play into a check while someone is not")
  func startWhenAllReady() {
    var h = Harness.playing()
    #expect(h.rejected(.setStartWhenAllReady(true), bob, at: 5) == .notOwner(owner: "alice"))
    #expect(
      h.ok(.setStartWhenAllReady(true), alice, at: 5).kinds == [.startWhenAllReadyChanged(true)])
    h.ok(.pause(item: s1e1, at: 4), bob, at: 6.1)
    // bob paused, so he is not ready: alice's play asks him.
    let events = h.ok(.play(item: s1e1, rate: nil), alice, at: 7)
    #expect(events.kinds == [.readyToWatchChanged(true), .readyCheckStarted(deadline: g(127))])
    #expect(h.session.intendedRate == 0)
    // bob's own play says ready: everyone is, the countdown runs.
    #expect(
      h.ok(.play(item: s1e1, rate: nil), bob, at: 8).kinds == [
        .readyToWatchChanged(true), .readyCheckEnded(.allReady, startsAt: g(11)),
      ])
    // Once all are ready, a play is a play.
    h.ok(.pause(item: s1e1, at: 6), alice, at: 12)
    h.ok(.setReadyToWatch(true), alice, at: 13)
    #expect(
      h.ok(.play(item: s1e1, rate: nil), bob, at: 14).first?.kind
        == .played(at: 6, rate: 1, startsAt: g(14.1)))
  }

  @Test("a player still loading when all are ready is waited for first, as any start waits")
  func loadingFirst() {
    var h = Self.asked()
    h.ok(.setReadiness(.stalled), bob, at: 11)
    let events = h.ok(.setReadyToWatch(true), bob, at: 12)
    #expect(
      events.kinds == [
        .readyToWatchChanged(true), .readyCheckEnded(.allReady, startsAt: nil),
        .waitStarted(participant: bob, cause: .stalled),
      ])
    #expect(
      h.ok(.setReadiness(.ready), bob, at: 13).last?.kind == .waitEnded(at: 7.9, startsAt: g(13.1)))
  }

  @Test("anything else moving the group ends the countdown")
  func countdownEnds() {
    var h = Self.asked()
    h.ok(.setReadyToWatch(true), bob, at: 20)
    h.ok(.pause(item: s1e1, at: 7.9), bob, at: 21)
    #expect(h.session.countdown == nil)
  }
}
