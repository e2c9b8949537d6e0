import Clocks
import Foundation
import LinkConsent
import Media
import Narration
import ParticipantRuntime
import Participation
import PlaybackCoordination
import PlayerOSD
import RelayRuntime
import Synchronization
import SyncplayHarness
import TestSupport
import Testing
import Transports

@testable import MpvPlayer

/// Real mpv and ffmpeg, when installed (`.ci/run` installs both, so CI always runs these).
enum RealMpv {
  static func find(_ name: String) -> String? {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    return path.split(separator: ":").map { "\($0)/\(name)" }
      .first { FileManager.default.isExecutableFile(atPath: $0) }
  }
  static let available = find("mpv") != nil && find("ffmpeg") != nil

  /// A 30 s clip (24 fps test pattern, a 440 Hz tone), made once per test run, by ffmpeg
  /// waited for on a thread of its own (see `blocking`), never on the cooperative pool.
  static func clip() async -> String? {
    let path = FileManager.default.temporaryDirectory
      .appendingPathComponent("cowatch-test-clip-\(getpid()).mp4").path
    return (try? await blocking { try TestClip.make(path, seconds: 30) }) != nil ? path : nil
  }

  /// `clip` as Matroska, which keeps its header up front: mpv plays from the first bytes
  /// that arrive over HTTP.
  static func matroska(_ clip: String, named name: String) async throws -> Data {
    let dir = FileManager.default.temporaryDirectory
      .appendingPathComponent("cowatch-\(name)-\(getpid())")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let mkv = dir.appendingPathComponent("clip.mkv").path
    let remux = Process()
    remux.executableURL = URL(fileURLWithPath: try #require(find("ffmpeg")))
    remux.arguments = ["-hide_banner", "-loglevel", "error", "-y", "-i", clip, "-c", "copy", mkv]
    try remux.run()
    _ = try await blocking { remux.waitUntilExit() }
    return try Data(contentsOf: URL(fileURLWithPath: mkv))
  }

  static let series = SeriesInfo(
    id: "clip", title: "Test clip", items: [ItemInfo(id: "clip/e1", title: "Pattern", duration: 30)]
  )
}

/// Participants with real mpv players in one in-process room; stopped together however
/// the test body ends.
struct MpvRoom {
  let clock: MonotonicClock
  /// The room's relay, for participants with another player.
  let transport: any Transport
  let players: [MpvPlayer]
  let clients: [ParticipantClient]
  /// With `osd`: the file each mpv writes its terminal to, where it shows its on-screen
  /// display's texts (`--term-osd=force`).
  let terminalLogs: [String]

