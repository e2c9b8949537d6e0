import Participation
import PlaybackCoordination
import SyncplayBridge
import SyncplayProtocol
import Testing

/// The bridge's core on virtual time: a Syncplay client's lines, the participant's events
/// and the coordinator's player commands in; lines and requests out.
@Suite("Syncplay bridge core")
struct SyncplayBridgeCoreTests {
  static let item = ItemInfo(id: "night-ferry/s1e3", title: "Port Askaig", duration: 1305)
  static let series = SeriesInfo(id: "night-ferry", title: "Night Ferry", items: [item])
  static let sam = ParticipantID("p1")
  static let ann = ParticipantID("p2")

  /// A room with ann and sam (the client) in a session, playing or paused at `at`.
  static func room(
    rate: Double = 0, at position: Double = 10, samJoined: Bool = true,
    samSuspended: Bool = false, lastChange: UInt64 = 5
  ) -> GroupState {
    let change = ChangeEvent(
      sequence: lastChange, at: GroupInstant(seconds: 1), originator: ann,
      originatorName: "ann", kind: .paused(at: position))
    let session = WatchSession(
      id: 1, series: series, item: item,
      timeline: Timeline(itemTime: position, groupTime: GroupInstant(seconds: 1), rate: rate),
      intendedRate: rate, lastPlaybackChange: change)
    return GroupState(
      sequence: lastChange,
      participants: [
        Participant(
          id: sam, name: "sam", isJoined: samJoined,
          suspensions: samSuspended ? [.playerUnavailable] : [], origin: .syncplay),
        Participant(id: ann, name: "ann", isJoined: true),
      ], session: session, sessionCounter: 1)
  }

  /// A core past its Hello and welcome, with the client's file (the item) known.
  static func entered(
    file: SyncplayFile? = SyncplayFile(name: "Night.Ferry.S01E03.mkv", duration: 1305.2)
  )
    -> (SyncplayBridgeCore, LocalInstant)
  {
    var core = SyncplayBridgeCore()
    let t = LocalInstant(seconds: 100)
    _ = core.received(
      .hello(SyncplayHello(username: "sam", room: "lobby", version: "1.6.9")), at: t)
    _ = core.clientEvent(.welcomed(participant: sam, resumed: false, relayEpoch: "e"), at: t)
    if let file { _ = core.received(.set(.file(file)), at: t) }
    _ = core.clientEvent(.state(room(), events: []), at: t)
    return (core, t)
  }

  static func states(_ effects: [SyncplayBridgeEffect]) -> [SyncplayServerState] {
    effects.compactMap { if case .send(.state(let s)) = $0 { s } else { nil } }
  }

  @Test(
    "a Hello enters the Cowatch room as that person; the welcome answers with Hello and the playlist"
  )
  func helloAndWelcome() {
    var core = SyncplayBridgeCore()
    let t = LocalInstant(seconds: 1)
    let entered = core.received(
      .hello(SyncplayHello(username: "sam", room: "lobby", version: "1.6.9", password: "ab12")),
      at: t)
    #expect(entered == [.enter(name: "sam", room: "lobby", password: "ab12")])
    let welcomed = core.clientEvent(
      .welcomed(participant: Self.sam, resumed: false, relayEpoch: "e"), at: t)
    guard case .send(.hello(let name, let room, _, _)) = welcomed.first else {
      Issue.record("no Hello: \(welcomed)")
      return
    }
    #expect(name == "sam" && room == "lobby")
    #expect(welcomed.contains(.send(.playlistIndex(user: nil, index: nil))))
  }

