import FrontSessions
import Invites
import LinkConsent
import Media
import ParticipantRuntime
import Participation
import PlaybackCoordination
import Testing
import WireProtocol

@testable import TerminalFront

@Suite("the front's session loop")
struct FrontSessionTests {
  @Test("the first screen is drawn at once, with the host's invite as a notice")
  func firstScreen() {
    var d = Driver(invite: "cowatch join 10.0.0.7 --name NAME")
    #expect(d.send(.started) == [.draw])
    let screen = d.screen()
    #expect(screen.contains("Others join with: cowatch join 10.0.0.7 --name NAME"))
    #expect(screen.contains("Nothing is being watched in room lobby."))
  }

  @Test("the client's events fill the screen: who is here, the session, its notices")
  func clientEvents() {
    var d = Driver.inLobby()
    #expect(d.screen().contains("People (2)"))
    #expect(d.screen().contains("● bob"))
    let started = Fixtures.change(11, .sessionStarted(item: "harbour/s1e2"))
    var state = Fixtures.playing(sequence: 11)
    state.participants[0].isJoined = false
    #expect(d.send(.client(.state(state, events: [started]))) == [.draw])
    d.send(.client(.session(.waiting(sessionID: 1))))
    let screen = d.screen()
    // The notice is under the prompt that offers the session.
    #expect(screen.contains("│ bob started Harbour Lights —"))
    #expect(screen.contains("Watch together?"))
    #expect(screen.contains("bob started watching · j to join"))
    #expect(d.press(.character("j")).contains(.act(.join)))
  }

  @Test("every change of an update becomes a notice, not only the last")
  func everyChange() {
    var d = Driver.watching()
    let events = [
      Fixtures.change(11, .paused(at: 160)), Fixtures.change(12, .seeked(to: 200)),
    ]
    d.send(.client(.state(Fixtures.playing(sequence: 12, position: 200, rate: 0), events: events)))
    let screen = d.screen()
    #expect(screen.contains("bob paused at 2:40"))
    #expect(screen.contains("bob jumped to 3:20"))
  }

  @Test("an input that changes nothing on screen draws nothing")
  func noNeedlessDraws() {
    var d = Driver.inLobby()
    #expect(d.send(.tick) == [])
    #expect(d.press(.resize) == [.draw])
  }

  @Test("Ctrl-L repaints the whole terminal")
  func repaint() {
    var d = Driver.inLobby()
    #expect(d.press(.control("l")) == [.repaint, .draw])
  }

  @Test("the clock ticks four times a second while the group plays, once otherwise")
  func ticks() {
    var d = Driver.inLobby()
    #expect(d.session.tickInterval == 1)
    d = Driver.watching()
    #expect(d.session.tickInterval == 0.25)
  }

  @Test("space while watching requests a pause where the player is")
  func pause() {
    var d = Driver.watching()
    #expect(d.press(.character(" ")).contains(.act(.playback(.togglePlayback))))
  }

  @Test("a failed request and a refusal are shown as notices")
  func failures() {
    var d = Driver.watching()
    d.send(.failed("the command got no answer within 5.0 s"))
    d.send(.client(.rejected(.join, .alreadyJoined, awaited: true)))
    let screen = d.screen()
    #expect(screen.contains("the command got no answer within 5.0 s"))
    #expect(screen.contains("already joined"))
  }

