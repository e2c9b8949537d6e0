import Narration
import PlaybackCoordination
import Testing

@testable import TerminalFront

@Suite("keys and prompts")
struct FrontControllerTests {
  func press(_ keys: [Key], _ model: FrontModel, _ controller: inout FrontController)
    -> [FrontAction]
  {
    var last: [FrontAction] = []
    for k in keys { last = controller.handle(key: k, model: model) }
    return last
  }

  @Test(
    "watching alone, the controller decides the playback keys in the one place keys are decided: they drive this person's own player"
  )
  func aloneKeys() {
    let model = Fixtures.watchingAlone()
    var controller = FrontController()
    #expect(press([.character(" ")], model, &controller) == [.localPlayPause])
    #expect(press([.right], model, &controller) == [.seekLocally(by: 10)])
    #expect(press([.down], model, &controller) == [.seekLocally(by: -60)])
    #expect(press([.character("]")], model, &controller) == [.localRate(faster: true)])
    #expect(
      press([.character("n")], model, &controller)
        == [.localNotice("you are watching alone — press e to pick another episode")])
    // In the room's session, the same keys are the group's.
    #expect(press([.character(" ")], Fixtures.playing(), &controller) != [.localPlayPause])
  }

  @Test(
    "stepped away, the keys' line offers coming back and the local arrows, not the group's keys")
  func footerWhileAway() {
    let away = ScreenRenderer.render(Fixtures.suspended(), rows: 35, cols: 120).lines[34]
    #expect(away.contains("s come back") && away.contains("←/→ 10s"), "\(away)")
    #expect(
      !away.contains("space") && !away.contains("n next") && !away.contains("faster"), "\(away)")
    let watching = ScreenRenderer.render(Fixtures.playing(), rows: 35, cols: 120).lines[34]
    #expect(watching.contains("space pause") && watching.contains("s step away"), "\(watching)")
  }

  @Test(
    "when only the owner controls playback, the others' playback keys say so at once (not sent to be refused), Come back offers only catching up, and the keys' line leaves them out"
  )
  func ownerOnlyControl() {
    var c = FrontController()
    var model = Fixtures.playing()
    model.group.control = RoomControl(owner: Fixtures.bob, playback: .owner)
    let refusal = FrontAction.localNotice("only bob controls playback in this room")
    for key in [Key.character(" "), .right, .up, .character("]"), .character("n")] {
      #expect(c.handle(key: key, model: model) == [refusal], "\(key)")
    }
    _ = c.handle(key: .character("e"), model: model)
    #expect(c.handle(key: .character("3"), model: model) == [refusal])
    c.dismissAllPrompts()
    var away = model
    away.group.participants[0].suspensions = [.interrupted]
    _ = c.handle(key: .character("s"), model: away)
    #expect(c.activePrompt?.options.map(\.choice) == [.catchUp, .cancel])
    c.dismissAllPrompts()
    let keys = ScreenRenderer.render(model, rows: 35, cols: 120).lines[34]
    #expect(!keys.contains("space") && keys.contains("s step away"), "\(keys)")
    // Auto-advance is one's own to set, but under owner control only the owner's counts.
    var off = model
    off.group.participants[0].autoAdvance = false
    #expect(
      c.handle(key: .character("a"), model: off) == [
        .act(.autoAdvance(true)),
        .localNotice(
          "while bob controls playback, only bob's auto-advance goes on to the next episode"),
      ])
    // The owner moves the group as ever.
    model.group.control.owner = Fixtures.alice
    #expect(c.handle(key: .character(" "), model: model) == [.act(.playback(.togglePlayback))])
  }

  @Test(
    "once the front gave up on the relay, its own row says disconnected (not reconnecting) and the keys' line offers only help and quit"
  )
  func disconnectedScreen() {
    var model = Fixtures.playing()
    model.connection = .disconnected(reason: "gave up reconnecting to the relay")
    let lines = ScreenRenderer.render(model, rows: 35, cols: 120).lines
    #expect(lines.contains { $0.contains("(you)") && $0.contains("disconnected") }, "\(lines)")
    #expect(!lines.contains { $0.contains("(you)") && $0.contains("reconnecting") })
    #expect(lines[34].trimmingCharacters(in: .whitespaces) == "? help  q quit", "\(lines[34])")
  }

  @Test(
    "space toggles playback, whatever the screen shows: the client decides from what it last asked for"
  )
  func playPause() {
    var c = FrontController()
    for model in [
      Fixtures.playing(), Fixtures.pausedByBob(), Fixtures.finished(), Fixtures.waiting(),
    ] {
      #expect(c.handle(key: .character(" "), model: model) == [.act(.playback(.togglePlayback))])
    }
  }

  @Test("arrows seek by ±10 s and ±60 s, relative to wherever the client last asked to be")
  func seeking() {
    var c = FrontController()
    let model = Fixtures.playing()
    #expect(c.handle(key: .left, model: model) == [.act(.playback(.seekBy(-10)))])
    #expect(c.handle(key: .right, model: model) == [.act(.playback(.seekBy(10)))])
    #expect(c.handle(key: .up, model: model) == [.act(.playback(.seekBy(60)))])
    #expect(c.handle(key: .down, model: model) == [.act(.playback(.seekBy(-60)))])
  }

  @Test("five → in a row are five seeks by 10 s, whatever the screen still shows")
  func seekBurst() {
    var c = FrontController()
    let model = Fixtures.playing()
    let actions = (0..<5).flatMap { _ in c.handle(key: .right, model: model) }
    #expect(actions == Array(repeating: .act(.playback(.seekBy(10))), count: 5))
  }

  @Test(
    "[ and ] change the speed by a quarter",
    arguments: [(1.0, "]", 0.25), (1.0, "[", -0.25), (1.75, "]", 0.25), (0.5, "[", -0.25)])
  func rates(_ from: Double, _ key: String, _ delta: Double) {
    var c = FrontController()
    var model = Fixtures.playing()
    model.group.session = Fixtures.session(rate: from)
    #expect(
      c.handle(key: .character(Character(key)), model: model) == [
        .act(.playback(.changeRate(by: delta)))
      ]
    )
  }

  @Test("at the fastest rate the relay allows ] only says so, and at the slowest [")
  func rateLimit() {
    var c = FrontController()
    var model = Fixtures.playing()
    // The relay's range, not one of the front's own: 4× by default, here 2×.
    model.group.session = Fixtures.session(rate: 2)
    #expect(
      c.handle(key: .character("]"), model: model) == [.act(.playback(.changeRate(by: 0.25)))])
    model.allowedRates = 0.25...2
    #expect(c.handle(key: .character("]"), model: model) == [.localNotice("speed is already 2×")])
    #expect(
      c.handle(key: .character("["), model: model) == [.act(.playback(.changeRate(by: -0.25)))])
    model.group.session = Fixtures.session(rate: 0.25)
    #expect(
      c.handle(key: .character("["), model: model) == [.localNotice("speed is already 0.25×")])
  }

  @Test("n asks to confirm the switch to the next episode; yes switches, no does nothing")
  func next() {
    var c = FrontController()
    let model = Fixtures.playing()
    #expect(c.handle(key: .character("n"), model: model) == [.redraw])
    #expect(c.activePrompt?.kind == .confirmSwitch(item: "harbour/s1e3"))
    #expect(c.activePrompt?.message == "Switch everyone to S1E3 · The Storm?")
    #expect(
      c.handle(key: .enter, model: model) == [.act(.switchTo("harbour/s1e3", confirmed: true))])
    #expect(c.activePrompt == nil)
    _ = c.handle(key: .character("n"), model: model)
    #expect(c.handle(key: .character("n"), model: model) == [.redraw])
    #expect(c.activePrompt == nil)
    _ = c.handle(key: .character("n"), model: model)
    #expect(press([.right, .enter], model, &c) == [.redraw])
    _ = c.handle(key: .character("n"), model: model)
    #expect(
      c.handle(key: .character("Y"), model: model) == [
        .act(.switchTo("harbour/s1e3", confirmed: true))
      ])
  }

  @Test(
    "a switch prompt left open closes once someone else switched the group there: confirming it would restart the episode for everyone"
  )
  func staleSwitchPrompt() {
    var c = FrontController()
    var model = Fixtures.playing()
    _ = c.handle(key: .character("n"), model: model)
    #expect(c.activePrompt?.kind == .confirmSwitch(item: "harbour/s1e3"))
    // bob switched the group to S1E3 meanwhile.
    model.group.session?.item = Fixtures.series.items[2]
    c.prepare(&model)
    #expect(c.activePrompt == nil)
    #expect(
      c.handle(key: .character("y"), model: model) != [
        .act(.switchTo("harbour/s1e3", confirmed: true))
      ])
    // A prompt for another episode than where the group went stays: it still means something.
    _ = c.handle(key: .character("e"), model: model)
    _ = c.handle(key: .character("1"), model: model)
    #expect(c.activePrompt?.kind == .confirmSwitch(item: "harbour/s1e1"))
    model.group.session?.item = Fixtures.series.items[3]
    c.prepare(&model)
    #expect(c.activePrompt?.kind == .confirmSwitch(item: "harbour/s1e1"))
  }

  @Test(
    "someone who has not joined the others' session and picks another episode is asked: switch everyone, join them, only me — never ends their session unasked"
  )
  func pickWhileOthersWatch() {
    var c = FrontController()
    var model = Fixtures.sessionOffered()
    c.dismissAllPrompts()
    _ = c.handle(key: .character("e"), model: model)
    #expect(c.handle(key: .character("3"), model: model) == [.redraw])
    #expect(c.activePrompt?.kind == .replaceSession(item: "harbour/s1e3"))
    #expect(
      c.activePrompt?.message
        == "bob, carol are watching S1E2 · The Lighthouse Keeper. Switch everyone to Harbour Lights — S1E3 · The Storm, or join them?"
    )
    // Enter, unread, joins them: it changes nothing for the others.
    #expect(c.activePrompt?.selectedOption?.choice == .join)
    #expect(c.handle(key: .enter, model: model) == [.act(.join)])
    _ = c.handle(key: .character("e"), model: model)
    _ = c.handle(key: .character("3"), model: model)
    #expect(
      c.handle(key: .character("s"), model: model) == [
        .act(.join), .act(.switchTo("harbour/s1e3", confirmed: true)),
      ])
    _ = c.handle(key: .character("e"), model: model)
    _ = c.handle(key: .character("3"), model: model)
    #expect(c.handle(key: .character("j"), model: model) == [.act(.join)])
    _ = c.handle(key: .character("e"), model: model)
    _ = c.handle(key: .character("3"), model: model)
    #expect(
      c.handle(key: .character("o"), model: model) == [.watchAlone("harbour/s1e3")])
    // Picking what they watch is joining them.
    _ = c.handle(key: .character("e"), model: model)
    #expect(c.handle(key: .character("2"), model: model) == [.act(.join)])
    // Joined meanwhile (from another key, or the offer): the question is gone.
    _ = c.handle(key: .character("e"), model: model)
    _ = c.handle(key: .character("3"), model: model)
    model.membership = .joined
    model.group.participants[0].isJoined = true
    c.prepare(&model)
    #expect(c.activePrompt == nil)
    // Nobody watching (everyone left the session): starting one is asked as before.
    var empty = Fixtures.sessionOffered()
    for i in empty.group.participants.indices { empty.group.participants[i].isJoined = false }
    var d = FrontController()
    _ = d.handle(key: .character("e"), model: empty)
    _ = d.handle(key: .character("3"), model: empty)
    #expect(d.activePrompt?.kind == .startSession(item: "harbour/s1e3"))
  }

  @Test("n on the last episode says so, by its title and the series'")
  func nextAtEnd() {
    var c = FrontController()
    var model = Fixtures.playing()
    model.group.session?.item = Fixtures.series.items[3]
    let item = Fixtures.series.items[3]
    #expect(
      c.handle(key: .character("n"), model: model) == [
        .localNotice("S1E4 · \(item.title) is the last episode of \(Fixtures.series.title)")
      ])
  }

  @Test(
    "e opens the picker on the current episode, the other series below; picking another asks to confirm"
  )
  func picker() {
    var c = FrontController()
    let model = Fixtures.playing()
    _ = c.handle(key: .character("e"), model: model)
    #expect(c.activePrompt?.kind == .episodePicker)
    #expect(c.activePrompt?.selection == 1)
    #expect(c.activePrompt?.options.last?.choice == .item("testcard/bars"), "every series")
    _ = c.handle(key: .end, model: model)
    #expect(c.handle(key: .enter, model: model) == [.redraw])
    #expect(c.activePrompt?.kind == .confirmSwitch(item: "testcard/bars"))
    #expect(
      c.handle(key: .character("y"), model: model) == [
        .act(.switchTo("testcard/bars", confirmed: true))
      ])
    _ = c.handle(key: .character("e"), model: model)
    _ = press([.down, .down], model, &c)
    #expect(c.activePrompt?.selection == 3)
    #expect(c.handle(key: .enter, model: model) == [.redraw])
    #expect(c.activePrompt?.kind == .confirmSwitch(item: "harbour/s1e4"))
    #expect(
      c.handle(key: .character("y"), model: model) == [
        .act(.switchTo("harbour/s1e4", confirmed: true))
      ])
    _ = c.handle(key: .character("e"), model: model)
    #expect(c.handle(key: .character("2"), model: model) == [.localNotice("already watching S1E2")])
  }

  @Test("without a session, picking an episode asks watch together / only me")
  func startFromPicker() {
    var c = FrontController()
    let model = Fixtures.noSession()
    _ = c.handle(key: .character("e"), model: model)
    #expect(c.activePrompt?.options.count == 5)
    #expect(c.handle(key: .character("3"), model: model) == [.redraw])
    #expect(c.activePrompt?.kind == .startSession(item: "harbour/s1e3"))
    #expect(c.handle(key: .enter, model: model) == [.act(.start("harbour/s1e3"))])
    _ = c.handle(key: .character("e"), model: model)
    _ = c.handle(key: .enter, model: model)
    #expect(
      c.handle(key: .character("o"), model: model) == [.watchAlone("harbour/s1e1")])
    _ = c.handle(key: .character("e"), model: model)
    _ = c.handle(key: .enter, model: model)
    #expect(press([.tab, .tab, .enter], model, &c) == [.redraw])
    #expect(c.activePrompt == nil)
  }

  @Test("alone in the room, picking starts at once")
  func startAlone() {
    var c = FrontController()
    var model = Fixtures.noSession()
    model.group.participants = [model.group.participants[0]]
    _ = c.handle(key: .character("e"), model: model)
    #expect(c.handle(key: .enter, model: model) == [.act(.start("harbour/s1e1"))])
  }

  @Test("q asks end for everyone / only me / cancel while joined; quits at once otherwise")
  func quit() {
    var c = FrontController()
    let model = Fixtures.playing()
    _ = c.handle(key: .character("q"), model: model)
    #expect(c.activePrompt?.kind == .quit)
    #expect(c.activePrompt?.selectedOption?.choice == .leaveOnlyMe)
    #expect(c.handle(key: .enter, model: model) == [.act(.leave), .quit])
    _ = c.handle(key: .character("q"), model: model)
    #expect(c.handle(key: .character("e"), model: model) == [.act(.end), .quit])
    _ = c.handle(key: .character("q"), model: model)
    #expect(c.handle(key: .escape, model: model) == [.redraw])
    _ = c.handle(key: .character("q"), model: model)
    #expect(press([.left, .left, .enter], model, &c) == [.redraw])
    #expect(c.handle(key: .character("q"), model: Fixtures.noSession()) == [.quit])
  }

  @Test(
    "Ctrl-C (the terminal's SIGINT) asks the quit question as q does; a second Ctrl-C leaves at once"
  )
  func controlC() {
    var c = FrontController()
    let model = Fixtures.playing()
    #expect(c.handle(key: .control("c"), model: model) == [.redraw])
    #expect(c.activePrompt?.kind == .quit)
    #expect(c.handle(key: .control("c"), model: model) == [.act(.leave), .quit])
    // SIGTERM or a closed terminal: gone without asking, as only me.
    var d = FrontController()
    #expect(d.handle(key: .interrupt, model: model) == [.act(.leave), .quit])
  }

  @Test("hosting, q asks before ending the room for the others; yes ends the session, then quits")
  func hostQuit() {
    var c = FrontController(hostsRoom: true)
    let model = Fixtures.playing()
    #expect(c.handle(key: .character("q"), model: model) == [.redraw])
    #expect(c.activePrompt?.kind == .leaveHostedRoom)
    #expect(
      c.activePrompt?.message
        == "Nobody else's machine can carry this room on: leaving ends it for bob, carol. Leave anyway?"
    )
    #expect(c.activePrompt?.selectedOption?.choice == .cancel)
    #expect(c.handle(key: .enter, model: model) == [.redraw])
    _ = c.handle(key: .character("q"), model: model)
    #expect(c.handle(key: .character("y"), model: model) == [.act(.end), .quit])
    _ = c.handle(key: .character("q"), model: Fixtures.noSession())
    #expect(c.handle(key: .character("y"), model: Fixtures.noSession()) == [.quit])
  }

  @Test("s asks why and steps away; s again asks how to come back; a toggles auto-advance")
  func suspendAndAutoAdvance() {
    var c = FrontController()
    #expect(c.handle(key: .character("s"), model: Fixtures.playing()) == [.redraw])
    #expect(c.activePrompt?.kind == .stepAway)
    #expect(c.handle(key: .enter, model: Fixtures.playing()) == [.act(.suspend(.interrupted))])
    #expect(
      c.handle(key: .character("a"), model: Fixtures.playing()) == [.act(.autoAdvance(false))])
    let away = Fixtures.suspended()
    #expect(
      c.handle(key: .character(" "), model: away) == [
        .localNotice("you stepped away — press s to come back")
      ])
    // Stepped away, the arrows move only this player.
    let here = away.player.position
    #expect(c.handle(key: .right, model: away) == [.seekLocally(by: 10)])
    #expect(c.handle(key: .down, model: away) == [.seekLocally(by: -60)])
    // Coming back asks: catch up, or bring everyone here.
    #expect(c.handle(key: .character("s"), model: away) == [.redraw])
    #expect(c.activePrompt?.kind == .comeBack(position: here))
    #expect(c.handle(key: .character("c"), model: away) == [.act(.resume)])
    #expect(c.handle(key: .character("s"), model: away) == [.redraw])
    #expect(c.handle(key: .character("b"), model: away) == [.act(.resumeAt(here))])
    #expect(c.handle(key: .character("s"), model: away) == [.redraw])
    #expect(c.handle(key: .escape, model: away) == [.redraw])
    #expect(c.activePrompt == nil)
  }

  @Test("c opens the chat line; enter sends the trimmed text, esc drops it")
  func chat() {
    var c = FrontController()
    var model = Fixtures.playing()
    _ = c.handle(key: .character("c"), model: model)
    _ = press("  hi 漢!".map { .character($0) } + [.backspace], model, &c)
    c.prepare(&model)
    #expect(model.chatInput == "  hi 漢")
    #expect(c.handle(key: .enter, model: model) == [.act(.say("hi 漢"))])
    _ = c.handle(key: .character("c"), model: model)
    _ = press([.character("q"), .character("x")], model, &c)
    #expect(c.activePrompt?.input == "qx")
    #expect(c.handle(key: .escape, model: model) == [.redraw])
    _ = c.handle(key: .character("c"), model: model)
    #expect(c.handle(key: .enter, model: model) == [.redraw])
  }

  @Test("a newly started session is offered once; join or not now")
  func sessionOffer() {
    var c = FrontController()
    var model = Fixtures.sessionOffered()
    model.prompt = nil
    c.prepare(&model)
    #expect(model.prompt?.kind == .sessionOffered(sessionID: 1))
    #expect(model.prompt?.message == "bob started Harbour Lights — S1E2 · The Lighthouse Keeper.")
    // "Not now" goes to the group only while it waits for this answer.
    var asked = model
    asked.group.session?.invited = [Fixtures.alice]
    var answering = c
    #expect(answering.handle(key: .character("n"), model: asked) == [.act(.decline)])
    #expect(c.handle(key: .character("n"), model: model) == [])
    c.prepare(&model)
    #expect(model.prompt == nil)
    #expect(c.handle(key: .character("j"), model: model) == [.act(.join)])
    #expect(
      c.handle(key: .character(" "), model: model) == [
        .localNotice("press j to join the watch session first")
      ])
    c.prepare(&model)
    _ = c.handle(key: .character("j"), model: model)
    model.group.session?.id = 2
    c.prepare(&model)
    #expect(model.prompt?.kind == .sessionOffered(sessionID: 2))
    #expect(c.handle(key: .enter, model: model) == [.act(.join)])
  }

  @Test("an offer disappears once the session is joined or gone")
  func offerWithdrawn() {
    var c = FrontController()
    var model = Fixtures.sessionOffered()
    c.prepare(&model)
    #expect(model.prompt != nil)
    model.membership = .noSession
    model.group.session = nil
    c.prepare(&model)
    #expect(model.prompt == nil)
  }

  @Test(
    "? toggles help; space pages it; any other key closes it; playback keys need a joined session")
  func help() {
    var c = FrontController()
    var model = Fixtures.playing()
    #expect(c.handle(key: .character("?"), model: model) == [.redraw])
    c.prepare(&model)
    #expect(model.showsHelp)
    #expect(c.handle(key: .character(" "), model: model) == [.redraw])
    c.prepare(&model)
    #expect(model.showsHelp && model.helpPage == 1, "space turns the page")
    #expect(c.handle(key: .escape, model: model) == [.redraw])
    c.prepare(&model)
    #expect(!model.showsHelp)
    #expect(
      c.handle(key: .character(" "), model: Fixtures.noSession()) == [
        .localNotice("nothing is being watched — press e to pick an episode")
      ])
    #expect(c.handle(key: .character("x"), model: model) == [])
    #expect(c.handle(key: .resize, model: model) == [.redraw])
  }

  @Test("an interrupt leaves the session and quits")
  func interrupt() {
    var c = FrontController()
    #expect(c.handle(key: .interrupt, model: Fixtures.playing()) == [.act(.leave), .quit])
    #expect(c.handle(key: .interrupt, model: Fixtures.noSession()) == [.quit])
  }
}

