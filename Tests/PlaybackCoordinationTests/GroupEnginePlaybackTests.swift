import PlaybackCoordination
import Testing

let moveCommands: [GroupCommand] = [
  .play(item: nil, rate: nil), .pause(item: nil, at: 5), .seek(item: nil, to: 5),
  .setRate(item: nil, rate: 1.5), .replace(series: harbour, item: s1e2, confirmed: true),
  .advance(endedItem: s1e1),
]

@Suite("Group engine: who may move the group")
struct GroupEnginePermissionTests {
  @Test("only joined participants move the group", arguments: moveCommands)
  func notJoined(command: GroupCommand) {
    var h = Harness.playing()
    #expect(h.rejected(command, carol, at: 10) == .notJoined)
  }

  @Test("a suspended participant cannot move the group", arguments: moveCommands)
  func suspended(command: GroupCommand) {
    var h = Harness.playing()
    h.ok(.beginSuspension(.interrupted), bob, at: 5)
    h.ok(.beginSuspension("phone"), bob, at: 6)
    #expect(h.rejected(command, bob, at: 10) == .suspended([.interrupted, "phone"]))
  }

  @Test("playback commands need a session", arguments: moveCommands)
  func noSession(command: GroupCommand) {
    var h = Harness.room()
    #expect(h.rejected(command, alice, at: 1) == .noSession)
  }

  @Test("position commands meant for another item are stale")
  func staleItem() {
    var h = Harness.playing()
    let stale: [GroupCommand] = [
      .play(item: s1e2, rate: nil), .pause(item: s1e2, at: 5), .seek(item: s1e2, to: 5),
      .setRate(item: s1e2, rate: 2),
    ]
    for command in stale {
      #expect(h.rejected(command, alice, at: 10) == .staleItem(sent: s1e2, current: s1e1))
    }
    h.ok(.seek(item: s1e1, to: 5), alice, at: 11)
  }

  @Test("every rejection leaves the whole state identical")
  func rejectionsChangeNothing() {
    // A busy state: a wait, an excuse, suspensions, reports.
    var h = Harness.playing(.init(rebufferTimeout: 2))
    h.ok(.join, carol, at: 5)
    h.ok(.report(roundTrip: 0.1, startupLatency: 0.2, playerOffset: 0.01), alice, at: 5)
    h.ok(.setReadiness(.stalled), bob, at: 6)
    h.tick(at: 8)
    h.ok(.beginSuspension(.interrupted), carol, at: 9)
    h.ok(.beginSuspension(.stallRecovery), alice, at: 9)
    #expect(!h.session.waits.isEmpty && !h.session.excused.isEmpty)
    let cases: [(GroupCommand, ParticipantID)] = [
      (.enter(name: "x"), alice), (.enter(name: ""), "dave"), (.join, bob), (.leave, "mallory"),
      (.play(item: nil, rate: nil), alice), (.play(item: nil, rate: 9), bob),
      (.pause(item: nil, at: -1), bob), (.seek(item: nil, to: 601), bob),
      (.seek(item: s1e3, to: 1), bob), (.setRate(item: nil, rate: 0), bob),
      (.replace(series: harbour, item: s1e2, confirmed: false), bob),
      (.replace(series: harbour, item: "nope", confirmed: true), bob),
      (.advance(endedItem: s1e1), bob), (.advance(endedItem: s1e2), bob),
      (.endSuspension(nil, proposing: nil), bob),
      (.endSuspension(.interrupted, proposing: nil), alice),
      (.endSuspension(.interrupted, proposing: 700), carol),
      (.start(series: harbour, item: "nope"), bob),
      (.report(roundTrip: -1, startupLatency: 0, playerOffset: nil), bob),
      (.beginSuspension(""), bob),
    ]
    for (command, participant) in cases {
      let before = h.state
      let result = h.engine.apply(command, from: participant, at: g(10))
      guard case .failure = result else {
        Issue.record("\(command) from \(participant) was accepted")
        continue
      }
      #expect(h.state == before, "\(command) from \(participant) changed the state")
    }
  }
}