  @Test(
    "at an episode's end, an advance that lost the race to another player's shows nothing; one from a player ahead of the group says so by the episode's label"
  )
  func advanceRace() throws {
    let ended: ItemID = "harbour/s1e2"
    let lost = ClientEvent.rejected(
      .advance(endedItem: ended), .advanceNotApplicable(ended), awaited: false)
    func errors(_ d: Driver) -> [String] {
      d.session.model.notices.filter { $0.kind == .error }.map(\.text)
    }
    // Auto-advance: bob's request came first and the group is on S1E3 already.
    var d = Driver.watching()
    var next = Fixtures.playing(sequence: 11, position: 0)
    next.session?.item = Fixtures.series.items[2]
    d.send(
      .client(
        .state(
          next,
          events: [Fixtures.change(11, by: nil, .autoAdvanced(from: ended, to: "harbour/s1e3"))])))
    d.send(.client(lost))
    #expect(errors(d) == [], "\(errors(d))")
    #expect(d.screen().contains("auto-advanced to S1E3 · The Storm"))
    #expect(!d.screen().contains("no advance"))
    // Without auto-advance: the group stopped at the end on bob's request.
    d = Driver.watching()
    var end = Fixtures.playing(sequence: 11, position: 2470, rate: 0)
    end.session?.reachedEnd = true
    d.send(.client(.state(end, events: [Fixtures.change(11, by: nil, .reachedEnd(item: ended))])))
    d.send(.client(lost))
    #expect(errors(d) == [], "\(errors(d))")
    // The group is still on the episode, at 2:40: this player ran ahead, which is worth
    // knowing — in words, not ids.
    d = Driver.watching()
    d.send(.client(lost))
    #expect(
      errors(d) == [
        "your player reached the end of S1E2 · The Lighthouse Keeper before the group did"
      ])
    d.send(
      .client(
        .rejected(
          .pause(item: "harbour/s1e1", at: 3),
          .staleItem(sent: "harbour/s1e1", current: ended), awaited: false)))
    #expect(
      errors(d).first
        == "that was for S1E1 · Arrival, but the group is on S1E2 · The Lighthouse Keeper")
    #expect(!d.screen().contains("harbour/"))
  }

  @Test("a client that gives up shows why in the header and the state line")
  func gaveUp() {
    var d = Driver.watching()
    d.send(.client(.notice(.relay("gave up reconnecting to 127.0.0.1:7700"))))
    d.send(.client(.connection(.disconnected)))
    d.send(.clientEnded)
    let screen = d.screen()
    #expect(screen.contains("✕ disconnected: gave up reconnecting to 127.0.0.1:7700"))
  }

  @Test("what is merely so (already at the end) is never given as why the client stopped")
  func informationIsNoReason() {
    var d = Driver.watching()
    d.send(.client(.notice(.relay("gave up reconnecting to 127.0.0.1:7700"))))
    d.send(.client(.notice(.unchanged("already at the end (5:00)"))))
    d.send(.client(.connection(.disconnected)))
    d.send(.clientEnded)
    let screen = d.screen()
    #expect(screen.contains("✕ disconnected: gave up reconnecting to 127.0.0.1:7700"))
    #expect(!screen.contains("disconnected: already at the end"))
  }

  @Test("quitting only me leaves the session, stops the client, then finishes")
  func quitOnlyMe() {
    var d = Driver.watching()
    d.press(.character("q"))
    #expect(d.screen().contains("End for everyone"))
    d.press(.enter)
    #expect(d.requests == [.leave] && d.clientStopped)
    #expect(d.screen().contains("leaving…"))
    // Keys after the quit do not reach the group.
    d.press(.character(" "))
    #expect(d.requests == [.leave] && d.clientStopped)
    #expect(d.send(.stopped) == [.finish])
  }

  @Test("a signal (the keys end) stops the client once")
  func interrupted() {
    var d = Driver.watching()
    d.press(.interrupt)
    d.send(.keysEnded)
    #expect(d.requests == [.leave] && d.clientStopped)
  }

  @Test("chat is shown at once as 'you' and sent")
  func chat() {
    var d = Driver.watching()
    d.press(.character("c"))
    d.type("hi bob")
    d.press(.enter)
    #expect(d.requests == [.say("hi bob")])
    #expect(d.screen().contains("you: hi bob"))
  }

  @Test("a key pressed while reconnecting says at once that its request waits for the relay")
  func keyWhileReconnecting() {
    var d = Driver.watching()
    d.send(.client(.connection(.reconnecting)))
    d.clearRequests()
    d.press(.right)
    #expect(d.requests == [.playback(.seekBy(10))])
    #expect(d.screen().contains("not sent yet: the connection is down"))
    // The client's own word for it, when its answer timeout passes, is the same notice.
    d.send(.failed(ClientError.notYetSent(window: 10).description))
    let lines = d.screen().split(separator: "\n").filter { $0.contains("not sent yet") }
    #expect(lines.count == 1, "\(lines)")
  }

  @Test(
    "what went wrong loading the media is on the first screen, and stays when the group's clock becomes known"
  )
  func mediaWarnings() {
    var d = Driver(warnings: ["skipped Show/S01E03.mkv: ffprobe cannot read it"])
    // Before the first clock sample, as when the front starts before the relay's pong.
    d.moment.groupTime = nil
    d.send(.started)
    #expect(d.screen().contains("skipped Show/S01E03.mkv: ffprobe cannot read it"))
    d.moment.groupTime = Fixtures.now.advanced(bySeconds: 3600)
    d.send(.tick)
    #expect(d.screen().contains("skipped Show/S01E03.mkv: ffprobe cannot read it"))
  }

  @Test(
    "a host offered the room's last night is asked on the first screen: yes continues (the headless 'continue'), no starts afresh"
  )
  func lastTimeOffer() {
    let offer = "last time: Harbour Lights S1E3 at 21:14, with bob — continue?"
    var yes = Driver(hostsRoom: true, lastTime: offer)
    yes.send(.started)
    #expect(yes.screen().contains("Last time: Harbour Lights S1E3 at 21:14"), "\(yes.screen())")
    yes.press(.character("y"))
    #expect(yes.requests == [.continueLastTime])
    #expect(!yes.screen().contains("Last time:"))
    var no = Driver(hostsRoom: true, lastTime: offer)
    no.send(.started)
    no.press(.character("n"))
    #expect(no.requests.isEmpty)
    #expect(!no.screen().contains("Last time:"))
  }

  @Test("reconnecting says for how long, and when the front will give up")
  func reconnectingFor() {
    var d = Driver(reconnectGiveUpAfter: 60)
    d.send(.started)
    d.send(.client(.welcomed(participant: Fixtures.ann, resumed: false, relayEpoch: "e1")))
    d.send(.client(.connection(.connected)))
    d.send(.client(.state(Fixtures.lobby(), events: [])))
    d.send(.client(.connection(.reconnecting)))
    d.moment.groupTime = Fixtures.now.advanced(bySeconds: 23)
    d.send(.tick)
    #expect(d.screen().contains("⟳ reconnecting… 0:23 (gives up at 1:00)"), "\(d.screen())")
    #expect(d.screen(rows: 24, cols: 60).contains("(gives up at 1:00)"), "whole in a narrow pane")
    d.send(.client(.connection(.connected)))
    d.send(.client(.connection(.reconnecting)))
    #expect(d.screen().contains("reconnecting… 0:00"), "a new outage counts from 0")
  }

  @Test("chat typed while the connection is down says it is not sent yet, and goes later")
  func chatWhileReconnecting() {
    var d = Driver.watching()
    d.send(.client(.connection(.reconnecting)))
    d.press(.character("c"))
    d.type("are you still there")
    d.press(.enter)
    #expect(d.requests == [.say("are you still there")])
    let screen = d.screen()
    #expect(screen.contains("you: are you still there"))
    #expect(screen.contains("not sent yet: the connection is down"))
  }

  @Test("after the front gave up reconnecting, the chat line does not open, and says why")
  func chatWhileDisconnected() {
    var d = Driver.watching()
    d.press(.character("c"))
    d.type("hello?")
    d.send(.client(.connection(.disconnected)))
    d.press(.enter)
    d.press(.character("c"))
    d.type("hello?")
    d.press(.enter)
    #expect(d.requests.isEmpty)
    let screen = d.screen()
    #expect(!screen.contains("you: hello?"))
    #expect(screen.contains("not in the room any more"))
  }

  @Test("picking an episode with others in the room starts it together, from the catalog")
  func startTogether() {
    var d = Driver.inLobby()
    d.press(.character("e"), .character("1"))
    #expect(d.screen().contains("Watch Harbour Lights — S1E1 · Arrival together with bob?"))
    d.press(.character("w"))
    #expect(d.requests == [.start("harbour/s1e1")])
  }

  @Test("'Only me' plays on the local player alone; the arrows and space drive it")
  func watchingAlone() {
    var d = Driver.inLobby()
    d.press(.character("e"), .character("1"))
    let effects = d.press(.character("o"))
    #expect(effects.contains(.player(.load(item: "harbour/s1e1", at: 0))))
    #expect(
      effects.contains(.player(.play(itemTime: 0, startAt: Fixtures.local, rate: 1))))
    d.moment.player = Fixtures.player("harbour/s1e1", at: 65)
    d.send(.tick)
    #expect(d.screen().contains("▶ watching alone"))
    #expect(d.press(.right) == [.player(.seek(to: 75))])
    #expect(d.press(.character(" ")) == [.player(.pause(at: 65))])
    #expect(d.press(.character("]")).first == .player(.setRate(1.25)))
    #expect(d.screen().contains("speed 1.25× (only you)"))
    #expect(d.requests.isEmpty)
    // Joining a session hands the player back to the group.
    d.send(.client(.state(Fixtures.playing(), events: [])))
    d.send(.client(.session(.joined(sessionID: 1))))
    #expect(!d.session.model.watchingAlone)
  }
}