@Suite("prompt navigation")
struct PromptTests {
  /// The first night's script found the invite's two buttons both on c (the footer read
  /// "c/c"): Close could not be chosen by its letter.
  @Test("no two buttons of a question share a hotkey")
  func distinctHotkeys() {
    let item = ItemInfo(id: "harbour/s1e1", title: "Arrival", duration: 2520)
    let ann = Participant(id: "p1", name: "ann")
    let prompts: [Prompt] = [
      .sessionOffered(sessionID: 1, startedBy: "bob", seriesTitle: "Harbour", item: item),
      .startSession(item: item, seriesTitle: "Harbour", others: ["bob"]),
      .replaceSession(item: item, seriesTitle: "Harbour", current: item, watchers: ["bob"]),
      .confirmSwitch(to: item), .invite("cowatch://lobby@10.0.0.7/plain"), .quit(others: 1),
      .quit(others: 0), .quitUnreachable(), .leaveHostedRoom(others: ["bob"]),
      .confirmPlayQueued(entry: 1, item: item),
      .comeBack(position: 12, groupPosition: 20, canBringEveryone: true),
      .comeBack(position: 12, groupPosition: nil, canBringEveryone: false),
      .roomMenu(control: RoomControl()),
      .confirmRemove(ann, locked: false), .confirmHandOver(ann), .stepAway(waits: []),
    ]
    for prompt in prompts {
      let keys = prompt.options.compactMap { $0.hotkey.map { Character($0.lowercased()) } }
      #expect(Set(keys).count == keys.count, "\(prompt.title): \(keys)")
    }
  }

