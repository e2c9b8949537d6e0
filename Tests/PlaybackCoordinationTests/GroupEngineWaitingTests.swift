import PlaybackCoordination
import Testing

@Suite("Group engine: suspensions")
struct GroupEngineSuspensionTests {
  @Test("a suspension detaches the participant; the group goes on")
  func detaches() {
    var h = Harness.playing()
    let timeline = h.session.timeline
    let events = h.ok(.beginSuspension(.interrupted), bob, at: 10)
    #expect(events.kinds == [.suspended(.interrupted)])
    #expect(events.first?.originatorName == "bob")
    #expect(h.participant(bob).suspensions == [.interrupted])
    #expect(h.session.timeline == timeline)
    #expect(h.session.waits.isEmpty)
    #expect(h.session.status == .playing)
  }

  @Test("custom suspension reasons are kept as they are, oldest first")
  func customReasons() {
    var h = Harness.playing()
    h.ok(.beginSuspension("making tea"), bob, at: 10)
    h.ok(.beginSuspension(.userActionRequired), bob, at: 11)
    #expect(h.participant(bob).suspensions == ["making tea", .userActionRequired])
    #expect(h.session.waits.isEmpty)
  }

  @Test("a repeated suspension changes nothing")
  func repeated() {
    var h = Harness.playing()
    h.ok(.beginSuspension(.interrupted), bob, at: 10)
    let before = h.state
    #expect(h.ok(.beginSuspension(.interrupted), bob, at: 11).isEmpty)
    #expect(h.state == before)
  }

  @Test("suspensions need a joined participant in a session")
  func needsJoined() {
    var h = Harness.playing()
    #expect(h.rejected(.beginSuspension(.interrupted), carol, at: 10) == .notJoined)
    var room = Harness.room()
    #expect(room.rejected(.beginSuspension(.interrupted), alice, at: 1) == .noSession)
    #expect(room.rejected(.endSuspension(nil, proposing: nil), alice, at: 1) == .noSession)
  }