  /// `player(name)`: the options that person's mpv gets and the file it plays. `osd`: each
  /// player shows the group on its on-screen display, as `--osd` does.
  static func run(
    _ names: [String], autoAdvance: Bool = false, osd: OSDMode? = nil,
    player: (String) -> (arguments: [String], path: String?),
    configure: (String, inout ParticipantConfiguration) -> Void = { _, _ in },
    gate: (String) -> LinkGate? = { _ in nil },
    _ body: (MpvRoom) async throws -> Void
  ) async throws {
    let clock = MonotonicClock()
    let relay = InMemoryRelay(clock: clock)
    relay.start()
    var players: [MpvPlayer] = []
    var clients: [ParticipantClient] = []
    var feeders: [OSDFeeder] = []
    var logs: [String] = []
    func stopAll() async {
      for f in feeders { f.stop() }
      for c in clients { await c.stop() }
      for p in players { await p.stop() }
      await relay.stop()
      for log in logs { try? FileManager.default.removeItem(atPath: log) }
    }
    do {
      for name in names {
        let (arguments, path) = player(name)
        var log: String?
        var terminal: [String] = []
        if osd != nil {
          log =
            FileManager.default.temporaryDirectory
            .appendingPathComponent("cowatch-osd-\(getpid())-\(name).log").path
          logs.append(log!)
          terminal = ["--terminal", "--really-quiet=no", "--term-osd=force"]
        }
        let mpv = try await MpvPlayer.launch(
          arguments: ["--vo=null", "--ao=null"] + terminal + arguments, resolver: { _ in path },
          clock: clock, terminalLog: log)
        players.append(mpv)
        var configuration = ParticipantConfiguration(name: name, autoAdvance: autoAdvance)
        configure(name, &configuration)
        var feeder: OSDFeeder?
        var observer: (@Sendable (ClientEvent) -> Void)?
        if let osd {
          let f = OSDFeeder(mode: osd, clock: clock) { mpv.showText($0, seconds: $1) }
          feeder = f
          observer = { f.hear($0) }
        }
        let driven: any PlayerDriver = gate(name).map { ConsentingPlayer(mpv, gate: $0) } ?? mpv
        let client = ParticipantClient(
          transport: relay.transport, configuration: configuration, player: driven, clock: clock,
          observer: observer)
        try await client.start()
        clients.append(client)
        // Keys pressed in mpv are carried out as a runner carries them out.
        _ = ActionPerformer.followPlayer(of: client)
        if let feeder {
          feeder.follow(client)
          feeders.append(feeder)
        }
      }
      try await body(
        MpvRoom(
          clock: clock, transport: relay.transport, players: players, clients: clients,
          terminalLogs: logs))
    } catch {
      await stopAll()
      throw error
    }
    await stopAll()
  }

  /// What mpv number `index` has shown on its display so far (with `osd`).
  func shown(by index: Int) -> String {
    (try? String(contentsOfFile: terminalLogs[index], encoding: .utf8)) ?? ""
  }

  /// What every player shows now.
  func seen() -> [PlayerObservation] {
    let now = clock.localNow()
    return players.map { $0.observe(at: now) }
  }
}

@Suite(
  "Three participants watch with real mpv players", .serialized, .enabled(if: RealMpv.available),
  .timeLimit(.minutes(2)))
struct MpvSessionTests {
  /// Waits in real time (mpv runs in real time) until `condition` holds.
  /// `explain`: what to say beside the failure (the state a wait did not see change).
  func until(
    _ what: String, within seconds: Double = 10, explain: () async -> String = { "" },
    _ condition: () async -> Bool
  ) async throws {
    guard await eventually(seconds, poll: .milliseconds(20), condition) else {
      Issue.record("timed out waiting for \(what) \(await explain())")
      throw CancellationError()
    }
  }

