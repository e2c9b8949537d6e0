import PlaybackCoordination
import Testing

@Suite("Group engine: room and session membership")
struct GroupEngineRoomTests {
  @Test("entering adds participants in order of arrival")
  func entering() {
    let h = Harness.room()
    #expect(h.state.participants.map(\.id) == [alice, bob, carol])
    #expect(
      h.state.participants.allSatisfy { !$0.isJoined && $0.isConnected && $0.readiness == .ready })
    #expect(h.state.sequence == 3)
    #expect(h.state.lastChange?.kind == .entered)
    #expect(h.state.lastChange?.originator == carol)
    #expect(h.state.lastChange?.originatorName == "carol")
  }

  @Test("a participant already in the room cannot enter again")
  func enteringTwice() {
    var h = Harness.room()
    #expect(h.rejected(.enter(name: "alice again"), alice, at: 1) == .alreadyInRoom(alice))
  }

  @Test(
    "names must have 1 to 64 characters, not all blank, no control characters",
    arguments: ["", "   ", String(repeating: "x", count: 65), "a\nb", "tab\there"])
  func invalidNames(name: String) {
    var h = Harness.room()
    #expect(h.rejected(.enter(name: name), "dave", at: 1) == .invalidName(name))
  }

  @Test("a name of 64 characters, or with spaces and accents, is accepted")
  func validNames() {
    var h = Harness.room()
    h.ok(.enter(name: String(repeating: "é", count: 64)), "dave", at: 1)
    h.ok(.enter(name: "Zoë van Dam"), "zoe", at: 1)
    #expect(h.state.participants.count == 5)
  }

  @Test("commands from someone not in the room are rejected")
  func unknownParticipant() {
    var h = Harness.playing()
    let commands: [GroupCommand] = [
      .join, .leave, .end, .play(item: nil, rate: nil), .exit(reason: .quit), .setConnected(false),
      .setAutoAdvance(true), .setReadiness(.ready), .start(series: harbour, item: s1e1),
    ]
    for command in commands {
      #expect(h.rejected(command, "mallory", at: 5) == .unknownParticipant("mallory"))
    }
  }

  @Test("exit removes the participant from the room, its waits and its excuse")
  func exitRemovesEverywhere() {
    var h = Harness.playing()
    h.ok(.setReadiness(.stalled), bob, at: 10)
    #expect(h.session.waits.map(\.participant) == [bob])
    let events = h.ok(.exit(reason: .disconnected), bob, at: 11)
    #expect(events.kinds == [.exited(.disconnected), .waitEnded(at: 7.9, startsAt: g(11.1))])
    #expect(events.allSatisfy { $0.originator == bob && $0.originatorName == "bob" })
    #expect(h.state.participants.map(\.id) == [alice, carol])
    #expect(h.session.waits.isEmpty)

    var excused = Harness.playing(.init(rebufferTimeout: 1))
    excused.ok(.setReadiness(.stalled), bob, at: 10)
    excused.tick(at: 11)
    #expect(excused.session.excused == [bob])
    excused.ok(.exit(reason: .timedOut), bob, at: 12)
    #expect(excused.session.excused.isEmpty)
  }

  @Test("the session stays while anyone is in the room, even with nobody joined")
  func sessionOutlivesItsViewers() {
    var h = Harness.playing()
    h.ok(.leave, alice, at: 10)
    h.ok(.exit(reason: .quit), bob, at: 11)
    #expect(h.state.session != nil)
    #expect(h.state.joinedParticipants.isEmpty)
    h.ok(.join, carol, at: 12)
    #expect(h.participant(carol).isJoined)
    #expect(isClose(h.position(at: 12), 9.9))
  }

  @Test("the exit of the last participant in the room ends the session")
  func lastExitEndsSession() {
    var h = Harness.playing()
    h.ok(.exit(reason: .quit), carol, at: 10)
    h.ok(.exit(reason: .quit), bob, at: 11)
    #expect(h.state.session != nil)
    let events = h.ok(.exit(reason: .quit), alice, at: 12)
    #expect(events.kinds == [.exited(.quit), .sessionEnded])
    #expect(h.state.session == nil)
    #expect(h.state.participants.isEmpty)
    #expect(h.state.sessionCounter == 1)
  }

  @Test("connection changes are recorded; a repeated one changes nothing")
  func connection() {
    var h = Harness.playing()
    #expect(h.ok(.setConnected(false), bob, at: 5).kinds == [.connectionChanged(connected: false)])
    #expect(!h.participant(bob).isConnected)
    let before = h.state
    #expect(h.ok(.setConnected(false), bob, at: 6).isEmpty)
    #expect(h.state == before)
    #expect(h.ok(.setConnected(true), bob, at: 7).kinds == [.connectionChanged(connected: true)])
  }

  @Test("start creates a session that waits for the originator's first load")
  func start() {
    var h = Harness.room()
    let events = h.ok(.start(series: harbour, item: s1e1), alice, at: 1)
    #expect(events.kinds == [.sessionStarted(item: s1e1)])
    #expect(events.first?.sequence == 4)
    #expect(events.first?.at == g(1))
    #expect(events.first?.originatorName == "alice")
    let session = h.session
    #expect(session.id == 1)
    #expect(h.state.sessionCounter == 1)
    #expect(session.item.id == s1e1)
    #expect(session.timeline == Timeline(itemTime: 0, groupTime: g(1), rate: 0))
    #expect(session.intendedRate == 1)
    #expect(session.playbackRate == 1)
    #expect(session.status == .waiting)
    // Everyone else in the room is asked, and the group holds for their answer.
    #expect(
      session.waits == [
        GroupWait(participant: alice, cause: .loading, since: g(1), deadline: g(61)),
        GroupWait(participant: bob, cause: .answering, since: g(1), deadline: g(31)),
        GroupWait(participant: carol, cause: .answering, since: g(1), deadline: g(31)),
      ])
    #expect(session.invited == [bob, carol])
    #expect(h.state.waitingFor == ["alice", "bob", "carol"])
    #expect(h.participant(alice).isJoined && h.participant(alice).readiness == .loading)
    #expect(!h.participant(bob).isJoined && !h.participant(carol).isJoined)
  }

  @Test("start rejects an empty series, an unknown item and items without a valid duration")
  func startValidation() {
    var h = Harness.room()
    let empty = SeriesInfo(id: "none", title: "None", items: [])
    #expect(h.rejected(.start(series: empty, item: s1e1), alice, at: 1) == .emptySeries)
    #expect(
      h.rejected(.start(series: harbour, item: "harbour/s9e9"), alice, at: 1)
        == .unknownItem("harbour/s9e9"))
    let broken = SeriesInfo(
      id: "b", title: "B", items: [ItemInfo(id: "b/1", title: "1", duration: 0)])
    if case .invalidValue = h.rejected(.start(series: broken, item: "b/1"), alice, at: 1) {
    } else {
      Issue.record("a zero duration was not rejected as an invalid value")
    }
  }

  @Test("a new start replaces the session, and only its originator is joined")
  func restart() {
    var h = Harness.playing()
    h.ok(.beginSuspension(.interrupted), bob, at: 5)
    let events = h.ok(.start(series: harbour, item: s1e2), bob, at: 10)
    #expect(events.kinds == [.sessionStarted(item: s1e2)])
    #expect(h.session.id == 2)
    #expect(h.state.sessionCounter == 2)
    #expect(h.session.item.id == s1e2)
    #expect(h.session.timeline == Timeline(itemTime: 0, groupTime: g(10), rate: 0))
    #expect(h.state.joinedParticipants.map(\.id) == [bob])
    #expect(h.participant(bob).suspensions.isEmpty)
    #expect(h.participant(bob).readiness == .loading)
    #expect(h.participant(alice).readiness == .ready)
    #expect(h.session.waits.map(\.participant) == [bob, alice, carol])
    #expect(h.session.invited == [alice, carol])
  }

  @Test("the originator's first load starts the group together once the others answered")
  func firstLoadStarts() {
    var h = Harness.room()
    h.ok(.start(series: harbour, item: s1e1), alice, at: 1)
    h.declineAll(at: 1.5)
    let events = h.ok(.setReadiness(.ready), alice, at: 2)
    #expect(events.kinds == [.readinessChanged(.ready), .waitEnded(at: 0, startsAt: g(2.1))])
    #expect(h.session.timeline == Timeline(itemTime: 0, groupTime: g(2.1), rate: 1))
    #expect(h.session.status == .playing)
    #expect(isClose(h.position(at: 3), 0.9))
  }

  @Test("a late joiner does not make the group wait; it catches up on its own")
  func lateJoiner() {
    var h = Harness.playing()
    let timeline = h.session.timeline
    #expect(h.ok(.join, carol, at: 10).kinds == [.joined])
    #expect(h.participant(carol).isJoined && h.participant(carol).readiness == .loading)
    #expect(h.session.catchingUp == [carol])
    #expect(h.ok(.setReadiness(.stalled), carol, at: 11).kinds == [.readinessChanged(.stalled)])
    #expect(h.ok(.setReadiness(.loading), carol, at: 12).kinds == [.readinessChanged(.loading)])
    #expect(h.session.waits.isEmpty)
    #expect(h.session.timeline == timeline)
    h.ok(.setReadiness(.ready), carol, at: 13)
    #expect(h.session.catchingUp.isEmpty)
    // Caught up: from now on its stalls count like anyone's.
    let events = h.ok(.setReadiness(.stalled), carol, at: 14)
    #expect(
      events.kinds == [
        .readinessChanged(.stalled), .waitStarted(participant: carol, cause: .stalled),
      ])
  }

  @Test("joining needs a session and happens once")
  func joinChecks() {
    var room = Harness.room()
    #expect(room.rejected(.join, bob, at: 1) == .noSession)
    var h = Harness.playing()
    #expect(h.rejected(.join, bob, at: 5) == .alreadyJoined)
  }

  @Test("leave unjoins only the leaver, and the group stops waiting for it")
  func leave() {
    var h = Harness.playing()
    h.ok(.setReadiness(.stalled), bob, at: 10)
    let events = h.ok(.leave, bob, at: 11)
    #expect(events.kinds == [.left, .waitEnded(at: 7.9, startsAt: g(11.1))])
    #expect(!h.participant(bob).isJoined)
    #expect(h.participant(bob).readiness == .ready)
    #expect(h.participant(alice).isJoined)
    #expect(h.session.waits.isEmpty)
    #expect(h.rejected(.leave, carol, at: 12) == .notJoined)
    #expect(h.rejected(.leave, bob, at: 12) == .notJoined)
  }

  @Test("any joined participant ends the session for everyone")
  func endForEveryone() {
    var h = Harness.playing()
    #expect(h.rejected(.end, carol, at: 9) == .notJoined)
    let events = h.ok(.end, bob, at: 10)
    #expect(events.kinds == [.sessionEnded])
    #expect(events.first?.originatorName == "bob")
    #expect(h.state.session == nil)
    #expect(h.state.joinedParticipants.isEmpty)
    #expect(h.state.participants.count == 3)
    #expect(h.rejected(.end, alice, at: 11) == .noSession)
  }

  @Test("auto-advance preferences are recorded and announced")
  func autoAdvancePreference() {
    var h = Harness.room()
    #expect(h.ok(.setAutoAdvance(true), carol, at: 1).kinds == [.autoAdvanceChanged(true)])
    #expect(h.participant(carol).autoAdvance)
    #expect(h.ok(.setAutoAdvance(false), carol, at: 2).kinds == [.autoAdvanceChanged(false)])
    #expect(!h.participant(carol).autoAdvance)
  }

  @Test("reports update link figures and count as a change of their own")
  func reports() {
    var h = Harness.room()
    let events = h.ok(
      .report(roundTrip: 0.04, startupLatency: 0.2, playerOffset: -0.01), bob, at: 1)
    #expect(events.kinds == [.reported])
    #expect(h.state.sequence == 4)
    let p = h.participant(bob)
    #expect(p.roundTrip == 0.04 && p.startupLatency == 0.2 && p.playerOffset == -0.01)
  }

  @Test(
    "reports with negative or non-finite figures are rejected",
    arguments: [
      (-1.0, 0.0, nil), (0, -0.5, nil), (.nan, 0, nil), (0, .infinity, nil), (0, 0, .nan),
    ]
      as [(Double, Double, Double?)])
  func badReports(roundTrip: Double, latency: Double, offset: Double?) {
    var h = Harness.room()
    let rejection = h.rejected(
      .report(roundTrip: roundTrip, startupLatency: latency, playerOffset: offset), bob, at: 1)
    guard case .invalidValue = rejection else {
      Issue.record("expected an invalid value, got \(String(describing: rejection))")
      return
    }
  }

  @Test("each event takes the next sequence number; the last one is the last change")
  func sequencing() {
    var h = Harness.playing()
    let start = h.state.sequence
    let events = h.ok(.setReadiness(.stalled), bob, at: 10)
    #expect(events.map(\.sequence) == [start + 1, start + 2])
    #expect(h.state.sequence == start + 2)
    #expect(h.state.lastChange == events.last)
    #expect(events.allSatisfy { $0.at == g(10) && $0.originator == bob })
    // A report takes a sequence number but is not "the last change" someone made.
    let reported = h.ok(.report(roundTrip: 0.01, startupLatency: 0, playerOffset: nil), bob, at: 11)
    #expect(reported.map(\.kind) == [.reported])
    #expect(h.state.lastChange == events.last)
    #expect(h.state.sequence == start + 3)
    let ticked = h.tick(at: 20)
    #expect(ticked.map(\.sequence) == [start + 4, start + 5])
    #expect(ticked.allSatisfy { $0.originator == nil && $0.originatorName == nil })
    #expect(h.tick(at: 20).isEmpty)
    #expect(h.state.sequence == start + 5)
  }
}