@Suite("Group engine: coordinated start")
struct GroupEngineStartTests {
  /// Paused at 7.9 at t = 10, then played at t = 20.
  func playedAfterPause(
    _ configuration: EngineConfiguration = .init(), reports: [(ParticipantID, Double, Double)]
  ) -> (Harness, [ChangeEvent]) {
    var h = Harness.playing(configuration)
    h.ok(.join, carol, at: 5)
    h.ok(.setReadiness(.ready), carol, at: 5)
    for (id, roundTrip, latency) in reports {
      h.ok(.report(roundTrip: roundTrip, startupLatency: latency, playerOffset: nil), id, at: 6)
    }
    h.ok(.pause(item: s1e1, at: 7.9), alice, at: 10)
    let events = h.ok(.play(item: s1e1, rate: nil), alice, at: 20)
    return (h, events)
  }

  @Test("a start is scheduled 2 × the highest round-trip plus the highest start-up latency ahead")
  func delayFormula() {
    let (h, events) = playedAfterPause(reports: [
      (alice, 0.2, 0.1), (bob, 0.5, 0.05), (carol, 0.1, 0.3),
    ])
    #expect(events.kinds == [.played(at: 7.9, rate: 1, startsAt: g(21.3))])
    #expect(h.session.timeline == Timeline(itemTime: 7.9, groupTime: g(21.3), rate: 1))
  }

  @Test("participants in the room but not joined do not delay the start")
  func onlyJoinedCount() {
    var h = Harness.playing()
    h.ok(.report(roundTrip: 1, startupLatency: 1, playerOffset: nil), carol, at: 5)
    h.ok(.pause(item: nil, at: 7.9), alice, at: 10)
    #expect(
      h.ok(.play(item: nil, rate: nil), alice, at: 20).kinds == [
        .played(at: 7.9, rate: 1, startsAt: g(20.1))
      ])
  }

  @Test("the start delay is never below the minimum")
  func minimumDelay() {
    let (_, events) = playedAfterPause(reports: [])
    #expect(events.kinds == [.played(at: 7.9, rate: 1, startsAt: g(20.1))])
    let (_, slower) = playedAfterPause(.init(minimumStartDelay: 0.5), reports: [(bob, 0.1, 0)])
    #expect(slower.kinds == [.played(at: 7.9, rate: 1, startsAt: g(20.5))])
  }

  @Test("the start delay is never above the maximum")
  func maximumDelay() {
    let (_, events) = playedAfterPause(reports: [(bob, 5, 1)])
    #expect(events.kinds == [.played(at: 7.9, rate: 1, startsAt: g(23))])
    let (_, capped) = playedAfterPause(.init(maximumStartDelay: 1.5), reports: [(bob, 1, 0)])
    #expect(capped.kinds == [.played(at: 7.9, rate: 1, startsAt: g(21.5))])
  }

  @Test("the round-trip factor is configurable")
  func factor() {
    let (_, events) = playedAfterPause(.init(roundTripFactor: 3), reports: [(bob, 0.2, 0.1)])
    #expect(events.kinds == [.played(at: 7.9, rate: 1, startsAt: g(20.7))])
  }

  @Test("disconnected participants do not delay the start")
  func disconnectedDoNotCount() {
    var h = Harness.playing()
    h.ok(.report(roundTrip: 1, startupLatency: 0, playerOffset: nil), bob, at: 5)
    h.ok(.setConnected(false), bob, at: 6)
    h.ok(.pause(item: nil, at: 7.9), alice, at: 10)
    #expect(
      h.ok(.play(item: nil, rate: nil), alice, at: 20).kinds == [
        .played(at: 7.9, rate: 1, startsAt: g(20.1))
      ])
  }

  @Test("the position holds until the coordinated start and never runs backwards")
  func holdsUntilStart() {
    let (h, _) = playedAfterPause(reports: [(bob, 0.5, 0.3)])
    #expect(h.position(at: 20) == 7.9)
    #expect(h.position(at: 21) == 7.9)
    #expect(h.position(at: 21.3) == 7.9)
    #expect(isClose(h.position(at: 22.3), 8.9))
    #expect(h.session.status == .playing)
  }
}