  @Test("start together, a pause on one frame at the originator's time, a seek, a rate change")
  func watchTogether() async throws {
    let clip = try #require(await RealMpv.clip(), "ffmpeg could not make the test clip")
    try await MpvRoom.run(["ann", "bob", "cat"], player: { _ in ([], clip) }) { room in
      let (players, clients, seen) = (room.players, room.clients, room.seen)
      _ = try await clients[0].send(.start(series: RealMpv.series, item: "clip/e1")).get()
      for c in clients.dropFirst() { _ = try await c.send(.join).get() }
      func spread() -> Double {
        let p = seen().map(\.position)
        return p.max()! - p.min()!
      }
      try await until("everyone plays") {
        seen().allSatisfy { $0.rate > 0 && !$0.isBusy }
      }
      // Started together, and kept so. (How close, and how soon, is measured by
      // `cowatch-bench mpv` on a quiet machine; beside a whole test suite on two cores only
      // loose bounds hold.)
      try await until("everyone together", within: 10) { spread() < 0.01 }

      // bob pauses: everyone stops on the same frame, at the item time bob's player showed.
      _ = try await clients[1].pause().get()
      try await until("everyone paused") {
        seen().allSatisfy { $0.rate == 0 && !$0.isBusy }
      }
      let pausedAt = try #require(await clients[0].groupState.session?.timeline.itemTime)
      var frames: [Double] = []
      for p in players {
        frames.append(try #require(await p.property("time-pos")?.number))
      }
      #expect(frames.allSatisfy { abs($0 - frames[0]) < 1e-6 }, "frames \(frames)")
      #expect(abs(frames[0] - pausedAt) < 1.0 / 24 + 1e-3, "frame \(frames[0]) for \(pausedAt)")

      // cat plays again, then seeks while playing: everyone lands on the new spot together.
      _ = try await clients[2].play().get()
      try await until("everyone plays again") { seen().allSatisfy { $0.rate > 0 && !$0.isBusy } }
      _ = try await clients[2].seek(to: 20).get()
      try await until("everyone at the new spot") {
        seen().allSatisfy { $0.rate > 0 && !$0.isBusy && $0.position >= 20 }
      }
      try await until("everyone together after the seek", within: 10) { spread() < 0.01 }

      // ann makes it faster: all bend at one instant and stay together.
      _ = try await clients[0].setRate(1.5).get()
      try await until("everyone at 1.5×") {
        seen().allSatisfy { abs($0.rate - 1.5) < 1.5 * 0.05 && !$0.isBusy }
      }
      try await until("everyone together at 1.5×", within: 10) { spread() < 0.01 }
      for p in players {
        // The rate mpv plays at: 1.5, give or take the controller's nudge (at most 5 %).
        let speed = try #require(await p.property("speed")?.number)
        #expect(abs(speed - 1.5) <= 1.5 * 0.05 + 1e-9, "speed \(speed)")
      }
      // bob presses space in his own mpv (mpv's key for `cycle pause`): the group pauses,
      // with bob as who did it — also if the driver happens to hold mpv paused for a moment
      // then (re-syncing), where the press unpauses mpv.
      try await until("everyone plays undisturbed") {
        seen().allSatisfy { $0.rate > 0 && !$0.isBusy }
      }
      // Every change from here on (the last change alone would not do: readiness changes
      // follow the pause). The stream holds every event since the start: the older ones
      // are left out by their sequence.
      let before = await clients[0].groupState.lastChange?.sequence ?? 0
      let changes = Mutex<[ChangeEvent]>([])
      let listening = Task {
        for await case .state(_, let events) in clients[0].events {
          changes.withLock { $0 += events.filter { $0.sequence > before } }
        }
      }
      defer { listening.cancel() }
      players[1].sendBehindTheDriver(["cycle", "pause"])
      try await until(
        "the group paused by bob",
        explain: {
          let pause = await players[1].property("pause")
          return "(bob's mpv pause: \(String(describing: pause)); players: \(seen()); "
            + "changes: \(changes.withLock { $0 }))"
        }
      ) {
        changes.withLock {
          $0.contains { $0.originatorName == "bob" && "\($0.kind)".contains("paused") }
        }
      }
      try await until("everyone paused") { seen().allSatisfy { $0.rate == 0 && !$0.isBusy } }
    }
  }

  @Test(
    "bob's personal offset of 200 ms: his mpv plays 200 ms ahead of ann's, also after a pause and a play"
  )
  func personalOffset() async throws {
    let clip = try #require(await RealMpv.clip(), "ffmpeg could not make the test clip")
    try await MpvRoom.run(
      ["ann", "bob"], player: { _ in ([], clip) },
      configure: { name, configuration in
        if name == "bob" { configuration.personalOffset = 0.2 }
      }
    ) { room in
      let (clients, seen) = (room.clients, room.seen)
      _ = try await clients[0].send(.start(series: RealMpv.series, item: "clip/e1")).get()
      _ = try await clients[1].send(.join).get()
      func gap() -> Double {
        let p = seen().map(\.position)
        return p[1] - p[0]
      }
      try await until("both play") { seen().allSatisfy { $0.rate > 0 && !$0.isBusy } }
      // How close, on a quiet machine, is measured by `cowatch-bench mpv --offset 200`;
      // beside a whole test suite on two cores only loose bounds hold.
      try await until("bob 200 ms ahead", within: 10) { abs(gap() - 0.2) < 0.01 }
      _ = try await clients[0].pause().get()
      try await until("both paused") { seen().allSatisfy { $0.rate == 0 && !$0.isBusy } }
      let frames = [
        try #require(await room.players[0].property("time-pos")?.number),
        try #require(await room.players[1].property("time-pos")?.number),
      ]
      // Paused on frames (24 fps): 200 ms apart, to the frame.
      #expect(abs(frames[1] - frames[0] - 0.2) <= 1.0 / 24 + 1e-3, "frames \(frames)")
      _ = try await clients[1].play().get()
      try await until("both play again") { seen().allSatisfy { $0.rate > 0 && !$0.isBusy } }
      try await until("bob 200 ms ahead again", within: 10) { abs(gap() - 0.2) < 0.01 }
    }
  }

  @Test(
    "the group in mpv's picture: someone's pause, my own key in mpv, chat, and no chat with --osd changes"
  )
  func onScreenDisplay() async throws {
    let clip = try #require(await RealMpv.clip(), "ffmpeg could not make the test clip")
    try await MpvRoom.run(["ann", "bob"], osd: .chat, player: { _ in ([], clip) }) { room in
      let (players, clients, seen) = (room.players, room.clients, room.seen)
      _ = try await clients[0].send(.start(series: RealMpv.series, item: "clip/e1")).get()
      _ = try await clients[1].send(.join).get()
      try await until("everyone plays") { seen().allSatisfy { $0.rate > 0 && !$0.isBusy } }
      #expect(room.shown(by: 1).contains("ann started Test clip — Pattern"))

      // bob pauses (from his terminal): ann's mpv says who and where; bob's, that everyone
      // followed.
      _ = try await clients[1].pause().get()
      let at = try #require(await clients[0].groupState.session?.timeline.itemTime)
      try await until("ann's mpv shows bob's pause", explain: { room.shown(by: 0) }) {
        room.shown(by: 0).contains("bob paused at \(TimeFormat.clock(at))")
      }
      try await until("bob's mpv says everyone paused", explain: { room.shown(by: 1) }) {
        room.shown(by: 1).contains("you paused for everyone at \(TimeFormat.clock(at))")
      }
      // ann presses space in her own mpv: the group plays, and her mpv says so.
      try await until("everyone paused") { seen().allSatisfy { $0.rate == 0 && !$0.isBusy } }
      players[0].sendBehindTheDriver(["cycle", "pause"])
      try await until("ann's mpv says everyone plays", explain: { room.shown(by: 0) }) {
        room.shown(by: 0).contains("you played for everyone from")
      }
      try await until("bob's mpv shows ann's play", explain: { room.shown(by: 1) }) {
        room.shown(by: 1).contains("ann played from")
      }
      // Chat from bob's terminal, in ann's picture, as it was typed (mpv expands no ${…}).
      await clients[1].sendMessage(kind: .chat, body: "the lighthouse! ${pause}")
      try await until("ann's mpv shows bob's chat", explain: { room.shown(by: 0) }) {
        room.shown(by: 0).contains("bob: the lighthouse! ${pause}")
      }
      #expect(!room.shown(by: 1).contains("bob: the lighthouse"), "nobody reads their own chat")
    }
    // --osd changes: the changes, not the chat.
    try await MpvRoom.run(["ann", "bob"], osd: .changes, player: { _ in ([], clip) }) { room in
      let clients = room.clients
      _ = try await clients[0].send(.start(series: RealMpv.series, item: "clip/e1")).get()
      _ = try await clients[1].send(.join).get()
      await clients[1].sendMessage(kind: .chat, body: "hello there")
      _ = try await clients[1].pause().get()
      try await until("ann's mpv shows bob's pause", explain: { room.shown(by: 0) }) {
        room.shown(by: 0).contains("bob paused at")
      }
      #expect(!room.shown(by: 0).contains("hello there"))
    }
  }

  @Test(
    "a link: read by ann's mpv, played together by two real mpv players over HTTP; a simulated player steps away saying why"
  )
  func link() async throws {
    let clip = try #require(await RealMpv.clip(), "ffmpeg could not make the test clip")
    let bytes = try await RealMpv.matroska(clip, named: "link")
    let server = try StallingFileServer(
      data: bytes, bytesPerSecond: bytes.count * 4, burst: bytes.count)
    defer { server.stop() }
    let url = "http://127.0.0.1:\(server.port)/films/harbour-lights.mkv"
    // What starting a link does first: ann's mpv reads its title and duration.
    let item = try await MpvLinkProbe.probe(url)
    #expect(item.id.rawValue == url)
    #expect(abs(item.duration - 30) < 0.1, "duration \(item.duration)")
    #expect(!item.title.isEmpty)
    let series = LinkItem.series(for: item)
    #expect(series.title == "127.0.0.1")

    // Nobody has the file: their mpv opens the link from the item's id.
    try await MpvRoom.run(["ann", "bob"], player: { _ in ([], nil) }) { room in
      let (clients, seen) = (room.clients, room.seen)
      let cat = ParticipantClient(
        transport: room.transport, configuration: ParticipantConfiguration(name: "cat"),
        player: SimulatedPlayer(itemResolver: { _ in nil }), clock: room.clock)
      try await cat.start()
      defer { Task { await cat.stop() } }
      let notices = Mutex<[Notice]>([])
      let listening = Task {
        for await case .notice(let notice) in cat.events { notices.withLock { $0.append(notice) } }
      }
      defer { listening.cancel() }

      _ = try await clients[0].send(.start(series: series, item: item.id)).get()
      _ = try await clients[1].send(.join).get()
      _ = try await cat.send(.join).get()
      try await until("ann and bob play the link", within: 15) {
        seen().allSatisfy { $0.item == item.id && $0.rate > 0 && !$0.isBusy }
      }
      try await until("ann and bob together", within: 10) {
        let p = seen().map(\.position)
        return p.max()! - p.min()! < 0.02
      }
      // cat's player cannot: cat steps away with the reason, and nobody waits for it.
      try await until(
        "cat stepped away",
        explain: {
          let me = await cat.participantID
          let player = await cat.snapshot().player
          return "cat \(String(describing: me)), player \(String(describing: player)), "
            + "notices \(notices.withLock { $0 }), "
            + "\(await clients[0].groupState.participants.map { ($0.name, $0.suspensions) })"
        }
      ) {
        await clients[0].groupState.participant(cat.participantID!)?.suspensions
          .contains(.playerUnavailable) == true
      }
      let said = notices.withLock { $0.map(\.description) }
      #expect(
        said.contains { $0.contains("the simulated player cannot play links (127.0.0.1)") },
        "\(said)")
      #expect(await clients[0].groupState.waitingFor.isEmpty)
      #expect(await clients[0].groupState.session?.item.title == item.title)
    }
  }