  @Test("a suspension for a waiting reason makes the group wait")
  func waitingReason() {
    var h = Harness.playing()
    let events = h.ok(.beginSuspension(.stallRecovery), bob, at: 10)
    #expect(
      events.kinds == [
        .suspended(.stallRecovery),
        .waitStarted(participant: bob, cause: .suspended(.stallRecovery)),
      ])
    #expect(
      h.session.waits == [
        GroupWait(
          participant: bob, cause: .suspended(.stallRecovery), since: g(10), deadline: g(20))
      ])
    #expect(h.session.timeline == Timeline(itemTime: 7.9, groupTime: g(10), rate: 0))
    #expect(h.session.status == .waiting)
    let resumed = h.ok(.endSuspension(nil, proposing: nil), bob, at: 12)
    #expect(resumed.kinds == [.resumed(nil), .waitEnded(at: 7.9, startsAt: g(12.1))])
  }

  @Test("the waiting reasons are configurable")
  func configurableReasons() {
    var h = Harness.playing(.init(waitingReasons: [.interrupted]))
    #expect(
      h.ok(.beginSuspension(.stallRecovery), alice, at: 9).kinds == [.suspended(.stallRecovery)])
    h.ok(.endSuspension(nil, proposing: nil), alice, at: 9.5)
    #expect(
      h.ok(.beginSuspension(.interrupted), bob, at: 10).kinds.last
        == .waitStarted(participant: bob, cause: .suspended(.interrupted)))
  }

  @Test("a detaching suspension alongside a waiting one means the group goes on")
  func detachWins() {
    var h = Harness.playing()
    h.ok(.beginSuspension(.stallRecovery), bob, at: 10)
    let events = h.ok(.beginSuspension(.interrupted), bob, at: 11)
    #expect(events.kinds == [.suspended(.interrupted), .waitEnded(at: 7.9, startsAt: g(11.1))])
  }

  @Test("a waiting suspension times out after the suspension wait timeout")
  func suspensionTimeout() {
    var h = Harness.playing(.init(suspensionWaitTimeout: 5))
    h.ok(.beginSuspension(.stallRecovery), bob, at: 10)
    #expect(h.engine.nextDeadline() == g(15))
    #expect(h.tick(at: 14.9).isEmpty)
    #expect(
      h.tick(at: 15).kinds == [
        .waitTimedOut(participant: bob), .waitEnded(at: 7.9, startsAt: g(15.1)),
      ])
    #expect(h.session.excused == [bob])
    #expect(h.participant(bob).suspensions == [.stallRecovery])
    #expect(
      h.ok(.endSuspension(.stallRecovery, proposing: nil), bob, at: 20).kinds == [
        .resumed(.stallRecovery)
      ])
    #expect(h.session.excused.isEmpty)
  }

  @Test("ending a suspension without a proposal leaves the group where it is")
  func resumeJumpsBack() {
    var h = Harness.playing()
    h.ok(.beginSuspension(.interrupted), bob, at: 10)
    let timeline = h.session.timeline
    #expect(
      h.ok(.endSuspension(.interrupted, proposing: nil), bob, at: 30).kinds == [
        .resumed(.interrupted)
      ])
    #expect(h.session.timeline == timeline)
    #expect(h.participant(bob).suspensions.isEmpty)
    h.ok(.pause(item: nil, at: 27.9), bob, at: 30)
  }

  @Test("ending a suspension proposing a time moves everyone there")
  func resumeProposing() {
    var h = Harness.playing()
    h.ok(.beginSuspension(.changingTime), bob, at: 10)
    let events = h.ok(.endSuspension(.changingTime, proposing: 120), bob, at: 15)
    #expect(events.kinds == [.resumedProposing(time: 120)])
    #expect(events.first?.originatorName == "bob")
    #expect(
      h.session.timeline
        == Timeline(itemTime: 120, groupTime: g(15.1), rate: 1, priorItemTime: 13, priorRate: 1))

    h.ok(.pause(item: nil, at: 125), alice, at: 20)
    h.ok(.beginSuspension(.changingTime), bob, at: 21)
    h.ok(.endSuspension(nil, proposing: 30), bob, at: 22)
    #expect(h.session.timeline == Timeline(itemTime: 30, groupTime: g(22), rate: 0))
  }

  @Test("a proposal from a waiting suspension moves the group and starts it")
  func resumeProposingFromWait() {
    var h = Harness.playing()
    h.ok(.beginSuspension(.stallRecovery), bob, at: 10)
    #expect(
      h.ok(.endSuspension(nil, proposing: 50), bob, at: 12).kinds == [.resumedProposing(time: 50)])
    #expect(h.session.waits.isEmpty)
    #expect(h.session.timeline == Timeline(itemTime: 50, groupTime: g(12.1), rate: 1))
  }

  @Test("ending a suspension one does not have is rejected")
  func notSuspended() {
    var h = Harness.playing()
    #expect(h.rejected(.endSuspension(nil, proposing: nil), bob, at: 10) == .notSuspended)
    h.ok(.beginSuspension(.interrupted), bob, at: 11)
    #expect(h.rejected(.endSuspension(.changingTime, proposing: nil), bob, at: 12) == .notSuspended)
  }

  @Test("a proposal while other suspensions remain is rejected")
  func proposalWhileSuspended() {
    var h = Harness.playing()
    h.ok(.beginSuspension(.interrupted), bob, at: 10)
    h.ok(.beginSuspension(.changingTime), bob, at: 11)
    #expect(
      h.rejected(.endSuspension(.changingTime, proposing: 100), bob, at: 12)
        == .suspended([.interrupted]))
  }

  @Test("a proposal outside the item is rejected")
  func proposalOutOfRange() {
    var h = Harness.playing()
    h.ok(.beginSuspension(.changingTime), bob, at: 10)
    #expect(
      h.rejected(.endSuspension(nil, proposing: 601), bob, at: 12)
        == .positionOutOfRange(position: 601, duration: 600))
  }
}