  @Test("buttons wrap around with arrows and tab; hotkeys choose at once")
  func buttons() {
    var p = Prompt.quit(others: 1)
    #expect(p.selection == 1)
    #expect(p.handle(.right) == .pending)
    #expect(p.selection == 2)
    #expect(p.handle(.tab) == .pending)
    #expect(p.selection == 0)
    #expect(p.handle(.backTab) == .pending)
    #expect(p.selection == 2)
    #expect(p.handle(.enter) == .chosen(.cancel))
    #expect(p.handle(.character("E")) == .chosen(.endForEveryone))
    #expect(p.handle(.character("z")) == .pending)
    #expect(p.handle(.escape) == .cancelled)
  }

  @Test("lists stop at their ends; digits pick; page keys jump")
  func list() {
    var p = Prompt.episodePicker(series: [Fixtures.series, Fixtures.testCard], current: nil)
    #expect(p.options.count == 5)
    #expect(p.options[4].label == "Test Card · Colour bars")
    #expect(p.handle(.up) == .pending)
    #expect(p.selection == 0)
    _ = p.handle(.pageDown)
    #expect(p.selection == 4)
    _ = p.handle(.home)
    #expect(p.selection == 0)
    _ = p.handle(.end)
    #expect(p.handle(.enter) == .chosen(.item("testcard/bars")))
    #expect(p.handle(.character("2")) == .chosen(.item("harbour/s1e2")))
    #expect(p.handle(.character("9")) == .pending)
  }