  @Test(
    "links with consent: bob's mpv does not fetch ann's link to 127.0.0.1 and says why; carl's (local links allowed) asks, and plays in step once carl says open"
  )
  func linkConsent() async throws {
    let clip = try #require(await RealMpv.clip(), "ffmpeg could not make the test clip")
    let bytes = try await RealMpv.matroska(clip, named: "consent")
    let server = try StallingFileServer(
      data: bytes, bytesPerSecond: bytes.count * 4, burst: bytes.count)
    defer { server.stop() }
    let url = "http://127.0.0.1:\(server.port)/films/consent.mkv"
    let item = try await MpvLinkProbe.probe(url)
    let gates = [
      "bob": LinkGate(
        consent: LinkConsent(settings: .init(trustsEveryLink: true)), lookup: { _ in nil },
        save: { _ in nil }),
      "carl": LinkGate(
        consent: LinkConsent(settings: .init(allowsLocalDestinations: true)), lookup: { _ in nil },
        save: { _ in nil }),
    ]
    try await MpvRoom.run(["ann", "bob", "carl"], player: { _ in ([], nil) }, gate: { gates[$0] }) {
      room in
      let (clients, seen) = (room.clients, room.seen)
      _ = try await clients[0].send(.start(series: LinkItem.series(for: item), item: item.id)).get()
      for c in clients.dropFirst() { _ = try await c.send(.join).get() }
      let bob = try #require(await clients[1].participantID)
      let carl = try #require(await clients[2].participantID)
      try await until("bob and carl step away, ann plays", within: 15) {
        let state = await clients[0].groupState
        return state.participant(bob)?.suspensions.contains(.playerUnavailable) == true
          && state.participant(carl)?.suspensions.contains(.playerUnavailable) == true
          && seen()[0].rate > 0 && !seen()[0].isBusy
      }
      #expect(gates["carl"]!.questions == [url])
      #expect(gates["bob"]!.questions.isEmpty)
      #expect(seen()[1].item == nil && seen()[2].item == nil, "neither mpv fetched the link")
      gates["carl"]!.answer(.open, for: url)
      try await until("carl is back and plays in step with ann", within: 15) {
        let p = seen()
        return await clients[0].groupState.participant(carl)?.suspensions.isEmpty == true
          && p[2].item == item.id && p[2].rate > 0 && !p[2].isBusy
          && abs(p[2].position - p[0].position) < 0.05
      }
      #expect(
        await clients[0].groupState.participant(bob)?.suspensions.contains(.playerUnavailable)
          == true)
      #expect(seen()[1].item == nil)
    }
  }