@Suite("Group engine: waiting for loads and stalls")
struct GroupEngineWaitingTests {
  @Test("a stall makes the group wait up to the re-buffer timeout", arguments: [10.0, 4])
  func rebuffer(timeout: Double) {
    var h = Harness.playing(.init(rebufferTimeout: timeout))
    let events = h.ok(.setReadiness(.stalled), bob, at: 10)
    #expect(
      events.kinds == [
        .readinessChanged(.stalled), .waitStarted(participant: bob, cause: .stalled),
      ])
    #expect(h.session.timeline == Timeline(itemTime: 7.9, groupTime: g(10), rate: 0))
    #expect(h.engine.nextDeadline() == g(10 + timeout))
    #expect(h.tick(at: 10 + timeout - 0.001).isEmpty)
    let ticked = h.tick(at: 10 + timeout)
    #expect(
      ticked.kinds == [
        .waitTimedOut(participant: bob), .waitEnded(at: 7.9, startsAt: g(10 + timeout + 0.1)),
      ])
  }

  @Test("a first load after a switch waits up to the first-load timeout", arguments: [60.0, 20])
  func firstLoad(timeout: Double) {
    var h = Harness.playing(.init(firstLoadTimeout: timeout))
    h.ok(.replace(series: harbour, item: s1e2, confirmed: true), alice, at: 10)
    #expect(h.session.waits.allSatisfy { $0.deadline == g(10 + timeout) })
    h.ok(.setReadiness(.ready), alice, at: 11)
    #expect(h.tick(at: 10 + timeout - 0.001).isEmpty)
    #expect(
      h.tick(at: 10 + timeout).kinds == [
        .waitTimedOut(participant: bob), .waitEnded(at: 0, startsAt: g(10 + timeout + 0.1)),
      ])
  }

  @Test("a stall during a first load keeps the first-load deadline")
  func stallDuringLoad() {
    var h = Harness.playing(.init(firstLoadTimeout: 30, rebufferTimeout: 5))
    h.ok(.replace(series: harbour, item: s1e2, confirmed: true), alice, at: 10)
    h.ok(.setReadiness(.stalled), bob, at: 12)
    #expect(
      h.session.waits.last
        == GroupWait(participant: bob, cause: .stalled, since: g(10), deadline: g(40)))
  }

  @Test("after a timeout the group goes on without the participant until it is ready again")
  func excusedUntilReady() {
    var h = Harness.playing()
    h.ok(.setReadiness(.stalled), bob, at: 10)
    h.tick(at: 20)
    #expect(h.session.excused == [bob])
    #expect(h.session.status == .playing)
    #expect(h.ok(.setReadiness(.loading), bob, at: 21).kinds == [.readinessChanged(.loading)])
    #expect(h.session.waits.isEmpty)
    h.ok(.setReadiness(.ready), bob, at: 22)
    #expect(h.session.excused.isEmpty)
    #expect(
      h.ok(.setReadiness(.stalled), bob, at: 30).kinds.last
        == .waitStarted(participant: bob, cause: .stalled))
  }

  @Test("a stall while paused does not make the group wait")
  func stallWhilePaused() {
    var h = Harness.playing()
    h.ok(.pause(item: nil, at: 7.9), alice, at: 10)
    #expect(h.ok(.setReadiness(.stalled), bob, at: 11).kinds == [.readinessChanged(.stalled)])
    #expect(h.session.waits.isEmpty)
    #expect(h.engine.nextDeadline() == nil)
  }

  @Test("the group starts only once the last one it waits for is ready")
  func waitsForAll() {
    var h = Harness.playing()
    h.ok(.setReadiness(.stalled), alice, at: 10)
    h.ok(.setReadiness(.stalled), bob, at: 11)
    #expect(h.state.waitingFor == ["alice", "bob"])
    #expect(h.ok(.setReadiness(.ready), alice, at: 12).kinds == [.readinessChanged(.ready)])
    #expect(h.session.status == .waiting)
    #expect(h.state.waitingFor == ["bob"])
    #expect(
      h.ok(.setReadiness(.ready), bob, at: 13).kinds.last == .waitEnded(at: 7.9, startsAt: g(13.1)))
  }

  @Test("a participant that detaches is no longer waited for")
  func detachEndsWait() {
    var h = Harness.playing()
    h.ok(.setReadiness(.stalled), bob, at: 10)
    #expect(
      h.ok(.beginSuspension(.interrupted), bob, at: 11).kinds == [
        .suspended(.interrupted), .waitEnded(at: 7.9, startsAt: g(11.1)),
      ])
  }

  @Test("a repeated readiness report changes nothing")
  func repeatedReadiness() {
    var h = Harness.playing()
    h.ok(.setReadiness(.stalled), bob, at: 10)
    let before = h.state
    #expect(h.ok(.setReadiness(.stalled), bob, at: 11).isEmpty)
    #expect(h.state == before)
  }

  @Test("readiness needs a joined participant in a session")
  func readinessNeedsJoined() {
    var h = Harness.playing()
    #expect(h.rejected(.setReadiness(.ready), carol, at: 10) == .notJoined)
    var room = Harness.room()
    #expect(room.rejected(.setReadiness(.ready), alice, at: 1) == .noSession)
  }
}