  @Test("input edits: typing, backspace, ctrl-w, ctrl-u, limit")
  func input() {
    var p = Prompt.chat()
    p.inputLimit = 12
    for ch in "hello there" { _ = p.handle(.character(ch)) }
    _ = p.handle(.control("w"))
    #expect(p.input == "hello ")
    _ = p.handle(.backspace)
    #expect(p.input == "hello")
    for ch in "0123456789" { _ = p.handle(.character(ch)) }
    #expect(p.input == "hello0123456")
    #expect(p.handle(.enter) == .submitted("hello0123456"))
    _ = p.handle(.control("u"))
    #expect(p.input.isEmpty)
  }

  @Test("episode codes come from item ids")
  func codes() {
    #expect(EpisodeLabel.code("harbour/s1e3") == "S1E3")
    #expect(EpisodeLabel.code("harbour/S12E04") == "S12E04")
    #expect(EpisodeLabel.code("testcard/bars") == "bars")
    #expect(EpisodeLabel.code("s1e2x") == "s1e2x")
    #expect(RateFormat.text(1) == "1×")
    #expect(RateFormat.text(1.5) == "1.5×")
    #expect(RateFormat.text(0.75) == "0.75×")
    #expect(RateFormat.text(0.05) == "0.05×")
  }
}