  @Test("a link mpv cannot open, or that is not a link, is one clear error")
  func badLinks() async throws {
    // A port nothing listens on.
    let closed = try StallingFileServer(data: Data(), bytesPerSecond: 1, burst: 0)
    let port = closed.port
    closed.stop()
    do {
      _ = try await MpvLinkProbe.probe("http://127.0.0.1:\(port)/nothing.mkv", timeout: 20)
      Issue.record("a link to nothing was read")
    } catch {
      #expect(error.description.contains("cannot watch http://127.0.0.1:\(port)/nothing.mkv"))
    }
    await #expect(throws: MpvError.self) { try await MpvLinkProbe.probe("ftp://example.org/a") }
    await #expect(throws: MpvError.self) {
      try await MpvLinkProbe.probe("https://example.org/a b")
    }
  }

  @Test("the end of the file advances the group to the next episode, and every mpv plays it")
  func endOfFileAdvances() async throws {
    let clip = try #require(await RealMpv.clip(), "ffmpeg could not make the test clip")
    let series = SeriesInfo(
      id: "clip", title: "Test clip",
      items: [
        ItemInfo(id: "clip/e1", title: "Pattern", duration: 30),
        ItemInfo(id: "clip/e2", title: "Pattern again", duration: 30),
      ])
    try await MpvRoom.run(["ann", "bob"], autoAdvance: true, player: { _ in ([], clip) }) {
      room in
      let (clients, seen) = (room.clients, room.seen)
      _ = try await clients[0].send(.start(series: series, item: "clip/e1")).get()
      _ = try await clients[1].send(.join).get()
      try await until("everyone plays") { seen().allSatisfy { $0.rate > 0 && !$0.isBusy } }
      _ = try await clients[1].seek(to: 28).get()
      try await until("the group advanced to the next episode", within: 15) {
        await clients[0].groupState.session?.item.id == "clip/e2"
      }
      try await until("every mpv plays the next episode from its start", within: 15) {
        return seen().allSatisfy {
          $0.item == "clip/e2" && $0.rate > 0 && !$0.isBusy && $0.position < 10
        }
      }
    }
  }

  @Test(
    "one player starved of input (its file comes over HTTP, which stalls): the group waits for it, then all go on together"
  )
  func starvedPlayer() async throws {
    let clip = try #require(await RealMpv.clip(), "ffmpeg could not make the test clip")
    let bytes = try await RealMpv.matroska(clip, named: "starved")
    // Twice as fast as it plays, after the first second: the player keeps a few seconds
    // ahead, not the whole file, and runs dry soon after the network stops.
    let server = try StallingFileServer(
      data: bytes, bytesPerSecond: bytes.count / 15, burst: bytes.count / 30)
    let url = "http://127.0.0.1:\(server.port)/clip.mkv"

    defer { server.stop() }
    try await MpvRoom.run(
      ["ann", "bob", "cat"], osd: .chat,
      player: { name in name == "cat" ? (["--cache-pause-wait=0.5"], url) : ([], clip) }
    ) { room in
      let (clients, seen) = (room.clients, room.seen)
      // cat starts (the group waits for everyone's first load of an episode it starts).
      _ = try await clients[2].send(.start(series: RealMpv.series, item: "clip/e1")).get()
      for c in clients.prefix(2) { _ = try await c.send(.join).get() }
      try await until("everyone plays", within: 15) {
        seen().allSatisfy { $0.rate > 0 && !$0.isBusy }
      }
      // cat's network stops: its mpv runs out of input a few seconds on, the group waits
      // for cat, and the others stop rather than play on without it.
      try await until("a second played") { seen().allSatisfy { $0.position > 1 } }
      server.stall()
      try await until("the group waits for cat", within: 15) {
        await clients[0].groupState.waitingFor == ["cat"]
      }
      try await until("ann and bob stopped for cat") {
        seen().prefix(2).allSatisfy { $0.rate == 0 }
      }
      let waitedAt = try #require(await clients[0].groupState.session?.timeline.itemTime)
      #expect(waitedAt > 1 && waitedAt < 20, "waited at \(waitedAt)")
      // ann, watching full screen, reads in her picture whom the group waits for (once the
      // wait has lasted a second), and how long it will.
      try await until("ann's mpv shows the wait", within: 5, explain: { room.shown(by: 0) }) {
        room.shown(by: 0).contains("waiting for cat: buffering, ")
      }
      // The network comes back: cat goes on, and so does the group, together.
      server.resume()
      try await until("the group no longer waits", within: 15) {
        await clients[0].groupState.waitingFor.isEmpty
      }
      try await until("everyone plays again", within: 15) {
        seen().allSatisfy { $0.rate > 0 && !$0.isBusy }
      }
      try await until("everyone together again", within: 10) {
        let p = seen().map(\.position)
        return p.max()! - p.min()! < 0.01
      }
      // A player sends its unpause up to 50 ms before the start instant (mpv starts that
      // late) and counts itself moving from then on: just before the start it reads a
      // little before the point it starts from.
      let after = seen().map(\.position)
      #expect(
        after.allSatisfy { $0 >= waitedAt - 0.05 },
        "went on from where it waited (\(waitedAt)), not earlier: \(after)")
    }
  }

  @Test("mpv quitting is a problem the participant steps away with, not a stuck group")
  func mpvQuits() async throws {
    let clip = try #require(await RealMpv.clip(), "ffmpeg could not make the test clip")
    let player = try await MpvPlayer.launch(
      arguments: ["--vo=null", "--ao=null"], resolver: { _ in clip })
    let clock = MonotonicClock()
    player.perform(.load(item: "clip/e1", at: 3), at: clock.localNow())
    try await until("loaded") {
      let seen = player.observe(at: clock.localNow())
      return !seen.isBusy && seen.item == "clip/e1"
    }
    #expect(player.observe(at: clock.localNow()).position == 3)
    // Killed from outside, as a crash would.
    let pid = try #require(await player.property("pid")?.number)
    kill(pid_t(pid), SIGKILL)
    try await until("the problem is seen") {
      player.observe(at: clock.localNow()).problem != nil
    }
    #expect(player.observe(at: clock.localNow()).item == nil)
    await player.stop()
  }

  @Test("no mpv: one clear error, nothing left running")
  func missing() async {
    do {
      _ = try await MpvPlayer.launch(executable: "mpv-that-is-not-there", resolver: { _ in nil })
      Issue.record("launched a missing mpv")
    } catch {
      #expect(error.description.contains("not found on PATH"))
    }
  }
}