  @Test("STARTTLS is accepted once, before the Hello, only with a certificate to offer")
  func startTLS() {
    var plain = SyncplayBridgeCore()
    #expect(
      plain.received(.startTLS, at: LocalInstant(seconds: 1)) == [.send(.tls(accepted: false))])
    var secure = SyncplayBridgeCore(configuration: .init(offersTLS: true))
    #expect(
      secure.received(.startTLS, at: LocalInstant(seconds: 1))
        == [.send(.tls(accepted: true)), .startTLS])
    #expect(
      secure.received(.startTLS, at: LocalInstant(seconds: 2)) == [.send(.tls(accepted: false))])
  }

  @Test("anything before Hello, or a bad line, gets one error and closes")
  func beforeHello() {
    var core = SyncplayBridgeCore()
    #expect(
      core.received(.list, at: LocalInstant(seconds: 1))
        == [.send(.error("send Hello first")), .close])
    #expect(core.received(.list, at: LocalInstant(seconds: 2)) == [])
    var other = SyncplayBridgeCore()
    #expect(
      other.receivedInvalid(.notJSON) == [.send(.error("line is not JSON")), .close])
  }

  @Test("a refused entry (name taken, wrong password) is told to the client in the relay's words")
  func enterFailed() {
    var core = SyncplayBridgeCore()
    _ = core.received(
      .hello(SyncplayHello(username: "ann", room: "lobby", version: "1.6.9")),
      at: LocalInstant(seconds: 1))
    let text = "the name \"ann\" is taken in room lobby; choose another"
    // The participant's own word that it is disconnected comes first: not the reason.
    #expect(core.clientEvent(.connection(.disconnected), at: LocalInstant(seconds: 1)) == [])
    #expect(core.enterFailed(text) == [.send(.error(text)), .close])
  }

  @Test(
    "a Cowatch pause becomes a forced state at the group's point, by its originator, acknowledged before the client is heard again"
  )
  func remotePause() {
    var (core, t) = Self.entered()
    let sent = Self.states(core.perform(.pause(at: 42.5), at: t))
    #expect(sent.count == 1)
    #expect(sent.first?.paused == true && sent.first?.position == 42.5)
    #expect(sent.first?.setBy == "ann" && sent.first?.ignoringServer == 1)
    // Until the client echoes the counter, its reports are from before the change.
    _ = core.received(
      .state(SyncplayClientState(playstate: .init(position: 50, paused: false, doSeek: false))),
      at: t.advanced(bySeconds: 0.1))
    #expect(core.takeUserActions() == [])
    #expect(core.observe(at: t.advanced(bySeconds: 0.1)).isBusy)
    _ = core.received(
      .state(
        SyncplayClientState(
          playstate: .init(position: 42.5, paused: true, doSeek: false), ignoringServer: 1)),
      at: t.advanced(bySeconds: 0.2))
    #expect(core.takeUserActions() == [])
  }

  @Test("a pause that lands past the point is mended once, with an exact seek while paused")
  func pauseMended() {
    var (core, t) = Self.entered()
    _ = core.perform(.pause(at: 42.5), at: t)
    let late = SyncplayClientState(
      playstate: .init(position: 42.57, paused: true, doSeek: false), ignoringServer: 1)
    let mend = Self.states(core.received(.state(late), at: t.advanced(bySeconds: 0.5)))
    #expect(mend.count == 1)
    #expect(
      mend.first?.doSeek == true && mend.first?.paused == true && mend.first?.position == 42.5)
    let again = SyncplayClientState(
      playstate: .init(position: 42.57, paused: true, doSeek: false), ignoringServer: 2)
    #expect(Self.states(core.received(.state(again), at: t.advanced(bySeconds: 1.5))).isEmpty)
  }

  @Test(
    "the client's own pause, play and seek become user actions, and it waits for the group's answer"
  )
  func userActions() {
    var (core, t) = Self.entered()
    _ = core.perform(.play(itemTime: 10, startAt: t, rate: 1), at: t)
    _ = core.received(
      .state(
        SyncplayClientState(
          playstate: .init(position: 10, paused: false, doSeek: false), ignoringServer: 1)),
      at: t.advanced(bySeconds: 0.5))
    // sam pauses in mpv: Syncplay marks its own changes with the client counter.
    let paused = SyncplayClientState(
      playstate: .init(position: 14.2, paused: true, doSeek: false), ignoringClient: 1)
    _ = core.received(.state(paused), at: t.advanced(bySeconds: 4))
    #expect(core.takeUserActions() == [.pause(at: 14.2)])
    #expect(core.observe(at: t.advanced(bySeconds: 4)).isBusy)
    // The same counter again (a reply before our echo) is not a second pause.
    _ = core.received(.state(paused), at: t.advanced(bySeconds: 4.5))
    #expect(core.takeUserActions() == [])
    // The next state echoes the counter.
    let pushed = Self.states(core.tick(at: t.advanced(bySeconds: 5)))
    #expect(pushed.first?.ignoringClient == 1)
    // Echo taken (no counter), then a seek of its own.
    _ = core.received(
      .state(SyncplayClientState(playstate: .init(position: 14.2, paused: true, doSeek: false))),
      at: t.advanced(bySeconds: 5.1))
    _ = core.received(
      .state(
        SyncplayClientState(
          playstate: .init(position: 300, paused: true, doSeek: true), ignoringClient: 1)),
      at: t.advanced(bySeconds: 6))
    #expect(core.takeUserActions() == [.seek(to: 300), .pause(at: 300)])
  }

  @Test(
    "a start is sent early by what the client needs, and the group's regular state says where it is"
  )
  func scheduledStart() {
    var (core, t) = Self.entered()
    let startAt = t.advanced(bySeconds: 2)
    #expect(core.perform(.play(itemTime: 10, startAt: startAt, rate: 1), at: t) == [])
    #expect(core.nextDeadline! <= startAt)
    let sent = Self.states(core.tick(at: startAt))
    #expect(sent.first?.paused == false)
    #expect(abs((sent.first?.position ?? 0) - 10) < 1e-6)
  }

  @Test(
    "Syncplay plays at 1× only: at another speed the client is paused by Cowatch and steps away")
  func speed() {
    var (core, t) = Self.entered()
    _ = core.perform(.play(itemTime: 10, startAt: t, rate: 1), at: t)
    let paused = Self.states(
      core.perform(
        .play(itemTime: 12, startAt: t.advanced(bySeconds: 2), rate: 1.5),
        at: t.advanced(bySeconds: 2)))
    #expect(paused.first?.paused == true && paused.first?.setBy == "Cowatch")
    _ = core.clientEvent(.state(Self.room(rate: 1.5), events: []), at: t.advanced(bySeconds: 2))
    let problem = core.observe(at: t.advanced(bySeconds: 2)).problem ?? ""
    #expect(problem.contains("1×") && problem.contains("1.5×"))
    _ = core.clientEvent(.state(Self.room(rate: 1), events: []), at: t.advanced(bySeconds: 3))
    #expect(core.observe(at: t.advanced(bySeconds: 3)).problem == nil)
  }

  @Test(
    "a client whose file is not the group's item cannot follow: it is told which item is missing")
  func otherFile() {
    var (core, t) = Self.entered(file: SyncplayFile(name: "Holiday.mkv", duration: 3600))
    let seen = core.observe(at: t.advanced(bySeconds: 5))
    #expect(seen.problem == PlayerObservation.noFile(for: Self.item.id))
    #expect(seen.item == nil)
    _ = core.received(
      .set(.file(SyncplayFile(name: "Night Ferry - s01e03.mp4", duration: 1304.6))),
      at: t.advanced(bySeconds: 6))
    #expect(core.observe(at: t.advanced(bySeconds: 6)).problem == nil)
  }

  @Test("drift is mended with a seek at most once a minute")
  func driftSeeks() {
    var (core, t) = Self.entered()
    _ = core.perform(.play(itemTime: 10, startAt: t, rate: 1), at: t)
    // The coordinator restarts the player on the same line twice within a minute.
    let first = Self.states(
      core.perform(
        .play(itemTime: 20, startAt: t.advanced(bySeconds: 10), rate: 1),
        at: t.advanced(bySeconds: 10)))
    #expect(first.first?.doSeek == true)
    let second = core.perform(
      .play(itemTime: 30, startAt: t.advanced(bySeconds: 20), rate: 1),
      at: t.advanced(bySeconds: 20))
    #expect(second.isEmpty)
    let later = Self.states(
      core.perform(
        .play(itemTime: 80, startAt: t.advanced(bySeconds: 70), rate: 1),
        at: t.advanced(bySeconds: 70)))
    #expect(later.first?.doSeek == true)
  }

  @Test("chat goes both ways; Syncplay's server echoes its sender's line, so the bridge does")
  func chat() {
    var (core, t) = Self.entered()
    #expect(
      core.received(.chat("  hello there "), at: t)
        == [
          .request(.message(kind: "chat", body: "hello there", to: .all)),
          .send(.chat(username: "sam", message: "hello there")),
        ])
    #expect(
      core.clientEvent(.message(from: Self.ann, name: "ann", kind: "chat", body: "hi sam"), at: t)
        == [.send(.chat(username: "ann", message: "hi sam"))])
    #expect(
      core.clientEvent(
        .message(from: Self.ann, name: "ann", kind: "chat", body: "psst", to: [Self.sam]), at: t)
        == [.send(.chat(username: "ann", message: "(to you) psst"))])
  }

  @Test("people in the room are Syncplay users, ready when they can play; departures are told")
  func people() {
    var (core, t) = Self.entered()
    var state = Self.room()
    state.participants.append(Participant(id: "p3", name: "bob", readiness: .loading))
    let effects = core.clientEvent(.state(state, events: []), at: t)
    #expect(
      effects.contains(.send(.ready(username: "bob", isReady: false, manuallyInitiated: false))))
    state.participants.removeLast()
    let left = core.clientEvent(.state(state, events: []), at: t)
    #expect(left.contains(.send(.user(name: "bob", room: "lobby", file: nil, event: .left))))
  }

  @Test("a silent client is dropped after Syncplay's protocol timeout")
  func silence() {
    var (core, t) = Self.entered()
    #expect(!core.tick(at: t.advanced(bySeconds: 12)).contains(.close))
    #expect(core.tick(at: t.advanced(bySeconds: 13)).contains(.close))
  }

  @Test(
    "a room with nothing to watch starts the client's file, named as a Cowatch library names it")
  func startsFile() {
    var core = SyncplayBridgeCore()
    let t = LocalInstant(seconds: 1)
    _ = core.received(.hello(SyncplayHello(username: "sam", room: "r", version: "1.6.9")), at: t)
    _ = core.clientEvent(.welcomed(participant: Self.sam, resumed: false, relayEpoch: "e"), at: t)
    let effects = core.received(
      .set(.file(SyncplayFile(name: "Night.Ferry.S01E03.Port.Askaig.mkv", duration: 1305))), at: t)
    guard case .request(.command(.start(let series, let item))) = effects.first else {
      Issue.record("no start: \(effects)")
      return
    }
    #expect(item == "night-ferry/s1e3")
    #expect(series.title == "Night Ferry")
    #expect(effects.dropFirst().first == .request(.command(.pause(item: item, at: 0))))
  }

  @Test(
    "files match items by duration and name, never by path",
    arguments: [
      ("Night.Ferry.S01E03.mkv", 1305.4, true),
      ("/home/sam/tv/night ferry 1x03.mp4", 1305, true),
      ("Port Askaig.mkv", 1304.5, true),
      ("Night.Ferry.S01E03.mkv", 1290, false),
      ("Other.Show.S01E03.mkv", 1305, false),
      ("3f2a9c81d0b7", 1305, true),
      ("**Hidden filename**", 0, false),
    ])
  func matching(name: String, duration: Double, matches: Bool) {
    #expect(
      SyncplayItemMatch.matches(
        SyncplayFile(name: name, duration: duration), Self.item, in: Self.series) == matches)
  }
}