@Suite("the owner's room menu")
struct RoomMenuTests {
  static func owned(by owner: ParticipantID) -> FrontModel {
    var model = Fixtures.playing()
    model.group.control = RoomControl(owner: owner)
    return model
  }

  @Test(
    "o opens the owner's menu; lock, playback control, hand over and remove become the owner's commands"
  )
  func ownerMenu() {
    let model = Self.owned(by: Fixtures.alice)
    var c = FrontController()
    #expect(c.handle(key: .character("o"), model: model) == [.redraw])
    #expect(c.activePrompt?.kind == .roomMenu)
    #expect(c.handle(key: .character("l"), model: model) == [.act(.lock(true))])
    _ = c.handle(key: .character("o"), model: model)
    #expect(
      c.handle(key: .character("p"), model: model) == [.act(.control(.owner))])
    _ = c.handle(key: .character("o"), model: model)
    _ = c.handle(key: .character("h"), model: model)
    #expect(c.activePrompt?.kind == .pickPerson(handOver: true))
    #expect(c.activePrompt?.options.map(\.label) == ["bob", "carol"])
    // Handing over is asked once more; Enter alone (No, selected) keeps the room.
    #expect(c.handle(key: .enter, model: model) == [.redraw])
    #expect(c.activePrompt?.kind == .confirmHandOver(Fixtures.bob))
    #expect(
      c.handle(key: .enter, model: model) != [.act(.owner(.id(Fixtures.bob)))])
    _ = c.handle(key: .character("o"), model: model)
    _ = c.handle(key: .character("h"), model: model)
    _ = c.handle(key: .enter, model: model)
    #expect(
      c.handle(key: .character("y"), model: model) == [
        .act(.owner(.id(Fixtures.bob)))
      ])
    _ = c.handle(key: .character("o"), model: model)
    _ = c.handle(key: .character("r"), model: model)
    _ = c.handle(key: .down, model: model)
    // Removing is asked once more; Enter alone (No, selected) keeps carol.
    #expect(c.handle(key: .enter, model: model) == [.redraw])
    #expect(c.activePrompt?.kind == .confirmRemove(Fixtures.carol))
    #expect(
      c.activePrompt?.message
        == "Remove carol from the room? Their place goes; they can enter again.")
    #expect(c.handle(key: .enter, model: model) != [.act(.remove(.id(Fixtures.carol)))])
    #expect(c.activePrompt == nil)
    _ = c.handle(key: .character("o"), model: model)
    _ = c.handle(key: .character("r"), model: model)
    _ = c.handle(key: .down, model: model)
    _ = c.handle(key: .enter, model: model)
    #expect(c.handle(key: .character("y"), model: model) == [.act(.remove(.id(Fixtures.carol)))])
    // A locked room owned with owner-only playback offers the way back.
    var locked = model
    locked.group.control = RoomControl(owner: Fixtures.alice, locked: true, playback: .owner)
    _ = c.handle(key: .character("o"), model: locked)
    #expect(c.activePrompt?.options.prefix(2).map(\.choice) == [.lock(false), .control(.everyone)])
    #expect(c.handle(key: .escape, model: locked) == [.redraw])
  }

  @Test(
    "keeping the room for next time is offered where the relay keeps rooms, and taken back once kept, wherever"
  )
  func keepOffered() {
    var model = Self.owned(by: Fixtures.alice)
    var c = FrontController()
    _ = c.handle(key: .character("o"), model: model)
    #expect(
      c.activePrompt?.options.contains { $0.hotkey == "k" } == false, "a host's relay keeps none")
    _ = c.handle(key: .escape, model: model)
    model.relayKeepsRooms = true
    _ = c.handle(key: .character("o"), model: model)
    #expect(c.handle(key: .character("k"), model: model) == [.act(.keepRoom(true))])
    model.group.control.kept = true
    model.relayKeepsRooms = false
    _ = c.handle(key: .character("o"), model: model)
    #expect(c.activePrompt?.message.contains("kept for next time") == true)
    #expect(c.handle(key: .character("k"), model: model) == [.act(.keepRoom(false))])
  }

  @Test("o for anyone but the owner says who the owner is and changes nothing")
  func notOwner() {
    var c = FrontController()
    let actions = c.handle(key: .character("o"), model: Self.owned(by: Fixtures.bob))
    #expect(
      actions == [
        .localNotice(
          "only bob can lock the room, choose who controls playback, hand it over or remove someone"
        )
      ])
    #expect(c.activePrompt == nil)
  }

  @Test(
    "the screen marks the owner with a star, a sealed room with a lock, and says who controls playback"
  )
  func marks() {
    var model = Self.owned(by: Fixtures.bob)
    model.group.control.locked = true
    model.group.control.playback = .owner
    model.messagesSealed = true
    let text = ScreenRenderer.render(model, rows: 35, cols: 120).text
    let header = text.split(separator: "\n").first.map(String.init) ?? ""
    #expect(header.contains("room lobby 🔒 · locked · bob controls playback"), "\(header)")
    #expect(text.contains("bob ★"))
    #expect(!text.contains("alice ★"))
  }
}