@Suite("key bursts add up")
struct KeyBurstTests {
  @Test("five → from 2:40 are five seeks by 10 s, in order, before any answer")
  func fiveRights() {
    var d = Driver.watching()
    d.clearRequests()
    for _ in 0..<5 { d.press(.right) }
    #expect(d.requests == Array(repeating: .playback(.seekBy(10)), count: 5))
  }

  @Test("[ ] ] are speed changes by −¼, +¼, +¼, in order")
  func rateBurst() {
    var d = Driver.watching()
    d.clearRequests()
    d.press(.character("["), .character("]"), .character("]"))
    #expect(
      d.requests == [
        .playback(.changeRate(by: -0.25)), .playback(.changeRate(by: 0.25)),
        .playback(.changeRate(by: 0.25)),
      ])
  }

  @Test("stepped away, arrows pressed while the player is still seeking add up")
  func steppedAwayBurst() {
    var d = Driver.watching()
    var state = Fixtures.playing(sequence: 11)
    state.participants[0].suspensions = [.interrupted]
    d.send(
      .client(
        .state(state, events: [Fixtures.change(11, by: Fixtures.ann, .suspended(.interrupted))])))
    d.moment.player = Fixtures.player(at: 160, state: .paused)
    d.clearRequests()
    d.press(.right)
    // The player is busy seeking and still shows 2:40.
    d.moment.player = Fixtures.player(at: 160, state: .seeking, busy: true)
    d.press(.right)
    d.press(.up)
    // Once there, it counts from where it is.
    d.moment.player = Fixtures.player(at: 240, state: .paused)
    d.press(.left)
    #expect(d.playerCommands == [.seek(to: 170), .seek(to: 180), .seek(to: 240), .seek(to: 230)])
    #expect(d.requests.isEmpty)
  }
}