/// Serves one file over HTTP on loopback, with byte ranges, as a slow network share
/// would: at `bytesPerSecond` (after a first burst), so that a player keeps only a few
/// seconds ahead, and not at all while stalled (``stall()`` … ``resume()``): a player
/// reading from it runs out of input, as on a network that stops. Blocking sockets, a
/// thread per connection; every wait is bounded.
final class StallingFileServer: Sendable {
  let port: Int
  private let listener: Int32
  private let stalled = Mutex(false)
  private let stopped = Mutex(false)

  init(data: Data, bytesPerSecond: Int, burst: Int) throws {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard bound == 0, listen(fd, 8) == 0 else { throw POSIXError(.EADDRINUSE) }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    port = Int(UInt16(bigEndian: address.sin_port))
    listener = fd
    Thread.detachNewThread { [self] in
      while !stopped.withLock({ $0 }) {
        let client = accept(fd, nil, nil)
        guard client >= 0 else { return }
        Thread.detachNewThread {
          self.serve(client, data: data, bytesPerSecond: bytesPerSecond, burst: burst)
        }
      }
    }
  }

  private func serve(_ client: Int32, data: Data, bytesPerSecond: Int, burst: Int) {
    defer { close(client) }
    var timeout = timeval(tv_sec: 30, tv_usec: 0)
    setsockopt(client, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    var head = Data()
    var buffer = [UInt8](repeating: 0, count: 4096)
    while head.range(of: Data("\r\n\r\n".utf8)) == nil {
      let n = read(client, &buffer, buffer.count)
      guard n > 0, head.count < 65536 else { return }
      head.append(contentsOf: buffer[0..<n])
    }
    let text = String(decoding: head, as: UTF8.self)
    var start = 0
    if let range = text.range(of: "Range: bytes=", options: .caseInsensitive) {
      start = Int(text[range.upperBound...].prefix { $0.isNumber }) ?? 0
    }
    start = min(start, data.count)
    let status = start > 0 ? "206 Partial Content" : "200 OK"
    var response = "HTTP/1.1 \(status)\r\nContent-Type: video/x-matroska\r\n"
    response += "Accept-Ranges: bytes\r\nContent-Length: \(data.count - start)\r\n"
    if start > 0 { response += "Content-Range: bytes \(start)-\(data.count - 1)/\(data.count)\r\n" }
    response += "Connection: close\r\n\r\n"
    guard send(client, Data(response.utf8)) else { return }
    var offset = start
    let first = min(data.count, offset + burst)
    guard send(client, data[offset..<first]) else { return }
    offset = first
    // Then a slice every 50 ms, none while stalled; a minute at most.
    let slice = max(1, bytesPerSecond / 20)
    let deadline = Date().addingTimeInterval(60)
    while offset < data.count, !stopped.withLock({ $0 }), Date() < deadline {
      usleep(50_000)
      if stalled.withLock({ $0 }) { continue }
      let end = min(data.count, offset + slice)
      guard send(client, data[offset..<end]) else { return }
      offset = end
    }
  }

  private func send(_ client: Int32, _ bytes: Data) -> Bool {
    bytes.withUnsafeBytes { raw in
      var offset = 0
      while offset < raw.count {
        let n = write(client, raw.baseAddress! + offset, raw.count - offset)
        guard n > 0 else { return false }
        offset += n
      }
      return true
    }
  }

  func stall() { stalled.withLock { $0 = true } }
  func resume() { stalled.withLock { $0 = false } }

  func stop() {
    stopped.withLock { $0 = true }
    shutdown(listener, Int32(SHUT_RDWR))
    close(listener)
  }
}
