import Narration
import PlaybackCoordination
import Testing

@testable import TerminalFront

@Suite("notices")
struct NoticeFormatterTests {
  let state = Fixtures.playing().group

  func text(_ kind: ChangeKind, by who: ParticipantID? = Fixtures.bob, name: String? = "bob")
    -> String?
  {
    ChangeNarrator.notice(
      for: ChangeEvent(
        sequence: 1, at: Fixtures.now, originator: who, originatorName: who == nil ? nil : name,
        kind: kind),
      in: state, local: Fixtures.alice)
  }

  @Test("playback changes name who did them and where")
  func playback() {
    #expect(text(.paused(at: 754)) == "bob paused at 12:34")
    #expect(text(.seeked(to: 3723)) == "bob jumped to 1:02:03")
    #expect(text(.played(at: 60, rate: 1, startsAt: Fixtures.now)) == "bob played from 1:00")
    #expect(
      text(.played(at: 60, rate: 1.5, startsAt: Fixtures.now)) == "bob played from 1:00 at 1.5×")
    #expect(text(.rateChanged(rate: 0.75)) == "bob set the speed to 0.75×")
  }

  @Test("the local participant is 'you'")
  func you() {
    #expect(text(.paused(at: 5), by: Fixtures.alice, name: "alice") == "you paused at 0:05")
  }

  @Test("episode switches name the episode; auto-advance has no originator")
  func episodes() {
    #expect(
      text(.replaced(from: "harbour/s1e2", to: "harbour/s1e3"), by: Fixtures.carol, name: "carol")
        == "carol switched to S1E3 · The Storm")
    #expect(
      text(.autoAdvanced(from: "harbour/s1e2", to: "harbour/s1e3"), by: nil)
        == "auto-advanced to S1E3 · The Storm")
    #expect(
      text(.sessionStarted(item: "harbour/s1e2"))
        == "bob started Harbour Lights — S1E2 · The Lighthouse Keeper")
    #expect(text(.reachedEnd(item: "harbour/s1e4"), by: nil) == "S1E4 · Low Tide ended")
  }

  @Test("joins, leaves, suspensions and waits")
  func membership() {
    #expect(text(.entered, by: Fixtures.carol, name: "carol") == "carol entered the room")
    #expect(text(.joined, by: Fixtures.carol, name: "carol") == "carol joined")
    #expect(text(.left) == "bob left the watch session")
    #expect(text(.exited(.quit)) == "bob left the room")
    #expect(text(.exited(.timedOut)) == "bob went silent and was removed")
    #expect(text(.sessionEnded) == "bob ended the watch session for everyone")
    #expect(text(.suspended(.interrupted)) == "bob stepped away — a call")
    #expect(text(.suspended("phone call")) == "bob stepped away — phone call")
    #expect(text(.resumed(nil)) == "bob is back with the group")
    #expect(
      text(.waitStarted(participant: Fixtures.carol, cause: .stalled), by: nil)
        == "waiting for carol (buffering)")
    #expect(
      text(.waitTimedOut(participant: Fixtures.carol), by: nil)
        == "gave up waiting for carol; going on without them")
    #expect(text(.suspended(.stallRecovery)) == "bob's player stalled")
    #expect(text(.resumed(.stallRecovery)) == "bob's player recovered")
    #expect(
      text(.waitEnded(at: 75, startsAt: GroupInstant(seconds: 1)), by: nil)
        == "everyone is ready; playing from 1:15")
    #expect(text(.resumedProposing(time: 110)) == "bob is back and moved everyone to 1:50")
    #expect(text(.connectionChanged(connected: false)) == "bob lost the connection — reconnecting…")
    #expect(text(.autoAdvanceChanged(true)) == "bob turned auto-advance on")
  }

  @Test("ready checks: who asks, who is ready, how it ended and when the group starts")
  func readyChecks() {
    // Nobody in the fixture said ready: all three are asked.
    #expect(
      text(.readyCheckStarted(deadline: Fixtures.now.advanced(bySeconds: 120)))
        == "bob asks: is everyone ready? (waiting for you, bob, carol)")
    #expect(
      text(.readyCheckStarted(deadline: Fixtures.now), by: Fixtures.alice, name: "alice")
        == "you asked: is everyone ready? (waiting for you, bob, carol)")
    #expect(text(.readyToWatchChanged(true)) == "bob is ready")
    #expect(
      text(.readyToWatchChanged(false), by: Fixtures.alice, name: "alice") == "you are not ready")
    let startsAt = Fixtures.now.advanced(bySeconds: 3)
    #expect(
      text(.readyCheckEnded(.allReady, startsAt: startsAt), by: nil)
        == "everyone is ready — starting in 3 s")
    #expect(
      text(.readyCheckEnded(.startedAnyway, startsAt: startsAt))
        == "bob started anyway (without you, bob, carol ready) — starting in 3 s")
    #expect(text(.readyCheckEnded(.cancelled, startsAt: nil)) == "bob took the ready check back")
    #expect(
      text(.readyCheckEnded(.cancelled, startsAt: nil), by: nil)
        == "the ready check ended: nobody is left to answer it")
    #expect(
      text(.readyCheckEnded(.timedOut, startsAt: nil), by: nil)
        == "the ready check lapsed: you, bob, carol did not say ready")
    #expect(
      text(.startWhenAllReadyChanged(true))
        == "bob set the room to start only when everyone is ready")
    #expect(
      text(.keptChanged(true))
        == "bob asked the relay to keep the room when everyone has left, paused where you stop, for the next night"
    )
    #expect(text(.keptChanged(false)) == "bob let the room go when everyone has left")
  }

  @Test("who watches from whose copy, and a wait that says where it loads from")
  func lentCopies() {
    #expect(text(.watchingFrom(Fixtures.carol)) == "bob watches from carol's copy")
    #expect(text(.watchingFrom(Fixtures.alice)) == "bob watches from your copy")
    #expect(
      text(.watchingFrom(Fixtures.carol), by: Fixtures.alice, name: "alice")
        == "you watch from carol's copy")
    #expect(text(.watchingFrom(nil)) == nil, "between lenders, or back on one's own file")
    var lent = state
    lent.participants[2].lender = Fixtures.alice
    let wait = ChangeNarrator.notice(
      for: ChangeEvent(
        sequence: 1, at: Fixtures.now, originator: nil, originatorName: nil,
        kind: .waitStarted(participant: Fixtures.carol, cause: .loading)),
      in: lent, local: Fixtures.alice)
    #expect(wait == "waiting for carol (loading from your copy)")
  }

  @Test("reports and becoming ready make no notice")
  func silent() {
    #expect(text(.reported) == nil)
    #expect(text(.readinessChanged(.ready)) == nil)
  }

  @Test("a departed participant keeps the name carried by the event")
  func departedName() {
    #expect(
      text(.exited(.disconnected), by: "p9", name: "dave") == "dave lost the connection and left")
  }

  @Test("chat lines")
  func chat() {
    #expect(ChangeNarrator.chat(from: "bob", text: "hi 👋") == "bob: hi 👋")
    var model = Fixtures.playing()
    model.receiveChat(from: "bob", text: "hi")
    #expect(model.notices.first == NoticeLine("bob: hi", at: Fixtures.now, kind: .chat))
  }

  @Test("the model applies each change once, newest first, and remembers who paused")
  func modelApply() {
    var model = Fixtures.playing()
    model.notices = []
    let pause = ChangeEvent(
      sequence: 20, at: Fixtures.now, originator: Fixtures.bob, originatorName: "bob",
      kind: .paused(at: 754))
    model.apply(pause)
    model.apply(pause)
    #expect(model.notices.map(\.text) == ["bob paused at 12:34"])
    #expect(model.pausedBy == "bob")
    model.apply(
      ChangeEvent(
        sequence: 21, at: Fixtures.now, originator: Fixtures.carol, originatorName: "carol",
        kind: .played(at: 754, rate: 1, startsAt: Fixtures.now)))
    #expect(model.pausedBy == nil)
    #expect(model.notices.map(\.text) == ["carol played from 12:34", "bob paused at 12:34"])
  }

  @Test("notices fade after half their lifetime and are pruned after it")
  func fading() {
    var model = Fixtures.playing()
    model.notices = [NoticeLine("x", at: Fixtures.now)]
    #expect(model.visibility(of: model.notices[0]) == .fresh)
    model.now = Fixtures.now.advanced(bySeconds: 11)
    #expect(model.visibility(of: model.notices[0]) == .fading)
    model.now = Fixtures.now.advanced(bySeconds: 21)
    #expect(model.visibleNotices.isEmpty)
    model.pruneNotices()
    #expect(model.notices.isEmpty)
  }
}

@Suite("notices about Syncplay people")
struct SyncplayNoticeTests {
  @Test("someone from Syncplay is said to come from it, and marked so in the people pane")
  func fromSyncplay() {
    var model = Fixtures.playing()
    model.group.participants[1].origin = .syncplay
    let entered = ChangeNarrator.notice(
      for: ChangeEvent(
        sequence: 1, at: Fixtures.now, originator: Fixtures.bob, originatorName: "bob",
        kind: .entered), in: model.group, local: Fixtures.alice)
    #expect(entered == "bob entered the room from Syncplay")
    let screen = ScreenRenderer.render(model, rows: 35, cols: 120).text
    #expect(screen.contains("bob ⇄"))
  }

  @Test("stepping away for one's own player reads 'your player'")
  func yourPlayer() {
    let state = Fixtures.playing().group
    let text = ChangeNarrator.notice(
      for: ChangeEvent(
        sequence: 1, at: Fixtures.now, originator: Fixtures.alice, originatorName: "alice",
        kind: .suspended(.playerUnavailable)), in: state, local: Fixtures.alice)
    #expect(text == "you stepped away — your player isn't working")
  }
}