@Suite("a relay restart")
struct RelayRestartTests {
  /// ann watches with bob at sequence 10; bob paused at 11; then the link drops.
  func afterPause() -> Driver {
    var d = Driver.watching()
    d.send(
      .client(
        .state(
          Fixtures.playing(sequence: 11, rate: 0), events: [Fixtures.change(11, .paused(at: 160))]
        )))
    d.send(.client(.connection(.reconnecting)))
    return d
  }

  @Test("a new relay epoch starts the sequence over: its changes are shown again")
  func newEpoch() {
    var d = afterPause()
    // The relay came back as a new process: a fresh room, counting from 1.
    d.send(.client(.welcomed(participant: Fixtures.ann, resumed: false, relayEpoch: "e2")))
    d.send(.client(.connection(.connected)))
    d.send(.client(.state(Fixtures.lobby(sequence: 2), events: [])))
    d.send(.client(.session(.invalidated(.relayRestarted))))
    var screen = d.screen()
    #expect(screen.contains("the relay restarted"))
    #expect(screen.contains("session ended: the relay restarted and lost this watch session"))
    #expect(!screen.contains("session ended: left"))
    // Whole on a smaller screen too: the words are the point.
    let small = d.screen(rows: 24, cols: 80)
    #expect(small.contains("the relay restarted and lost") && small.contains("this watch session"))
    #expect(!small.contains("lost…"))
    #expect(screen.contains("● connected"))
    var state = Fixtures.playing(sequence: 3)
    state.participants[0].isJoined = false
    d.send(
      .client(.state(state, events: [Fixtures.change(3, .sessionStarted(item: "harbour/s1e2"))])))
    d.send(.client(.session(.waiting(sessionID: 1))))
    d.press(.character("n"))  // "Not now", to read the notices under the prompt
    screen = d.screen()
    #expect(screen.contains("bob started Harbour Lights — S1E2 · The Lighthouse Keeper"))
    #expect(screen.contains("bob started watching · j to join"))
  }

  @Test("a relay that restarted with the room kept: back with the group, still paused by bob")
  func restartedWithStore() {
    var d = afterPause()
    // The relay came back as a new process that restored the room from its store: ann
    // resumes as the same member, the session and the pause as they were.
    d.send(.client(.welcomed(participant: Fixtures.ann, resumed: true, relayEpoch: "e2")))
    d.send(.client(.connection(.connected)))
    d.send(.client(.state(Fixtures.playing(sequence: 13, rate: 0), events: [])))
    let screen = d.screen()
    #expect(screen.contains("the relay restarted; back with the group"))
    #expect(!screen.contains("session ended"))
    #expect(screen.contains("● connected"))
    #expect(screen.contains("paused by bob"))
    // The changes after the restart are told as usual.
    d.send(
      .client(
        .state(
          Fixtures.playing(sequence: 14),
          events: [
            Fixtures.change(14, .played(at: 160, rate: 1, startsAt: Fixtures.now))
          ])))
    #expect(d.session.model.notices.map(\.text).contains { $0.hasPrefix("bob played") })
  }

  @Test("the same epoch (a resumed connection) keeps the sequence: no change is shown twice")
  func sameEpoch() {
    var d = afterPause()
    d.send(.client(.welcomed(participant: Fixtures.ann, resumed: true, relayEpoch: "e1")))
    d.send(.client(.connection(.connected)))
    d.send(
      .client(
        .state(
          Fixtures.playing(sequence: 11, rate: 0), events: [Fixtures.change(11, .paused(at: 160))]
        )))
    let notices = d.session.model.notices.map(\.text)
    #expect(notices.filter { $0 == "bob paused at 2:40" }.count == 1)
    #expect(!notices.contains("the relay restarted"))
  }
}

@Suite("quitting the host's front")
struct HostQuitTests {
  /// ann hosts; bob and carol are in the room, all three watching.
  func hostWatchingWithTwo() -> Driver {
    var d = Driver.watching(hostsRoom: true)
    var state = Fixtures.playing(sequence: 11)
    state.participants.append(Participant(id: Fixtures.carol, name: "carol", isJoined: true))
    d.send(.client(.state(state, events: [])))
    return d
  }

  @Test("with others in the room, q asks; Enter cancels by default")
  func asks() {
    var d = hostWatchingWithTwo()
    d.clearRequests()
    d.press(.character("q"))
    let screen = d.screen()
    #expect(screen.contains("Nobody else's machine can carry this room on"))
    #expect(screen.contains("ends it for bob, carol."))
    #expect(screen.contains("Leave anyway?"))
    #expect(screen.contains("[ Cancel ]"))
    #expect(!screen.contains("Only me"))
    d.press(.enter)
    #expect(d.requests.isEmpty)
    #expect(!d.screen().contains("Leave anyway?"))
  }

  @Test("yes ends the session for the others, stops the client, then finishes")
  func yes() {
    var d = hostWatchingWithTwo()
    d.clearRequests()
    d.press(.character("q"), .character("y"))
    #expect(d.requests == [.end] && d.clientStopped)
    #expect(d.send(.stopped) == [.finish])
  }