@Suite("Group engine: hostile numbers")
struct GroupEngineHostileNumberTests {
  @Test("instant arithmetic saturates instead of trapping")
  func saturates() {
    let t = GroupInstant(nanoseconds: 1_000)
    #expect(t.advanced(bySeconds: 1e30).nanoseconds == Int64.max)
    #expect(t.advanced(bySeconds: -1e30).nanoseconds == Int64.min + 1_000)
    #expect(t.advanced(bySeconds: .infinity).nanoseconds == Int64.max)
    #expect(t.advanced(bySeconds: .nan) == t)
    #expect(
      GroupInstant(nanoseconds: Int64.max - 5).advanced(bySeconds: 1).nanoseconds == Int64.max)
    #expect(LocalInstant(seconds: 1e20).nanoseconds == Int64.max)
  }

  @Test(
    "items too long for the clock are refused, and no deadline of a valid one traps",
    arguments: [1e10, 604_801, .infinity, -1, 0] as [Double])
  func longItemsRefused(duration: Double) {
    var engine = GroupEngine()
    let now = GroupInstant(seconds: 100)
    _ = engine.apply(.enter(name: "m"), from: "p1", at: now)
    let series = SeriesInfo(
      id: "x", title: "x", items: [ItemInfo(id: "x/1", title: "t", duration: duration)])
    let result = engine.apply(.start(series: series, item: "x/1"), from: "p1", at: now)
    guard case .failure(.invalidValue(let text)) = result else {
      Issue.record("accepted a \(duration) s item: \(result)")
      return
    }
    #expect(text.contains("no valid duration"))
    _ = engine.nextDeadline()
  }

  @Test("the longest item plays at the slowest rate to its end without a trap")
  func longestItemRuns() {
    var engine = GroupEngine()
    var now = GroupInstant(seconds: 100)
    _ = engine.apply(.enter(name: "m"), from: "p1", at: now)
    let series = SeriesInfo(
      id: "x", title: "x", items: [ItemInfo(id: "x/1", title: "t", duration: 604_800)])
    _ = engine.apply(.start(series: series, item: "x/1"), from: "p1", at: now)
    _ = engine.apply(.setReadiness(.ready), from: "p1", at: now)
    _ = engine.apply(.setRate(item: "x/1", rate: 0.25), from: "p1", at: now)
    for _ in 0..<10 {
      guard let deadline = engine.nextDeadline() else { break }
      now = deadline
      _ = engine.tick(at: now)
    }
    // Four weeks of group time later the group stopped at the item's end.
    #expect(engine.state.session?.timeline.itemTime == 604_800)
    #expect(now.seconds(since: GroupInstant(seconds: 100)) > 604_800 / 0.25 - 10)
  }
}