@Suite("Group engine: play, pause, seek, rate")
struct GroupEnginePlaybackTests {
  @Test("play without a rate resumes at the rate the group last chose")
  func playRemembersRate() {
    var h = Harness.playing()
    h.ok(.pause(item: nil, at: 7.9), alice, at: 10)
    h.ok(.setRate(item: nil, rate: 1.5), bob, at: 11)
    #expect(h.session.intendedRate == 0)
    #expect(h.session.timeline.rate == 0)
    #expect(
      h.ok(.play(item: nil, rate: nil), alice, at: 12).kinds == [
        .played(at: 7.9, rate: 1.5, startsAt: g(12.1))
      ])
    #expect(h.session.intendedRate == 1.5)
    #expect(isClose(h.position(at: 14.1), 10.9))
  }

  @Test("play with a rate sets the group's rate")
  func playWithRate() {
    var h = Harness.playing()
    h.ok(.pause(item: nil, at: 7.9), alice, at: 10)
    #expect(
      h.ok(.play(item: nil, rate: 2), bob, at: 12).kinds == [
        .played(at: 7.9, rate: 2, startsAt: g(12.1))
      ])
    #expect(h.session.playbackRate == 2)
  }

  @Test(
    "play rejects rates outside the allowed range", arguments: [0.1, 0, -1, 4.5, .nan, .infinity])
  func playRateBounds(rate: Double) {
    var h = Harness.playing()
    guard
      case .rateOutOfRange(_, let allowed) = h.rejected(.play(item: nil, rate: rate), alice, at: 10)
    else {
      Issue.record("rate \(rate) not rejected as out of range")
      return
    }
    #expect(allowed == 0.25...4)
  }

  @Test("play while playing at another rate bends the line a change delay ahead")
  func playWhilePlaying() {
    var h = Harness.playing()
    #expect(
      h.ok(.play(item: nil, rate: 2), bob, at: 10).kinds == [
        .played(at: 8, rate: 2, startsAt: g(10.1))
      ])
    #expect(
      h.session.timeline
        == Timeline(itemTime: 8, groupTime: g(10.1), rate: 2, priorItemTime: 8, priorRate: 1))
    // Same rate again: nothing moves; the event repeats the current anchor.
    let timeline = h.session.timeline
    #expect(
      h.ok(.play(item: nil, rate: nil), alice, at: 11).kinds == [
        .played(at: 8, rate: 2, startsAt: g(10.1))
      ])
    #expect(h.session.timeline == timeline)
  }

  @Test("play at the end of the item is rejected")
  func playAtEnd() {
    var h = Harness.playing()
    h.tick(at: 602.1)
    #expect(h.session.reachedEnd)
    guard case .invalidValue = h.rejected(.play(item: nil, rate: nil), alice, at: 610) else {
      Issue.record("play at the end was not rejected")
      return
    }
    var paused = Harness.playing()
    paused.ok(.pause(item: nil, at: 600), alice, at: 10)
    guard case .invalidValue = paused.rejected(.play(item: nil, rate: nil), alice, at: 11) else {
      Issue.record("play paused at the end was not rejected")
      return
    }
  }

  @Test("play from a paused group waits for participants that are not ready")
  func playWaitsForUnready() {
    var h = Harness.playing()
    h.ok(.pause(item: nil, at: 7.9), alice, at: 10)
    #expect(h.ok(.setReadiness(.stalled), bob, at: 11).kinds == [.readinessChanged(.stalled)])
    #expect(h.session.waits.isEmpty)
    let events = h.ok(.play(item: nil, rate: nil), alice, at: 12)
    #expect(
      events.kinds == [
        .played(at: 7.9, rate: 1, startsAt: g(12)), .waitStarted(participant: bob, cause: .stalled),
      ])
    #expect(h.session.status == .waiting)
    #expect(h.state.waitingFor == ["bob"])
    #expect(h.session.waits.first?.deadline == g(22))
    #expect(h.session.timeline.rate == 0)
    let ready = h.ok(.setReadiness(.ready), bob, at: 13)
    #expect(ready.kinds == [.readinessChanged(.ready), .waitEnded(at: 7.9, startsAt: g(13.1))])
  }

  @Test("pause snaps to the originator's item time")
  func pauseSnaps() {
    var h = Harness.playing()
    #expect(isClose(h.position(at: 10), 7.9))
    let events = h.ok(.pause(item: s1e1, at: 7.5), bob, at: 10)
    #expect(events.kinds == [.paused(at: 7.5)])
    #expect(events.first?.originatorName == "bob")
    #expect(h.session.timeline == Timeline(itemTime: 7.5, groupTime: g(10), rate: 0))
    #expect(h.session.intendedRate == 0)
    #expect(h.session.status == .paused)
    #expect(h.position(at: 100) == 7.5)
    #expect(h.session.playbackRate == 1)
    // Who paused stays in the session for anyone who arrives later, through reports.
    h.ok(.report(roundTrip: 0.01, startupLatency: 0, playerOffset: nil), alice, at: 11)
    #expect(h.session.lastPlaybackChange == events.first)
  }

  @Test("pause outside the item is rejected", arguments: [-0.1, 600.1, .nan, -.infinity])
  func pauseBounds(at: Double) {
    var h = Harness.playing()
    guard
      case .positionOutOfRange(_, let duration) = h.rejected(
        .pause(item: nil, at: at), alice, at: 10)
    else {
      Issue.record("pause at \(at) was not rejected")
      return
    }
    #expect(duration == 600)
  }

  @Test("pause accepts both ends of the item")
  func pauseEnds() {
    var h = Harness.playing()
    h.ok(.pause(item: nil, at: 0), alice, at: 10)
    #expect(h.position(at: 11) == 0)
    h.ok(.pause(item: nil, at: 600), alice, at: 12)
    #expect(h.position(at: 13) == 600)
    #expect(h.engine.nextDeadline() == nil)
  }

  @Test("seek while playing: the old spot plays on until everyone switches at one instant")
  func seekWhilePlaying() {
    var h = Harness.playing()
    #expect(h.ok(.seek(item: nil, to: 300), bob, at: 10).kinds == [.seeked(to: 300)])
    #expect(
      h.session.timeline
        == Timeline(itemTime: 300, groupTime: g(10.1), rate: 1, priorItemTime: 8, priorRate: 1))
    // Nobody is expected at the new spot before the switch, nor at the old one after it.
    #expect(isClose(h.position(at: 10), 7.9))
    #expect(isClose(h.position(at: 10.05), 7.95))
    #expect(h.position(at: 10.1) == 300)
    #expect(isClose(h.position(at: 11.1), 301))
  }

  @Test("seek while paused stays paused at the new position")
  func seekWhilePaused() {
    var h = Harness.playing()
    h.ok(.pause(item: nil, at: 7.9), alice, at: 10)
    h.ok(.seek(item: nil, to: 120), bob, at: 11)
    #expect(h.session.timeline == Timeline(itemTime: 120, groupTime: g(11), rate: 0))
    #expect(h.session.status == .paused)
  }

  @Test("seek while waiting holds at the new position")
  func seekWhileWaiting() {
    var h = Harness.playing()
    h.ok(.setReadiness(.stalled), bob, at: 10)
    h.ok(.seek(item: nil, to: 120), alice, at: 11)
    #expect(h.session.timeline == Timeline(itemTime: 120, groupTime: g(11), rate: 0))
    #expect(h.session.status == .waiting)
    #expect(
      h.ok(.setReadiness(.ready), bob, at: 12).kinds.last == .waitEnded(at: 120, startsAt: g(12.1)))
  }

  @Test(
    "seek accepts 0 and the duration and rejects anything outside",
    arguments: [-1, 600.001, .nan, .infinity])
  func seekBounds(to: Double) {
    var h = Harness.playing()
    guard case .positionOutOfRange(_, 600) = h.rejected(.seek(item: nil, to: to), alice, at: 10)
    else {
      Issue.record("seek to \(to) was not rejected")
      return
    }
    h.ok(.seek(item: nil, to: 0), alice, at: 11)
    h.ok(.seek(item: nil, to: 600), alice, at: 12)
  }

  @Test("seek back from the end clears the end, and play goes on from there")
  func seekAfterEnd() {
    var h = Harness.playing()
    h.tick(at: 602.1)
    #expect(h.session.status == .finished)
    h.ok(.seek(item: nil, to: 500), alice, at: 610)
    #expect(!h.session.reachedEnd)
    #expect(h.session.status == .paused)
    h.ok(.play(item: nil, rate: nil), alice, at: 611)
    #expect(isClose(h.position(at: 621.1), 510))
  }

  @Test("a rate change while playing bends the line at one instant a change delay ahead")
  func rateWhilePlaying() {
    var h = Harness.playing()
    #expect(h.ok(.setRate(item: nil, rate: 2), bob, at: 10).kinds == [.rateChanged(rate: 2)])
    // The start delay: the configured minimum here.
    #expect(
      h.session.timeline
        == Timeline(itemTime: 8, groupTime: g(10.1), rate: 2, priorItemTime: 8, priorRate: 1))
    #expect(h.session.intendedRate == 2 && h.session.playbackRate == 2)
    // Continuous: the old rate until the instant, the new one after.
    #expect(isClose(h.position(at: 10.05), 7.95))
    #expect(isClose(h.position(at: 11.1), 10))
  }

  @Test("the delay of a rate change allows for round-trips and the slowest player")
  func rateChangeDelayFollowsRoundTrip() {
    var h = Harness.playing()
    h.ok(.report(roundTrip: 0.2, startupLatency: 0.5, playerOffset: nil), bob, at: 9)
    h.ok(.setRate(item: nil, rate: 1.5), alice, at: 10)
    // roundTripFactor 2 × 0.2 s + 0.5 s of start-up latency.
    #expect(h.session.timeline.groupTime == g(10.9))
    #expect(isClose(h.position(at: 10.9), 8.8))
    #expect(isClose(h.position(at: 11.9), 10.3))
  }

  @Test("a rate change before a scheduled start keeps the start")
  func rateBeforeStart() {
    var h = Harness.playing()
    h.ok(.seek(item: nil, to: 100), alice, at: 10)
    h.ok(.setRate(item: nil, rate: 0.5), bob, at: 10.05)
    #expect(
      h.session.timeline
        == Timeline(itemTime: 100, groupTime: g(10.1), rate: 0.5, priorItemTime: 8, priorRate: 1))
  }

  @Test("a rate change while paused is remembered for the next play")
  func rateWhilePaused() {
    var h = Harness.playing()
    h.ok(.pause(item: nil, at: 7.9), alice, at: 10)
    h.ok(.setRate(item: nil, rate: 0.5), bob, at: 11)
    #expect(h.session.timeline == Timeline(itemTime: 7.9, groupTime: g(10), rate: 0))
    #expect(h.session.playbackRate == 0.5)
    #expect(h.session.status == .paused)
  }

  @Test("rate bounds are inclusive; rates outside are rejected")
  func rateBounds() {
    var h = Harness.playing()
    h.ok(.setRate(item: nil, rate: 0.25), alice, at: 10)
    h.ok(.setRate(item: nil, rate: 4), alice, at: 11)
    for rate in [0.24, 4.01, 0, -2] {
      #expect(
        h.rejected(.setRate(item: nil, rate: rate), alice, at: 12)
          == .rateOutOfRange(rate: rate, allowed: 0.25...4))
    }
    var narrow = Harness.playing(.init(allowedRates: 0.5...2))
    #expect(
      narrow.rejected(.setRate(item: nil, rate: 3), alice, at: 10)
        == .rateOutOfRange(rate: 3, allowed: 0.5...2))
  }

  @Test("nextDeadline is the earliest of the wait deadlines and the item's end")
  func nextDeadline() {
    var h = Harness.room()
    #expect(h.engine.nextDeadline() == nil)
    h = Harness.playing()
    #expect(h.engine.nextDeadline() == g(602.1))
    h.ok(.setRate(item: nil, rate: 2), alice, at: 10)
    #expect(h.engine.nextDeadline() == g(306.1))
    h.ok(.setReadiness(.stalled), bob, at: 11)
    #expect(h.engine.nextDeadline() == g(21))
    h.ok(.pause(item: nil, at: 5), alice, at: 12)
    #expect(h.engine.nextDeadline() == g(21))
    h.tick(at: 21)
    #expect(h.engine.nextDeadline() == nil)
  }
}