@Suite("a late joiner")
struct LateJoinerTests {
  @Test("is told who started the session, from the session itself, not \"Someone\"")
  func whoStarted() {
    var model = Fixtures.playing()
    model.group.participants[0].isJoined = false
    model.membership = .waiting
    model.group.session?.startedBy = "bob"
    var c = FrontController()
    c.prepare(&model)
    #expect(
      model.prompt?.message.hasPrefix("bob started Harbour Lights") == true,
      "\(model.prompt?.message ?? "")")
    #expect(ScreenRenderer.render(model, rows: 35, cols: 120).text.contains("bob started watching"))
  }
}

@Suite("the engine")
struct SessionStarterTests {
  @Test("records who started the session, in the state every replica holds")
  func recorded() throws {
    var engine = GroupEngine()
    _ = engine.apply(.enter(name: "ann"), from: "p1", at: GroupInstant(seconds: 1))
    _ = try engine.apply(
      .start(series: Fixtures.series, item: Fixtures.series.items[0].id), from: "p1",
      at: GroupInstant(seconds: 2)
    ).get()
    #expect(engine.state.session?.startedBy == "ann")
  }
}

@Suite("notices and live prompts")
struct LiveTextTests {
  @Test("the same notice again while shown is one notice, not a stack")
  func noStacking() {
    var model = Fixtures.playing()
    let before = model.notices.count
    model.post("speed is already 2×", kind: .error)
    model.post("speed is already 2×", kind: .error)
    model.now = model.now.advanced(bySeconds: 1)
    model.post("speed is already 2×", kind: .error)
    #expect(model.notices.count == before + 1)
    #expect(model.notices.first?.at == model.now)
    model.post("bob paused at 12:34")
    model.post("speed is already 2×", kind: .error)
    #expect(model.notices.count == before + 3, "another notice between: shown again")
  }

  @Test(
    "the step-away menu offers SharePlay's reasons and one's own, and says which ones the group waits for"
  )
  func stepAwayMenu() throws {
    var c = FrontController()
    var model = Fixtures.playing()
    model.waitingReasons = [.stallRecovery, .userActionRequired]
    _ = c.handle(key: .character("s"), model: model)
    let menu = try #require(c.activePrompt)
    #expect(
      menu.options.map(\.label) == [
        "A call or an interruption", "Changing the time (to bring everyone there)",
        "My player needs me", "My player isn't working", "Other: type a reason",
      ])
    #expect(
      menu.options.map(\.detail) == [
        "the group plays on", "the group plays on", "the group waits", "the group plays on",
        "the group plays on",
      ])
    #expect(c.handle(key: .character("3"), model: model) == [.act(.suspend(.userActionRequired))])
    _ = c.handle(key: .character("s"), model: model)
    #expect(c.handle(key: .character("4"), model: model) == [.act(.suspend(.playerUnavailable))])
    _ = c.handle(key: .character("s"), model: model)
    #expect(c.handle(key: .escape, model: model) == [.redraw], "Esc: nothing happens")
    #expect(c.activePrompt == nil)
    // Other: a reason of one's own, typed; controls dropped, cut to what the relay takes.
    _ = c.handle(key: .character("s"), model: model)
    #expect(c.handle(key: .character("5"), model: model) == [.redraw])
    #expect(c.activePrompt?.kind == .stepAwayReason)
    for ch in "  feeding the cat\u{1b}  " { _ = c.handle(key: .character(ch), model: model) }
    #expect(c.handle(key: .enter, model: model) == [.act(.suspend("feeding the cat"))])
    _ = c.handle(key: .character("s"), model: model)
    _ = c.handle(key: .character("5"), model: model)
    for ch in String(repeating: "雪", count: 40) { _ = c.handle(key: .character(ch), model: model) }
    let long = c.handle(key: .enter, model: model)
    #expect(long == [.act(.suspend(SuspensionReason(String(repeating: "雪", count: 21))))])
    _ = c.handle(key: .character("s"), model: model)
    _ = c.handle(key: .character("5"), model: model)
    #expect(
      c.handle(key: .enter, model: model) == [
        .localNotice("you did not step away: type a reason, or pick one with s")
      ], "an empty reason steps nobody away, and says so")
  }

  @Test(
    "a reason of one's own is typed on a line that shows it, with what enter and esc do; only spaces say nothing happened"
  )
  func stepAwayReasonLine() {
    var c = FrontController()
    var model = Fixtures.playing()
    let keys: [Key] =
      [.character("s"), .down, .down, .down, .down, .enter] + "abc".map(Key.character)
    for key in keys { _ = c.handle(key: key, model: model) }
    c.prepare(&model)
    for size in [(rows: 24, cols: 80), (rows: 35, cols: 120), (rows: 12, cols: 38)] {
      let lines = ScreenRenderer.render(model, rows: size.rows, cols: size.cols).lines
      let bottom = lines[size.rows - 1]
      #expect(bottom.hasPrefix("why: abc"), "\(size): \(bottom)")
      #expect(!bottom.contains("space pause"), "the keys' line gives way to the input")
      if size.cols >= 80 {
        #expect(bottom.hasSuffix("enter step away · esc cancel"), "\(bottom)")
      }
    }
    // The chat's line is unchanged.
    var chat = FrontController()
    var chatting = Fixtures.playing()
    _ = chat.handle(key: .character("c"), model: chatting)
    for ch in "hi" { _ = chat.handle(key: .character(ch), model: chatting) }
    chat.prepare(&chatting)
    let line = ScreenRenderer.render(chatting, rows: 24, cols: 80).lines[23]
    #expect(line.hasPrefix("say: hi") && line.hasSuffix("enter send · esc cancel"), "\(line)")
    // Spaces only: nothing is sent, and the notice says why.
    for key: Key in [.control("u"), .character(" "), .character(" ")] {
      _ = c.handle(key: key, model: model)
    }
    #expect(
      c.handle(key: .enter, model: model) == [
        .localNotice("you did not step away: type a reason, or pick one with s")
      ])
    #expect(c.activePrompt == nil)
  }

  @Test("the Come back dialog's group time moves while it is open")
  func comeBackClock() {
    var model = Fixtures.suspended()
    var c = FrontController()
    _ = c.handle(key: .character("s"), model: model)
    c.prepare(&model)
    let first = model.prompt?.message ?? ""
    model.now = model.now.advanced(bySeconds: 30)
    c.prepare(&model)
    let later = model.prompt?.message ?? ""
    #expect(first.contains("(the group is at 12:34)"), "\(first)")
    #expect(later.contains("(the group is at 13:04)"), "\(later)")
  }
}

