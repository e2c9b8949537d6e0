import PlaybackCoordination
import Testing

@testable import TerminalFront

@Suite("Front: ready checks")
struct ReadyCheckFrontTests {
  /// bob asked at `now`; the group is paused at 12:34; alice (this front) has not answered.
  static func askedByBob() -> FrontModel {
    var model = Fixtures.pausedByBob()
    model.group.session?.readyCheck = ReadyCheck(
      askedBy: Fixtures.bob, askedByName: "bob", since: Fixtures.now,
      deadline: Fixtures.now.advanced(bySeconds: 112))
    model.group.participants[1].readyToWatch = true
    return model
  }

  @Test("someone else's question is asked once: Ready answers ready, Esc leaves it for later")
  func answering() {
    var c = FrontController()
    var model = Self.askedByBob()
    c.prepare(&model)
    #expect(c.activePrompt?.kind == .readyAsked(since: Fixtures.now))
    #expect(c.activePrompt?.message.hasPrefix("bob asks whether everyone is ready") == true)
    #expect(c.handle(key: .character("r"), model: model) == [.act(.ready(true))])
    c.prepare(&model)
    #expect(c.activePrompt == nil, "asked once")

    var later = FrontController()
    var again = Self.askedByBob()
    later.prepare(&again)
    #expect(later.handle(key: .escape, model: again) == [])
    // y answers any time, as the help says.
    #expect(later.handle(key: .character("y"), model: again) == [.act(.ready(nil))])
  }

  @Test(
    "attack: bob asking and taking it back over and over puts the question in front of alice once in 30 s; carol's is asked at once; the pane still shows each"
  )
  func askedAgainAndAgain() {
    var c = FrontController()
    var model = Self.askedByBob()
    c.prepare(&model)
    #expect(c.activePrompt?.kind == .readyAsked(since: Fixtures.now))
    _ = c.handle(key: .escape, model: model)
    // bob takes it back and asks again, ten times over 20 s.
    for i in 1...10 {
      let since = Fixtures.now.advanced(bySeconds: Double(i) * 2)
      model.group.session?.readyCheck = ReadyCheck(
        askedBy: Fixtures.bob, askedByName: "bob", since: since,
        deadline: since.advanced(bySeconds: 120))
      model.now = since
      c.prepare(&model)
      #expect(c.activePrompt == nil, "asked again at +\(i * 2) s")
      let text = ScreenRenderer.render(model, rows: 35, cols: 120).text
      #expect(text.contains("ready? waiting for you, carol"))
    }
    // Past the spacing, bob's question is asked again.
    let later = Fixtures.now.advanced(bySeconds: 31)
    model.group.session?.readyCheck = ReadyCheck(
      askedBy: Fixtures.bob, askedByName: "bob", since: later,
      deadline: later.advanced(bySeconds: 120))
    c.prepare(&model)
    #expect(c.activePrompt?.kind == .readyAsked(since: later))
    _ = c.handle(key: .escape, model: model)
    // Another asker is not held back by bob's.
    let carols = later.advanced(bySeconds: 1)
    model.group.session?.readyCheck = ReadyCheck(
      askedBy: Fixtures.carol, askedByName: "carol", since: carols,
      deadline: carols.advanced(bySeconds: 120))
    c.prepare(&model)
    #expect(c.activePrompt?.kind == .readyAsked(since: carols))
  }

  @Test("the question goes away once answered elsewhere or over")
  func dropped() {
    var c = FrontController()
    var model = Self.askedByBob()
    c.prepare(&model)
    model.group.participants[0].readyToWatch = true
    c.prepare(&model)
    #expect(c.activePrompt == nil)
  }

  @Test("g asks; g on one's own open question offers start anyway or take it back")
  func asking() {
    var c = FrontController()
    var model = Fixtures.playing()
    #expect(c.handle(key: .character("g"), model: model) == [.act(.readyCheck)])
    model.group.session?.readyCheck = ReadyCheck(
      askedBy: Fixtures.alice, askedByName: "alice", since: Fixtures.now,
      deadline: Fixtures.now.advanced(bySeconds: 120))
    model.group.participants[0].readyToWatch = true
    #expect(c.handle(key: .character("g"), model: model) == [.redraw])
    #expect(c.activePrompt?.message == "Waiting for bob, carol.")
    #expect(c.handle(key: .character("s"), model: model) == [.act(.startAnyway)])
    _ = c.handle(key: .character("g"), model: model)
    #expect(c.handle(key: .character("t"), model: model) == [.act(.cancelReadyCheck)])
  }

  @Test("the people pane marks who said ready and counts the question down; then the countdown")
  func shown() {
    var model = Self.askedByBob()
    var text = ScreenRenderer.render(model, rows: 35, cols: 120).text
    #expect(text.contains("bob ✓"))
    #expect(!text.contains("alice ✓"))
    #expect(text.contains("ready? waiting for you, carol (1:52)"))

    model.group.session?.readyCheck = nil
    let startsAt = Fixtures.now.advanced(bySeconds: 2.5)
    model.group.session?.timeline = Timeline(itemTime: 754, groupTime: startsAt, rate: 1)
    model.group.session?.intendedRate = 1
    model.group.session?.countdown = startsAt
    text = ScreenRenderer.render(model, rows: 35, cols: 120).text
    #expect(text.contains("▶ starting in 3…"))
    model.now = startsAt.advanced(bySeconds: 0.1)
    text = ScreenRenderer.render(model, rows: 35, cols: 120).text
    #expect(!text.contains("starting in"))
  }

  @Test("the owner's room menu sets whether a play waits for everyone to be ready")
  func roomMenu() {
    var c = FrontController()
    let model = RoomMenuTests.owned(by: Fixtures.alice)
    _ = c.handle(key: .character("o"), model: model)
    #expect(c.handle(key: .character("w"), model: model) == [.act(.startWhenAllReady(true))])
  }
}
