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
    #expect(mine.contains("you stepped away — your player isn't working · s to come back"))
    #expect(mine.contains("— your player isn't working  "), "the people pane's line")
    #expect(!mine.contains("their player"), "\(mine)")
    // bob's screen says it of alice.
    model.localParticipant = Fixtures.bob
    let theirs = ScreenRenderer.render(model, rows: 35, cols: 120).text
    #expect(theirs.contains("— their player isn't working"))
    #expect(!theirs.contains("your player"))
    // Small screens put the state beside the name.
    model.localParticipant = Fixtures.alice
    let compact = ScreenRenderer.render(model, rows: 12, cols: 70).text
    #expect(compact.contains("alice (you): stepped away — your player isn't working"))
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

  @Test(
    "the people pane's name column grows with the pane, and your own name is never cut while other columns can give way"
  )
  func namesTakeTheRoom() {
    /// The row of the people pane that starts with `prefix` ("● name").
    func row(_ model: FrontModel, rows: Int, cols: Int, _ prefix: String) -> String? {
      let screen = ScreenRenderer.render(model, rows: rows, cols: cols)
      return screen.lines.lazy.compactMap { line -> String? in
        guard let range = line.range(of: "│ \(prefix)", options: .backwards) else { return nil }
        return String(line[range.lowerBound...])
      }.first
    }
    func named(_ name: String, owner: Bool = true, offset: Double? = 0.003) -> FrontModel {
      var model = Fixtures.playing()
      model.group.participants[0].name = name
      model.group.participants[0].playerOffset = offset
      if owner { model.group.control.owner = Fixtures.alice }
      return model
    }
    // 120 columns: a 36-column list has room for the name, its star and "(you)".
    #expect(row(named("hann"), rows: 35, cols: 120, "●")?.contains("● hann ★ (you)") == true)
    let long = row(named("Christopher_Longname"), rows: 35, cols: 120, "●")
    #expect(long?.contains("Christopher_Longname") == true, "\(long ?? "")")
    // Offsets go before a name is cut.
    let slow = row(named("slowpoke", offset: -2.0), rows: 35, cols: 120, "●")
    #expect(slow?.contains("slowpoke ★ (you)") == true && slow?.contains("watching") == true)
    // Narrow panes (side by side, 60 or 80 columns), one line each with many people: your
    // own name is there, and so are short names of others.
    var crowd = named("ann")
    for (i, name) in ["dave", "erin", "frank", "gus"].enumerated() {
      crowd.group.participants.append(
        Participant(id: ParticipantID("p\(i + 4)"), name: name, isJoined: true))
    }
    for cols in [60, 80] {
      let mine = row(crowd, rows: 24, cols: cols, "● ann")
      #expect(mine?.contains("● ann ★ (you) watching") == true, "\(cols): \(mine ?? "none")")
      #expect(row(crowd, rows: 24, cols: cols, "● bob") != nil)
      #expect(row(crowd, rows: 24, cols: cols, "● frank") != nil)
    }
    // A name too long for any column: yours keeps as much of itself as it can (the marks
    // and your state give way first); the others keep their marks.
    var cramped = named("ann_with_a_rather_long_name")
    cramped.group.participants[1].name = "bob_with_a_rather_long_name"
    cramped.group.control.owner = Fixtures.bob
    let yours = row(cramped, rows: 24, cols: 60, "● ann")
    #expect(yours?.contains("● ann_with_a_rather_lo…  ↻") == true, "\(yours ?? "none")")
    let theirs = row(cramped, rows: 24, cols: 60, "● bob")
    #expect(theirs?.contains("… ★") == true, "\(theirs ?? "none")")
    // A list with room for one line shows you, not only "+2 more".
    let small = ScreenRenderer.render(named("ann"), rows: 15, cols: 60).text
    #expect(small.contains("● ann ★ (you)"), "\(small)")
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

@Suite("People pane: who would carry the room")
struct SuccessorMarksTests {
  @Test("the next host is marked; one the relay cannot reach is said at the pane's foot")
  func marks() {
    var model = Fixtures.playing()
    model.successors = [Fixtures.bob]
    model.unreachableCarriers = [Fixtures.carol]
    let screen = ScreenRenderer.render(model, rows: 35, cols: 120).text
    // On a line of its own below the name, where the pane has the rows.
    #expect(screen.contains("● bob "))
    #expect(screen.contains("— next host"))
    // On two lines in a pane this narrow.
    #expect(screen.contains("carol can't carry the room: not"))
    #expect(screen.contains("│ reachable "))
    #expect(!screen.contains("carol (next host)"))
    // One the relay passed over (its connection went each time it was fed) says why.
    var passed = Fixtures.playing()
    passed.passedOverCarriers = [Fixtures.carol]
    let text = ScreenRenderer.render(passed, rows: 35, cols: 120).text
    #expect(text.contains("carol can't carry the room:"))
    #expect(text.contains("dropped each time it"))
  }
}

@Suite("People pane: the next host's mark does not cut anyone's words")
struct NextHostFitTests {
  /// The first watch night at 120×35: "bob (you) (next host) in the r…".
  @Test(
    "you as the next host, not joined: name, marks and state all whole, at every size",
    arguments: [(35, 120), (24, 80), (15, 60)])
  func youAsNextHost(rows: Int, cols: Int) {
    var model = Fixtures.playing()
    model.group.participants[0].isJoined = false
    model.successors = [Fixtures.alice]
    let screen = ScreenRenderer.render(model, rows: rows, cols: cols).text
    // At 60×15 the marks give way to the state; the name is still drawn as yours.
    #expect(screen.contains(rows > 15 ? "alice (you)" : "● alice "), "\(screen)")
    // At 60×15 the pane has a row for each person only: the mark gives way there.
    if rows > 15 { #expect(screen.contains("next host"), "\(screen)") }
    #expect(screen.contains("in the room") || screen.contains("not joined"), "\(screen)")
    #expect(!screen.contains("in the r…") && !screen.contains("not joi…"), "\(screen)")
    #expect(!screen.contains("(next h…") && !screen.contains("(next …"), "\(screen)")
  }
}