  @Test("not watching, yes only stops the client")
  func notJoined() {
    var d = Driver.inLobby(hostsRoom: true)
    d.press(.character("q"))
    #expect(d.screen().contains("ends it for bob."))
    d.press(.character("y"))
    #expect(d.requests.isEmpty && d.clientStopped)
  }

  @Test(
    "back after the relay let this person's place go (away past the grace): told so, in words, not only 'silent for more than 6 s'"
  )
  func placeLost() {
    var d = Driver.watching()
    d.send(.client(.connection(.reconnecting)))
    d.send(.client(.welcomed(participant: "p9", resumed: false, relayEpoch: "e1")))
    #expect(d.screen().contains("you were away too long to keep your place"))
    // A resume, or a relay that restarted, is not that.
    var r = Driver.watching()
    r.send(.client(.welcomed(participant: Fixtures.ann, resumed: true, relayEpoch: "e1")))
    #expect(!r.screen().contains("away too long"))
  }

  @Test("'/me' with nothing after it says what it wants instead of sending the text '/me'")
  func bareMe() {
    var d = Driver.watching()
    d.clearRequests()
    d.press(.character("c"), .character("/"), .character("m"), .character("e"), .enter)
    #expect(d.requests.isEmpty)
    #expect(d.screen().contains("say /me and what you do"))
  }

  @Test("alone in the room, the host quits as anyone would")
  func alone() {
    var d = Driver(hostsRoom: true)
    d.send(.started)
    d.send(.client(.welcomed(participant: Fixtures.ann, resumed: false, relayEpoch: "e1")))
    d.send(
      .client(
        .state(
          GroupState(sequence: 1, participants: [Fixtures.people(joined: false)[0]]), events: [])))
    d.press(.character("q"))
    #expect(d.requests.isEmpty && d.clientStopped)
  }

  @Test("someone who joined, not hosting, is asked end for everyone / only me")
  func participant() {
    var d = Driver.watching()
    d.press(.character("q"))
    #expect(d.screen().contains("You are watching with 1 other."))
    #expect(!d.screen().contains("You host this room"))
  }
}

@Suite("Front session: a player that quit")
struct PlayerRestartFrontTests {
  @Test("mpv quits: the front says so once and r starts it again; r with a running player says so")
  func restartKey() {
    var d = Driver.watching()
    d.press(.character("r"))
    #expect(d.session.model.notices.first?.text == "your player is running")
    d.moment.playerGone = true
    d.send(.tick)
    d.send(.tick)
    let said = d.session.model.notices.filter {
      $0.text == "your player stopped — press r to start it again"
    }
    #expect(said.count == 1, "said once")
    let effects = d.press(.character("r"))
    #expect(effects.contains(.restartPlayer))
    #expect(d.session.model.notices.first?.text == "starting your player again…")
    d.moment.playerGone = false
    d.send(.playerRestarted(nil))
    #expect(!d.session.model.playerGone)
    #expect(d.session.model.notices.first?.text == "your player is back, in step with the group")
    d.send(.playerRestarted("mpv is not installed"))
    #expect(
      d.session.model.notices.first?.text == "the player did not start again: mpv is not installed")
  }
}

@Suite("Front session: messages for some people only")
struct PrivateChatFrontTests {
  @Test("a message for some people only is marked; /tell sends one")
  func tell() {
    var d = Driver.watching()
    d.send(
      .client(
        .message(from: Fixtures.bob, name: "bob", kind: "chat", body: "psst", to: [Fixtures.ann])))
    #expect(d.session.model.notices.first?.text == "bob → you: psst")
    d.send(.client(.message(from: Fixtures.bob, name: "bob", kind: "chat", body: "/me waves")))
    #expect(d.session.model.notices.first?.text == "* bob waves")
    d.press(.character("c"))
    for ch in "/tell BOB see you at 3" { d.press(.character(ch)) }
    d.press(.enter)
    #expect(d.requests.last == .tell(.to([Fixtures.bob], "see you at 3")))
    #expect(d.session.model.notices.first?.text == "you → bob: see you at 3")
    d.press(.character("c"))
    for ch in "/tell zed hi" { d.press(.character(ch)) }
    d.press(.enter)
    #expect(d.session.model.notices.first?.text == "nobody called zed is in the room")
  }
}

@Suite("Front session: one's own chat")
struct OwnChatFrontTests {
  @Test("/me reads with one's name to oneself: \"* ann waves\", not \"* you waves\"")
  func meWithName() {
    var d = Driver.watching()
    d.press(.character("c"))
    d.press(.paste("/me waves"))
    d.press(.enter)
    #expect(d.requests.last == .say("/me waves"))
    #expect(d.session.model.notices.first?.text == "* ann waves")
    d.press(.character("c"))
    d.press(.paste("hello"))
    d.press(.enter)
    #expect(d.session.model.notices.first?.text == "you: hello")
  }
}