@Suite("Help on a small terminal")
struct HelpPagingTests {
  @Test("the help pages like a pager: ↑ stops at the first page, ↓ at the last, space there closes")
  func pagerEnds() {
    var c = FrontController()
    var model = Fixtures.playing()
    model.screenSize = TerminalSize(rows: 12, cols: 40)
    let count = ScreenRenderer.helpPages(rows: 12, cols: 40).pages.count
    #expect(count > 2)
    _ = c.handle(key: .character("?"), model: model)
    _ = c.handle(key: .up, model: model)
    c.prepare(&model)
    #expect(model.showsHelp && model.helpPage == 0, "↑ on the first page stays there")
    for _ in 0..<(count + 3) { _ = c.handle(key: .down, model: model) }
    c.prepare(&model)
    #expect(model.showsHelp && model.helpPage == count - 1, "↓ stops at the last page")
    var screen = ScreenRenderer.render(model, rows: 12, cols: 40).text
    #expect(screen.contains("Keys \(count)/\(count)"))
    #expect(screen.contains("space closes"))
    _ = c.handle(key: .up, model: model)
    c.prepare(&model)
    #expect(model.helpPage == count - 2, "one ↑ turns back one page")
    screen = ScreenRenderer.render(model, rows: 12, cols: 40).text
    #expect(screen.contains("Keys \(count - 1)/\(count)"))
    _ = c.handle(key: .character(" "), model: model)
    _ = c.handle(key: .character(" "), model: model)
    c.prepare(&model)
    #expect(!model.showsHelp, "space on the last page closes the help, as a pager's does")
  }

  @Test("at 40×12 the help wraps and pages: every key and every word of it can be read")
  func pagesAtFortyByTwelve() throws {
    var c = FrontController()
    var model = Fixtures.playing()
    model.screenSize = TerminalSize(rows: 12, cols: 40)
    _ = c.handle(key: .character("?"), model: model)
    var seen = ""
    var titles: [String] = []
    let count = ScreenRenderer.helpPages(rows: 12, cols: 40).pages.count
    for _ in 0..<count {
      c.prepare(&model)
      let screen = ScreenRenderer.render(model, rows: 12, cols: 40).text
      seen += screen
      titles += screen.split(separator: "\n").compactMap { line in
        line.range(of: "Keys [0-9]+/[0-9]+", options: .regularExpression).map { String(line[$0]) }
      }
      #expect(c.handle(key: .character(" "), model: model) == [.redraw])
    }
    #expect(titles.first == "Keys 1/\(titles.count > 0 ? String(titles[0].last!) : "?")")
    let words = seen.split(whereSeparator: { $0 == " " || $0 == "│" || $0 == "\n" })
    let shown = Set(words.map(String.init))
    for entry in KeyBinding.helpEntries {
      for word in entry.text.split(separator: " ") {
        #expect(shown.contains(String(word)), "“\(word)” of “\(entry.text)” is shown")
      }
      #expect(seen.contains(entry.key), "\(entry.key) is listed")
    }
    // Space on the last page closed it.
    c.prepare(&model)
    #expect(!model.showsHelp)
  }
}

@Suite("Chat people use")
struct ChatTests {
  @Test("PgUp scrolls the notices back through everything said, with when; PgDn comes back")
  func scrollback() throws {
    var model = Fixtures.playing()
    let start = model.now
    for i in 1...30 {
      model.now = start.advanced(bySeconds: Double(i) * 30)
      model.receiveChat(from: "bob", text: "line \(i)")
    }
    model.now = start.advanced(bySeconds: 30 * 30 + 600)
    model.pruneNotices()
    var c = FrontController()
    let live = ScreenRenderer.render(model, rows: 24, cols: 80).text
    #expect(!live.contains("line 1 "), "old lines have gone from the live pane")
    var actions: [FrontAction] = []
    for _ in 0..<5 { actions += c.handle(key: .pageUp, model: model) }
    #expect(actions.allSatisfy { $0 == .scrollNotices(FrontController.scrollStep) })
    for case .scrollNotices(let lines) in actions { model.scrollNotices(by: lines) }
    let back = ScreenRenderer.render(model, rows: 24, cols: 80).text
    #expect(back.contains("Notices · earlier (PgDn: newer)"))
    #expect(back.contains("bob: line 5 "), "\(back)")
    #expect(back.contains("bob: line 5") && back.contains("22m"), "each line says when")
    // A new line while scrolled back does not move what is in view.
    let before = back.split(separator: "\n").filter { $0.contains("bob: line") }
    model.receiveChat(from: "carol", text: "new")
    let after = ScreenRenderer.render(model, rows: 24, cols: 80).text.split(separator: "\n")
      .filter { $0.contains("bob: line") }
    #expect(before.first?.contains("line 5 ") == true && after.first?.contains("line 5 ") == true)
    for case .scrollNotices(let lines) in (0..<20).flatMap({ _ in
      c.handle(key: .pageDown, model: model)
    }) { model.scrollNotices(by: lines) }
    #expect(model.scrollback == 0)
    #expect(!ScreenRenderer.render(model, rows: 24, cols: 80).text.contains("earlier"))
  }