/// A new session holds for the others in the room to answer the offer, so that those who
/// join start together from the beginning instead of coming in mid-scene (the first watch
/// night: "everyone is ready; playing from 0:00" while bob and carol had not joined).
@Suite("Answering the offer of a session")
struct GroupEngineAnswerTests {
  @Test("those who join while asked are waited for as the originator is: all start at 0 together")
  func joinersStartTogether() {
    var h = Harness.room()
    h.ok(.start(series: harbour, item: s1e1), alice, at: 1)
    h.ok(.setReadiness(.ready), alice, at: 2)
    #expect(h.session.status == .waiting)
    #expect(
      h.ok(.join, bob, at: 5).kinds == [.joined, .waitStarted(participant: bob, cause: .loading)])
    // A load gets its own time, from the join.
    #expect(
      h.session.waits.first { $0.participant == bob }
        == GroupWait(participant: bob, cause: .loading, since: g(5), deadline: g(65)))
    #expect(h.session.catchingUp.isEmpty)
    h.ok(.join, carol, at: 6)
    h.ok(.setReadiness(.ready), bob, at: 7)
    #expect(h.session.status == .waiting)
    let events = h.ok(.setReadiness(.ready), carol, at: 8)
    #expect(events.kinds == [.readinessChanged(.ready), .waitEnded(at: 0, startsAt: g(8.1))])
    #expect(h.session.timeline == Timeline(itemTime: 0, groupTime: g(8.1), rate: 1))
    #expect(h.session.invited.isEmpty)
  }

  @Test("not now ends the wait for that answer; the decliner may still join later, on their own")
  func declineThenLateJoin() {
    var h = Harness.room()
    h.ok(.start(series: harbour, item: s1e1), alice, at: 1)
    h.ok(.setReadiness(.ready), alice, at: 2)
    #expect(h.ok(.decline, bob, at: 3).kinds == [.declined])
    #expect(h.session.status == .waiting)
    let events = h.ok(.decline, carol, at: 4)
    #expect(events.kinds == [.declined, .waitEnded(at: 0, startsAt: g(4.1))])
    #expect(h.session.status == .playing)
    // Later, bob joins as any late joiner: the group goes on.
    #expect(h.ok(.join, bob, at: 10).kinds == [.joined])
    #expect(h.session.catchingUp == [bob])
    #expect(h.session.status == .playing)
  }

  @Test("an answer is not asked twice, nor from those who joined or were never asked")
  func declineRefusals() {
    var h = Harness.room()
    #expect(h.rejected(.decline, bob, at: 0.5) == .noSession)
    h.ok(.start(series: harbour, item: s1e1), alice, at: 1)
    #expect(h.rejected(.decline, alice, at: 2) == .alreadyJoined)
    h.ok(.decline, bob, at: 2)
    if case .invalidValue = h.rejected(.decline, bob, at: 3) {
    } else {
      Issue.record("a second not now was not refused")
    }
  }

  @Test("nobody answers: the group goes on at the answer timeout, and a later join is a late one")
  func answerTimesOut() {
    var h = Harness.room(EngineConfiguration(answerTimeout: 20))
    h.ok(.start(series: harbour, item: s1e1), alice, at: 1)
    h.ok(.setReadiness(.ready), alice, at: 2)
    #expect(h.engine.nextDeadline() == g(21))
    let events = h.tick(at: 21)
    #expect(
      events.kinds == [
        .waitTimedOut(participant: bob), .waitTimedOut(participant: carol),
        .waitEnded(at: 0, startsAt: g(21.1)),
      ])
    #expect(h.session.invited.isEmpty)
    // Not excused: they never joined; joining now is a late join.
    #expect(h.session.excused.isEmpty)
    #expect(h.ok(.join, carol, at: 30).kinds == [.joined])
    #expect(h.session.status == .playing)
  }

  @Test("only those who can answer are asked: not the disconnected, not Syncplay clients")
  func whoIsAsked() {
    var h = Harness.room()
    h.ok(.setConnected(false), bob, at: 0.2)
    h.ok(.enter(name: "dan", origin: .syncplay), "dan", at: 0.3)
    h.ok(.start(series: harbour, item: s1e1), alice, at: 1)
    #expect(h.session.invited == [carol])
    // Someone asked who loses the connection cannot answer: no longer waited for.
    h.ok(.setReadiness(.ready), alice, at: 2)
    let events = h.ok(.setConnected(false), carol, at: 3)
    #expect(
      events.kinds == [.connectionChanged(connected: false), .waitEnded(at: 0, startsAt: g(3.1))])
    #expect(h.session.invited.isEmpty)
  }

  @Test("someone asked who leaves the room is no longer waited for")
  func askedLeaves() {
    var h = Harness.room()
    h.ok(.start(series: harbour, item: s1e1), alice, at: 1)
    h.ok(.decline, carol, at: 1.5)
    h.ok(.setReadiness(.ready), alice, at: 2)
    let events = h.ok(.exit(reason: .quit), bob, at: 3)
    #expect(events.kinds == [.exited(.quit), .waitEnded(at: 0, startsAt: g(3.1))])
  }

  @Test("a switch before anyone answered starts no new session: the questions are dropped")
  func switchDropsQuestions() {
    var h = Harness.room()
    h.ok(.start(series: harbour, item: s1e1), alice, at: 1)
    h.ok(.replace(series: harbour, item: s1e2, confirmed: true), alice, at: 2)
    #expect(h.session.invited.isEmpty)
    #expect(h.session.waits.map(\.participant) == [alice])
  }

  @Test("a pause while asked keeps the questions; the answers then start nothing until play")
  func pauseWhileAsked() {
    var h = Harness.room()
    h.ok(.start(series: harbour, item: s1e1), alice, at: 1)
    h.ok(.setReadiness(.ready), alice, at: 2)
    h.ok(.pause(item: s1e1, at: 0), alice, at: 3)
    h.declineAll(at: 4)
    #expect(h.session.status == .paused)
    let events = h.ok(.play(item: s1e1, rate: nil), alice, at: 5)
    #expect(events.kinds == [.played(at: 0, rate: 1, startsAt: g(5.1))])
  }
}