@Suite("Front session: a room taken over by another relay")
struct RoomMovedFrontTests {
  @Test("welcomed back by another relay (a takeover), the front says the room moved there")
  func moved() {
    var d = Driver.watching()
    d.send(
      .client(
        .welcomed(
          participant: Fixtures.ann, resumed: true, relayEpoch: "e2", relay: "10.0.0.2:7700")
      ))
    #expect(
      d.session.model.notices.first?.text
        == "the room moved to the relay at 10.0.0.2:7700; back with the group")
    // The same relay restarting later is a restart again.
    d.send(
      .client(
        .welcomed(
          participant: Fixtures.ann, resumed: true, relayEpoch: "e3", relay: "10.0.0.2:7700")
      ))
    #expect(d.session.model.notices.first?.text == "the relay restarted; back with the group")
  }
}

@Suite("the front's invite link")
struct FrontInviteTests {
  @Test("the invite is the link; once the room has successors, it names them too")
  func successorsInTheLink() throws {
    let link = InviteLink(
      room: "lobby", addresses: ["10.0.0.7:7700"], fingerprint: nil, plain: true)
    var d = Driver()
    d.session = FrontSession(roomName: "lobby", catalog: [Fixtures.series], inviteLink: link)
    d.send(.started)
    #expect(
      d.session.model.invite == "cowatch join cowatch://lobby@10.0.0.7:7700/plain --name NAME")
    let bob = Successor(
      participant: Fixtures.bob, name: "bob", relay: RelayEndpoint(address: "10.0.0.8:7701"))
    let carl = Successor(
      participant: "p3", name: "carl", relay: RelayEndpoint(address: "203.0.113.9:7701"),
      reachable: false)
    d.send(.client(.succession([bob, carl])))
    // Only those who can carry the room: a friend who comes late reaches it there too.
    #expect(
      d.session.model.invite
        == "cowatch join cowatch://lobby@10.0.0.7:7700/plain/next=10.0.0.8:7701 --name NAME")
  }

  @Test(
    "the room moved to a successor's machine: the invite names it, not the machine the room left")
  func movedInvite() throws {
    let fingerprint = "SHA256:q6urq6urq6urq6urq6urq6urq6urq6urq6u+/6urq6s"
    let link = InviteLink(
      room: "movie-night", addresses: ["10.0.0.7:7700"], fingerprint: fingerprint)
    var d = Driver()
    d.session = FrontSession(roomName: "movie-night", catalog: [Fixtures.series], inviteLink: link)
    d.send(.started)
    d.send(.client(.welcomed(participant: Fixtures.ann, resumed: false, relayEpoch: "e1")))
    let bobs = "SHA256:3q2+796tvu/erb7v3q2+796tvu/erb7v3q2+796tvu8"
    let bob = Successor(
      participant: Fixtures.bob, name: "bob",
      relay: RelayEndpoint(address: "10.0.0.8:7701", fingerprint: bobs))
    let carl = Successor(
      participant: "p3", name: "carl", relay: RelayEndpoint(address: "10.0.0.9:7702"))
    d.send(.client(.succession([bob, carl])))
    // The host left: the room goes on at bob's relay.
    d.send(
      .client(
        .welcomed(
          participant: Fixtures.ann, resumed: true, relayEpoch: "e2", relay: "10.0.0.8:7701")))
    let shown = try #require(d.session.model.invite)
    let moved = try InviteLink.parse(
      String(shown.dropFirst("cowatch join ".count).dropLast(" --name NAME".count)))
    #expect(moved.addresses == ["10.0.0.8:7701"])
    #expect(moved.fingerprint == bobs)
    #expect(moved.successors == [RelayEndpoint(address: "10.0.0.9:7702")])
    #expect(!shown.contains("10.0.0.7"), "the closed address is gone: \(shown)")
  }

  @Test("the router's answer: a new link with the public address first, or a warning alone")
  func routerNews() throws {
    let link = InviteLink(
      room: "lobby", addresses: ["10.0.0.7:7700"], fingerprint: nil, plain: true)
    var d = Driver()
    d.session = FrontSession(roomName: "lobby", catalog: [Fixtures.series], inviteLink: link)
    d.send(.started)
    let bob = Successor(
      participant: Fixtures.bob, name: "bob", relay: RelayEndpoint(address: "10.0.0.8:7701"))
    d.send(.client(.succession([bob])))
    var reachable = link
    reachable.addresses = ["44.1.1.1:7700", "10.0.0.7:7700"]
    d.send(
      .inviteChanged(
        InviteChange(link: reachable, note: "The router forwards 44.1.1.1:7700", warning: false)))
    // The successors named before stay in it.
    let expected =
      "cowatch join cowatch://lobby@44.1.1.1:7700,10.0.0.7:7700/plain/next=10.0.0.8:7701 --name NAME"
    #expect(d.session.model.invite == expected)
    let texts = d.session.model.notices.map(\.text)
    #expect(texts.contains("The router forwards 44.1.1.1:7700"))
    #expect(texts.contains("Others join with: \(expected)"))
    d.send(
      .inviteChanged(
        InviteChange(link: nil, note: "Friends outside this network cannot reach", warning: true)))
    #expect(d.session.model.invite == expected)
    #expect(
      d.session.model.notices.contains { $0.text.hasPrefix("Friends outside") && $0.kind == .error }
    )
  }
}