  @Test("/me is an action; @ and tab complete a name")
  func meAndCompletion() {
    #expect(ChangeNarrator.chat(from: "bob", text: "/me waves") == "* bob waves")
    #expect(ChangeNarrator.chat(from: "bob", text: "/me") == "bob: /me")
    var c = FrontController()
    let model = Fixtures.playing()
    _ = c.handle(key: .character("c"), model: model)
    for ch in "hi @ca" { _ = c.handle(key: .character(ch), model: model) }
    _ = c.handle(key: .tab, model: model)
    #expect(c.activePrompt?.input == "hi @carol ")
    var prompt = Prompt.chat(names: ["Ann", "Annika", "bob"])
    for ch in "@a" { _ = prompt.handle(.character(ch)) }
    _ = prompt.handle(.tab)
    #expect(prompt.input == "@Ann", "as much as the names share")
    _ = prompt.handle(.character("i"))
    _ = prompt.handle(.tab)
    #expect(prompt.input == "@Annika ")
  }
}

@Suite("Chat in wide characters")
struct ChatWidthTests {
  @Test("CJK and emoji lines, cut or not, keep the pane's border and the age column in place")
  func wideCharacters() {
    var model = Fixtures.playing()
    let start = model.now
    model.receiveChat(from: "雪", text: "你好世界 🍿 " + String(repeating: "漢字", count: 60))
    model.receiveChat(from: "zoë", text: "👋🏽 hi")
    model.now = start.advanced(bySeconds: 90)
    for cols in [60, 80, 120] {
      let screen = ScreenRenderer.render(model, rows: 24, cols: cols)
      let lines = screen.text.split(separator: "\n", omittingEmptySubsequences: false)
      for line in lines where line.contains("雪: 你好") || line.contains("zoë: 👋🏽") {
        #expect(CharacterWidth.of(String(line)) == cols, "\(cols) columns: \(line)")
        #expect(line.hasSuffix("1m │"), "the age sits at the right edge: \(line)")
      }
      #expect(lines.contains { $0.contains("雪: 你好世界 🍿") }, "\(cols): \(screen.text)")
    }
  }

  @Test(
    "u opens the queue: Enter plays an entry now after asking, d removes, + and - move, x clears; it follows the room's queue"
  )
  func queue() {
    var c = FrontController()
    var model = Fixtures.playing()
    model.group.queue = Fixtures.queue
    _ = c.handle(key: .character("u"), model: model)
    #expect(c.activePrompt?.kind == .queue)
    #expect(c.activePrompt?.options.map(\.detail) == ["bob · 43:30", "carol · 10:00"])
    #expect(
      c.handle(key: .character("-"), model: model) == [
        .act(.queue(.move(.entry(4), toPlace: 2))), .redraw,
      ])
    // The relay's answer moves it: the selection follows the entry.
    model.group.queue.swapAt(0, 1)
    c.prepare(&model)
    #expect(c.activePrompt?.selection == 1)
    #expect(
      c.handle(key: .character("+"), model: model) == [
        .act(.queue(.move(.entry(4), toPlace: 1))), .redraw,
      ])
    #expect(
      c.handle(key: .delete, model: model) == [.act(.queue(.remove(.entry(4)))), .redraw])
    model.group.queue.removeLast()
    c.prepare(&model)
    #expect(c.activePrompt?.options.count == 1 && c.activePrompt?.selection == 0)
    // Enter asks first: it switches everyone.
    #expect(c.handle(key: .enter, model: model) == [.redraw])
    #expect(c.activePrompt?.kind == .confirmPlayQueued(entry: 7, item: "testcard/bars"))
    #expect(
      c.handle(key: .character("y"), model: model) == [
        .act(.queue(.play(.entry(7), confirmed: true)))
      ])
    _ = c.handle(key: .character("u"), model: model)
    #expect(c.handle(key: .character("x"), model: model) == [.act(.queue(.clear)), .redraw])
    #expect(c.handle(key: .escape, model: model) == [.redraw])
    #expect(c.activePrompt == nil)
  }

  @Test(
    "n plays what is up next: the queue's first entry when there is one (asking first), else the next episode"
  )
  func nextFollowsTheQueue() {
    var c = FrontController()
    var model = Fixtures.playing()
    model.group.queue = Fixtures.queue
    let first = Fixtures.queue[0]
    #expect(c.handle(key: .character("n"), model: model) == [.redraw])
    #expect(
      c.activePrompt?.kind == .confirmPlayQueued(entry: first.id, item: first.info!.id))
    #expect(
      c.handle(key: .character("y"), model: model) == [
        .act(.queue(.play(.entry(first.id), confirmed: true)))
      ])
    // An empty queue: the series' next episode, as before.
    model.group.queue = []
    #expect(c.handle(key: .character("n"), model: model) == [.redraw])
    guard case .confirmSwitch = c.activePrompt?.kind else {
      Issue.record("n with no queue asked \(String(describing: c.activePrompt?.kind))")
      return
    }
  }

  @Test("u in the episode list adds the selected episode to the queue and keeps the list open")
  func queueFromPicker() {
    var c = FrontController()
    let model = Fixtures.playing()
    _ = c.handle(key: .character("e"), model: model)
    _ = c.handle(key: .down, model: model)
    #expect(
      c.handle(key: .character("u"), model: model) == [
        .act(.queue(.add("harbour/s1e3"))), .redraw,
      ])
    #expect(c.activePrompt?.kind == .episodePicker)
  }

  @Test("under the owner's control the queue says so instead of editing")
  func queueOwnerOnly() {
    var c = FrontController()
    var model = Fixtures.playing()
    model.group.control = RoomControl(owner: Fixtures.bob, locked: false, playback: .owner)
    model.group.queue = [
      QueueEntry(
        id: 1, series: Fixtures.series, item: "harbour/s1e3", addedBy: Fixtures.bob,
        addedByName: "bob")
    ]
    _ = c.handle(key: .character("u"), model: model)
    #expect(
      c.handle(key: .character("d"), model: model) == [
        .localNotice("only bob controls playback in this room")
      ])
  }

  @Test("+ (or =) and - move your player 50 ms ahead of the group or behind it")
  func personalOffsetKeys() {
    var c = FrontController()
    let model = Fixtures.playing()
    #expect(c.handle(key: .character("+"), model: model) == [.act(.changeOffset(by: 0.05))])
    #expect(c.handle(key: .character("="), model: model) == [.act(.changeOffset(by: 0.05))])
    #expect(c.handle(key: .character("-"), model: model) == [.act(.changeOffset(by: -0.05))])
  }
}