@Suite("Syncplay bridge core: idle connections")
struct SyncplayIdleTests {
  @Test("a connection that never says Hello is dropped after the hello timeout")
  func helloTimeout() {
    var core = SyncplayBridgeCore(configuration: .init(helloTimeout: 5))
    let t = LocalInstant(seconds: 10)
    _ = core.connected(at: t)
    #expect(core.nextDeadline != nil)
    #expect(core.tick(at: t.advanced(bySeconds: 4.9)).isEmpty)
    #expect(
      core.tick(at: t.advanced(bySeconds: 5.1)) == [.send(.error("no Hello within 5 s")), .close])
  }

  @Test(
    "the room's queue is Syncplay's shared playlist after what plays now; choosing an entry there plays it now"
  )
  func queueAsPlaylist() {
    var (core, t) = SyncplayBridgeCoreTests.entered()
    var state = SyncplayBridgeCoreTests.room()
    let next = ItemInfo(id: "night-ferry/s1e4", title: "Colonsay", duration: 1290)
    let series = SeriesInfo(
      id: "night-ferry", title: "Night Ferry", items: [SyncplayBridgeCoreTests.item, next])
    state.queue = [
      QueueEntry(
        id: 3, series: series, item: next.id, addedBy: SyncplayBridgeCoreTests.ann,
        addedByName: "ann")
    ]
    state.queueCounter = 3
    let shown = core.clientEvent(.state(state, events: []), at: t)
    #expect(
      shown.contains(
        .send(.playlistChange(user: "ann", files: ["Night.Ferry.S01E03.mkv", "Colonsay"]))))
    #expect(shown.contains(.send(.playlistIndex(user: "ann", index: 0))))
    #expect(
      core.received(.set(.playlistIndex(1)), at: t) == [.request(.command(.playQueued(entry: 3)))])
    #expect(core.received(.set(.playlistIndex(0)), at: t).isEmpty)
    // Edited in Syncplay: the room's playlist is told again.
    #expect(!core.received(.set(.playlistChange(files: ["other.mkv"])), at: t).isEmpty)
    // The queue empties: the series again.
    state.queue = []
    let back = core.clientEvent(.state(state, events: []), at: t)
    #expect(back.contains(.send(.playlistChange(user: "ann", files: ["Night.Ferry.S01E03.mkv"]))))
  }
}