@Suite("Front session: links")
struct LinkFrontTests {
  static let url = "https://media.example.org/films/harbour.mkv"
  static let item = ItemInfo(id: ItemID(url), title: "Harbour Lights (1954)", duration: 5400)

  /// Types a chat line and sends it; returns the effects of the Enter.
  static func say(_ text: String, in d: inout Driver) -> [FrontSession.Effect] {
    d.press(.character("c"))
    d.press(.paste(text))
    return d.press(.enter)
  }

  @Test("/queue LINK reads it with the player, then queues it for everyone as a series of one")
  func queue() {
    var d = Driver.watching()
    let effects = Self.say("/queue \(Self.url)", in: &d)
    #expect(effects.contains(.readLink(Self.url, .queue)))
    #expect(d.session.model.notices.first?.text == "opening media.example.org…")
    d.send(.linkRead(.queue, .success(Self.item)))
    #expect(
      d.requests.last
        == .queue(.add(ItemID(Self.url))))
  }

  @Test("/play LINK while the group watches asks first, then switches everyone")
  func playAsksFirst() {
    var d = Driver.watching()
    #expect(Self.say("/play \(Self.url)", in: &d).contains(.readLink(Self.url, .play)))
    d.clearRequests()
    d.send(.linkRead(.play, .success(Self.item)))
    #expect(d.requests.isEmpty, "nothing before the person confirms")
    #expect(d.screen().contains("Harbour Lights (1954)"))
    d.press(.character("y"))
    #expect(
      d.requests.last
        == .switchTo(ItemID(Self.url), confirmed: true))
  }

  @Test(
    "/play LINK while the others watch and this person has not joined: join first, nothing sent")
  func playWhileOthersWatch() {
    var d = Driver.inLobby()
    d.moment.player = Fixtures.player()
    var group = Fixtures.playing()
    group.participants = group.participants.map { p in
      var p = p
      if p.id == Fixtures.ann { p.isJoined = false }
      return p
    }
    d.send(.client(.state(group, events: [])))
    d.send(.client(.session(.waiting(sessionID: 1))))
    // "Not now" to the session offered.
    d.press(.escape)
    d.clearRequests()
    _ = Self.say("/play \(Self.url)", in: &d)
    d.send(.linkRead(.play, .success(Self.item)))
    #expect(d.requests.isEmpty)
    #expect(d.session.model.notices.first?.text.hasPrefix("the others are watching") == true)
  }

  @Test("/play LINK with nothing watched starts it")
  func playStarts() {
    var d = Driver.inLobby()
    _ = Self.say("/play \(Self.url)", in: &d)
    d.send(.linkRead(.play, .success(Self.item)))
    #expect(
      d.requests.last
        == .start(ItemID(Self.url)))
  }

  @Test("a link the player cannot read, or a line that is no link, is said and nothing is sent")
  func refused() {
    var d = Driver.watching()
    d.clearRequests()
    _ = Self.say("/play \(Self.url)", in: &d)
    d.send(
      .linkRead(.play, .failure(LinkReadError("cannot watch \(Self.url): mpv could not open it"))))
    #expect(
      d.session.model.notices.first?.text == "cannot watch \(Self.url): mpv could not open it")
    #expect(Self.say("/queue ftp://example.org/a", in: &d).isEmpty == false)
    #expect(
      d.session.model.notices.first?.text == "/queue: a link starts with http:// or https://")
    // The line stays open with what was typed, to fix it.
    #expect(d.screen().contains("/queue ftp://example.org/a"))
    d.press(.escape)
    _ = Self.say("/play", in: &d)
    #expect(d.session.model.notices.first?.text == "/play: say /play and a link")
    #expect(d.requests.isEmpty)
    d.press(.escape)
    // "/playful" is no command: it is not sent (a mistyped command never reaches
    // everyone), and "//playful" sends it as chat.
    _ = Self.say("/playful mood", in: &d)
    #expect(d.requests.isEmpty)
    #expect(d.session.model.notices.first?.text.hasPrefix("/playful is not a command") == true)
    d.press(.escape)
    _ = Self.say("//playful mood", in: &d)
    #expect(d.requests == [.say("/playful mood")])
  }
}

/// The first watch night: "Watch together" played before anyone had joined. The group now
/// holds for each person's answer; "Not now" is that answer.
@Suite("answering the offer of a session")
struct SessionAnswerTests {
  /// bob started S1E2 and the group holds for ann's answer.
  static func asked() -> GroupState {
    var state = Fixtures.playing(sequence: 11, position: 0, rate: 0)
    state.participants[0].isJoined = false
    state.session?.intendedRate = 1
    state.session?.invited = [Fixtures.ann]
    state.session?.waits = [
      GroupWait(
        participant: Fixtures.ann, cause: .answering, since: Fixtures.now,
        deadline: Fixtures.now.advanced(bySeconds: 30))
    ]
    return state
  }

