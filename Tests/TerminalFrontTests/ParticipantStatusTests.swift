import Narration
import PlaybackCoordination
import Testing

@testable import TerminalFront

@Suite("participant states in words")
struct ParticipantStatusTests {
  func words(_ model: FrontModel, _ index: Int) -> String {
    ParticipantStatus.describe(model.group.participants[index], in: model.group)
  }

  @Test("one word per state, whatever the session does")
  func states() {
    #expect(words(Fixtures.playing(), 1) == "watching")
    #expect(words(Fixtures.pausedByBob(), 1) == "paused")
    #expect(words(Fixtures.waiting(), 0) == "ready")
    #expect(words(Fixtures.waiting(), 1) == "loading")
    #expect(words(Fixtures.waiting(), 2) == "stalled")
    #expect(words(Fixtures.suspended(), 0) == "stepped away — a call")
    #expect(words(Fixtures.reconnecting(), 1) == "reconnecting")
    #expect(words(Fixtures.finished(), 1) == "finished")
    #expect(words(Fixtures.noSession(), 1) == "in the room")
    #expect(words(Fixtures.sessionOffered(), 0) == "not joined")
  }

  @Test("a stall-recovery suspension is a stall; another reason beside it is stepping away")
  func stallRecovery() {
    var model = Fixtures.playing()
    model.group.participants[1].suspensions = [.stallRecovery]
    #expect(words(model, 1) == "stalled")
    model.group.participants[1].suspensions = [.interrupted, .stallRecovery]
    #expect(words(model, 1) == "stepped away — a call")
    model.group.participants[1].suspensions = ["feeding the cat"]
    #expect(words(model, 1) == "stepped away — feeding the cat")
  }

  @Test(
    "one's own player that can't play or needs one reads 'your player' on one's own screen: header, people pane, waits"
  )
  func yourPlayerOnScreen() {
    var model = Fixtures.playing()
    model.group.participants[0].suspensions = [.playerUnavailable]
    let mine = ScreenRenderer.render(model, rows: 35, cols: 120).text
    #expect(mine.contains("you stepped away — your player can't play this · s to come back"))
    #expect(mine.contains("— your player can't play this  "), "the people pane's line")
    #expect(!mine.contains("their player"), "\(mine)")
    // bob's screen says it of alice.
    model.localParticipant = Fixtures.bob
    let theirs = ScreenRenderer.render(model, rows: 35, cols: 120).text
    #expect(theirs.contains("— their player can't play this"))
    #expect(!theirs.contains("your player"))
    // Small screens put the state beside the name.
    model.localParticipant = Fixtures.alice
    let compact = ScreenRenderer.render(model, rows: 12, cols: 70).text
    #expect(compact.contains("alice (you): stepped away — your player can't play this"))
    #expect(
      WaitText.line(
        name: "you", cause: .suspended(.userActionRequired), secondsLeft: 4, width: 70, you: true)
        == "⏳ you: stepped away — your player needs you, 4 s left")
    let wait = ChangeNarrator.notice(
      for: ChangeEvent(
        sequence: 2, at: Fixtures.now, originator: nil, originatorName: nil,
        kind: .waitStarted(participant: Fixtures.alice, cause: .suspended(.userActionRequired))),
      in: model.group, local: Fixtures.alice)
    #expect(wait == "waiting for you (your player needs you)")
  }

  @Test("watching alone counts only for someone not joined")
  func alone() {
    let model = Fixtures.watchingAlone()
    let alice = model.group.participants[0]
    #expect(ParticipantStatus.describe(alice, in: model.group, watchingAlone: true) == "alone")
    let joined = Fixtures.playing()
    #expect(
      ParticipantStatus.describe(
        joined.group.participants[0], in: joined.group, watchingAlone: true)
        == "watching")
  }

  @Test(
    "while this front reconnects, the others' states and offsets are not shown as if current; the order of people never changes"
  )
  func reconnectingPane() {
    var model = Fixtures.playing()
    model.connection = .reconnecting
    let text = ScreenRenderer.render(model, rows: 35, cols: 120).text
    #expect(text.contains("alice (you) reconnecting"))
    #expect(text.contains("bob         unknown"))
    #expect(!text.contains("+12ms") && !text.contains("watching"))
    // The state arrives in another order (a restored room, say): the pane keeps arrival order.
    var shuffled = Fixtures.playing()
    shuffled.group.participants.reverse()
    let lines = ScreenRenderer.render(shuffled, rows: 35, cols: 120).text.split(separator: "\n")
    let order = ["alice", "bob", "carol"].map { name in
      lines.firstIndex { $0.contains("● \(name)") } ?? -1
    }
    #expect(order == order.sorted() && !order.contains(-1), "\(order)")
  }

  @Test("the people pane shows the same words")
  func pane() {
    let text = ScreenRenderer.render(Fixtures.suspended(), rows: 35, cols: 120).text
    #expect(text.contains("alice (you) stepped away"))
    #expect(text.contains("stepped away — a call"), "the reason in words")
  }
}

@Suite("The speed shown while paused")
struct PausedRateTests {
  @Test("paused at 1.5×, the header shows 1.5× (the speed play resumes at), not 1×")
  func pausedShowsChosenRate() {
    var model = Fixtures.pausedByBob()
    model.group.session?.playbackRate = 1.5
    let text = ScreenRenderer.render(model, rows: 35, cols: 120).text
    #expect(text.contains("1.5×"))
  }
}