  @Test("Not now tells the group, which stops waiting for the answer")
  func notNowIsSent() {
    var d = Driver.inLobby()
    d.send(
      .client(
        .state(Self.asked(), events: [Fixtures.change(11, .sessionStarted(item: "harbour/s1e2"))])))
    d.send(.client(.session(.waiting(sessionID: 1))))
    #expect(d.screen().contains("Watch together?"))
    // The starter's screen and this one say whom the group waits for, and why.
    #expect(d.screen().contains("asked to join, 30 s left"))
    #expect(d.press(.character("n")).contains(.act(.decline)))
  }

  @Test("Not now after the wait is over tells nobody: it would change nothing")
  func lateNotNow() {
    var d = Driver.inLobby()
    var state = Self.asked()
    state.session?.invited = []
    state.session?.waits = []
    d.send(
      .client(.state(state, events: [Fixtures.change(11, .sessionStarted(item: "harbour/s1e2"))])))
    d.send(.client(.session(.waiting(sessionID: 1))))
    #expect(d.screen().contains("Watch together?"))
    let effects = d.press(.character("n"))
    #expect(!effects.contains(.act(.decline)))
    #expect(!d.screen().contains("Watch together?"))
  }
}

@Suite("Front session: others' links, with consent")
struct LinkConsentFrontTests {
  static let url = "https://media.example.org/films/harbour.mkv"

  /// bob has queued a link; ann's gate asks about it.
  static func asked() -> Driver {
    var d = Driver.watching()
    var group = Fixtures.playing()
    group.queue = [
      QueueEntry(
        id: 1,
        series: LinkItem.series(for: ItemInfo(id: ItemID(url), title: "Harbour", duration: 60)),
        item: ItemID(url), addedBy: Fixtures.bob, addedByName: "bob")
    ]
    let effects = d.send(.client(.state(group, events: [])))
    #expect(effects.contains(.considerLinks([url])), "queued links are asked about ahead")
    #expect(!d.send(.client(.state(group, events: []))).contains(.considerLinks([url])), "once")
    d.send(.links(.questions([url])))
    return d
  }

  @Test("a link of an untrusted site is asked about, naming who wants it and the whole link")
  func asks() {
    let d = Self.asked()
    let screen = d.screen()
    #expect(screen.contains("Open a link?"), "\(screen)")
    #expect(screen.contains("bob wants to play"))
    #expect(screen.contains("https://media.example.org/films/harbour.mkv"))
    #expect(screen.contains("media.example.org is not one of your trusted sites"))
    #expect(screen.contains("Open") && screen.contains("Always for media.example.org"))
    #expect(screen.contains("Not this one"))
  }

  @Test(
    "each answer goes to the gate and is said; Esc is not this one",
    arguments: [
      (Key.character("o"), LinkAnswer.open, "opening the link to media.example.org…"),
      (.character("a"), .alwaysForSite, "media.example.org is one of your trusted sites now"),
      (.character("n"), .notThisOne, "not opening the link to media.example.org"),
      (.escape, .notThisOne, "not opening the link to media.example.org"),
    ])
  func answers(key: Key, answer: LinkAnswer, said: String) {
    var d = Self.asked()
    let effects = d.press(key)
    #expect(effects.contains(.answerLink(Self.url, answer)))
    #expect(d.session.model.notices.first?.text.hasPrefix(said) == true)
    #expect(!d.screen().contains("Open a link?"))
    #expect(d.requests.isEmpty, "nothing goes to the group")
  }

  @Test("a question the gate dropped closes; the next one is asked after")
  func followsTheGate() {
    var d = Self.asked()
    d.send(.links(.questions([])))
    #expect(!d.screen().contains("Open a link?"))
    d.send(.links(.problem("the trusted sites could not be kept in /x: denied")))
    #expect(
      d.session.model.notices.first?.text == "the trusted sites could not be kept in /x: denied")
  }
}

@Suite("Front session: questions an action asks")
struct ActionQuestionFrontTests {
  static let item = ItemInfo(id: "harbour/s1e3", title: "Departure", duration: 200)

  @Test("p asks the runtime for the episode before this one, which the runtime asks about first")
  func previousKey() {
    var d = Driver.watching()
    d.clearRequests()
    d.press(.character("p"))
    #expect(d.requests == [.previous])
  }

  @Test("the runtime's question is asked in the front; yes confirms it, no or Esc cancels it")
  func asked() {
    for (key, answer) in [
      (Key.character("y"), ParticipantAction.confirm), (.character("n"), .cancel),
      (.escape, .cancel),
    ] {
      var d = Driver.watching()
      d.send(.asked(.confirmSwitch(Self.item)))
      #expect(d.screen().contains("Switch everyone to"), "\(d.screen())")
      d.clearRequests()
      d.press(key)
      #expect(d.requests == [answer], "\(key)")
      #expect(!d.screen().contains("Switch everyone to"))
    }
  }
}
