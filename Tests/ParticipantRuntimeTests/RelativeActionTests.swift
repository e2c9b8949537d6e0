import HeadlessFront
import ParticipantRuntime
import Participation
import PlaybackCoordination
import Synchronization
import TestSupport
import Testing

@Suite("Relative headless actions")
struct RelativeActionTests {
  @Test(
    "seek and rate steps parse with a sign",
    arguments: [
      ("seek +10", ParticipantAction.playback(.seekBy(10))),
      ("seek -1:00", .playback(.seekBy(-60))),
      ("seek 1:00", .playback(.seek(to: 60))), ("rate +0.25", .playback(.changeRate(by: 0.25))),
      ("rate -0.5", .playback(.changeRate(by: -0.5))), ("rate 1.5", .playback(.setRate(1.5))),
    ])
  func parses(line: String, action: ParticipantAction) throws {
    #expect(try ParticipantAction.parse(line) == action)
  }

  @Test(
    "malformed steps are one clear error", arguments: ["seek +", "seek +x", "rate +0", "rate -z"])
  func malformed(line: String) {
    #expect(throws: ActionParseError.self) { try ParticipantAction.parse(line) }
  }

  @Test(
    "five quick 'seek +10' from a pause at 2:40 end at 3:30; three 'rate +0.25' from 1.25× give 2×")
  func burstsAddUp() async throws {
    let relay = try await RelayHarness(.inMemory)
    let ann = try await relay.participant("ann")
    var performer = ActionPerformer(client: ann, catalog: [testSeries])
    for line in ["start harbour/s1e1", "pause", "seek 2:40", "rate 1.25"] {
      _ = await performer.perform(try ParticipantAction.parse(line))
    }
    // Sent without waiting for each answer, as lines piped into headless mode would be.
    for line in Array(repeating: "seek +10", count: 5) + Array(repeating: "rate +0.25", count: 3) {
      switch try ParticipantAction.parse(line) {
      case .playback(let intent): await ann.submit(.playback(intent))
      default: Issue.record("\(line) is not a relative action")
      }
    }
    await eventually("all answered") { await ann.snapshot().unansweredRequests == 0 }
    let session = try #require(await ann.groupState.session)
    #expect(session.timeline.itemTime == 210)
    #expect(session.playbackRate == 2)
    await ann.stop()
    await relay.stop()
  }
}

@Suite("Steps past a limit")
struct StepPastLimitTests {
  @Test(
    "a step past the fastest or slowest speed, or past the end or the start, is said here and not broadcast"
  )
  func pastLimits() async throws {
    func refusal(_ result: Result<Void, ClientError>) -> ClientError? {
      if case .failure(let error) = result { error } else { nil }
    }
    let relay = try await RelayHarness(.inMemory)
    let ann = try await relay.participant("ann")
    var performer = ActionPerformer(client: ann, catalog: [testSeries])
    for line in ["start harbour/s1e1", "pause", "seek 4:30", "rate 3.75"] {
      _ = await performer.perform(try ParticipantAction.parse(line))
    }
    #expect(refusal(await ann.changeRate(by: 0.25)) == nil)
    #expect(refusal(await ann.changeRate(by: 0.25)) == .unchanged("speed is already 4×"))
    #expect(refusal(await ann.setRate(0.25)) == nil)
    #expect(refusal(await ann.changeRate(by: -0.25)) == .unchanged("speed is already 0.25×"))
    #expect(refusal(await ann.seek(by: 60)) == nil)
    #expect(refusal(await ann.seek(by: 60)) == .unchanged("already at the end (5:00)"))
    #expect(refusal(await ann.seek(to: 0)) == nil)
    #expect(refusal(await ann.seek(by: -10)) == .unchanged("already at 0:00"))
    await eventually("all answered") { await ann.snapshot().unansweredRequests == 0 }
    let sequence = await ann.groupState.sequence
    #expect(refusal(await ann.seek(by: 60)) == nil, "a step that moves still goes")
    #expect(await ann.groupState.sequence > sequence)
    await ann.stop()
    await relay.stop()
  }
}

@Suite("Headless error wording")
struct HeadlessErrorWordingTests {
  @Test("an unknown name \"is\" not in the room; an unknown action's error carries its input")
  func wording() async throws {
    let relay = try await RelayHarness(.inMemory)
    let errors = await headlessErrors(
      ["tell nobody hi", "blah"], client: try await relay.participant("ann"))
    #expect(errors.count == 2, "\(errors)")
    #expect(errors.contains { $0.contains("nobody called nobody is in the room") }, "\(errors)")
    #expect(
      errors.contains { $0.contains("unknown action") && $0.contains(#""input":"blah""#) },
      "\(errors)")
    await relay.stop()
  }
}

@Suite("Safe text in headless output")
struct HeadlessEscapingTests {
  @Test("controls, DEL, C1, separators and bidi controls are escaped; ordinary text is kept")
  func escapes() {
    let line = OrderedJSON.object([
      ("text", .string("a\u{1B}[2Jb\u{7F}c\u{85}d\u{2028}e\u{202E}f ü 雪"))
    ])
    .serialized
    #expect(line == #"{"text":"a\u001b[2Jb\u007fc\u0085d\u2028e\u202ef ü 雪"}"#)
    #expect(!line.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
  }
}

/// What a headless runner printed, in order (written by the runner as it prints).
final class OutputLines: Sendable {
  private let printed = Mutex<[String]>([])
  var lines: [String] { printed.withLock { $0 } }
  func add(_ line: String) { printed.withLock { $0.append(line) } }
}

/// Runs `actions` through a headless runner for `client`, then `status`, and returns the
/// error lines it printed once the status is out.
func headlessErrors(_ actions: [String], client: ParticipantClient) async -> [String] {
  let output = OutputLines()
  let runner = HeadlessRunner(client: client, catalog: [testSeries]) { line in output.add(line) }
  let (input, feed) = AsyncStream<String>.makeStream()
  for action in actions + ["status"] { feed.yield(action) }
  feed.finish()
  await runner.run(input: input)
  await eventually("the output settles") {
    output.lines.contains { $0.contains("\"event\":\"status\"") }
  }
  return output.lines.filter { $0.contains("\"event\":\"error\"") }
}

@Suite("Headless answers")
struct HeadlessAnswerTests {
  @Test("a refused action is reported once, with its input")
  func refusedOnce() async throws {
    let relay = try await RelayHarness(.inMemory)
    // No session to join: refused by the relay.
    let errors = await headlessErrors(["join"], client: try await relay.participant("ann"))
    #expect(errors.count == 1, "\(errors)")
    #expect(errors.first?.contains("\"input\":\"join\"") == true)
    await relay.stop()
  }
}

@Suite("Headless state lines")
struct HeadlessStateLineTests {
  @Test(
    "a state line is printed when what it says changes, not for link figures; its originator made the change"
  )
  func stateLinesOnChange() throws {
    var engine = GroupEngine()
    let (ann, dave): (ParticipantID, ParticipantID) = ("p1", "p4")
    var now = GroupInstant(seconds: 100)
    var lines = HeadlessStateLines()
    func step(_ command: GroupCommand, from who: ParticipantID) throws -> String? {
      now = now.advanced(bySeconds: 1)
      let changes = try engine.apply(command, from: who, at: now).get()
      return lines.line(for: engine.state, changes: changes)?.serialized
    }
    _ = try step(.enter(name: "ann"), from: ann)
    _ = try step(.start(series: testSeries, item: testSeries.items[0].id), from: ann)
    let paused = try #require(try step(.pause(item: nil, at: 30), from: ann))
    #expect(paused.contains(#""state":"paused""#) && paused.contains(#""originator":"ann""#))
    // dave enters: nothing a state line says changes, and his link figures change nothing.
    #expect(try step(.enter(name: "dave"), from: dave) == nil)
    for _ in 0..<5 {
      #expect(
        try step(.report(roundTrip: 0.02, startupLatency: 0.1, playerOffset: nil), from: dave)
          == nil)
      #expect(
        try step(.report(roundTrip: 0.03, startupLatency: 0.1, playerOffset: 0.01), from: ann)
          == nil)
    }
    // After a welcome, the state again, by whoever last moved the timeline (not dave).
    lines.welcomed()
    let again = try #require(
      lines.line(for: engine.state, changes: [])?.serialized)
    #expect(again.contains(#""originator":"ann""#), "\(again)")
    _ = try step(.join, from: dave)
    let seeked = try #require(try step(.seek(item: nil, to: 60), from: dave))
    #expect(seeked.contains(#""position":60"#) && seeked.contains(#""originator":"dave""#))
  }
}

@Suite("headless links")
struct HeadlessLinkParseTests {
  @Test("start, switch and queue add take a link as they take an episode")
  func parsed() throws {
    let url = "https://media.example.org/films/harbour.mkv"
    #expect(try ParticipantAction.parse("start \(url)") == .start(ItemID(url)))
    #expect(try ParticipantAction.parse("switch \(url)") == .switchTo(ItemID(url)))
    #expect(try ParticipantAction.parse("queue add \(url)") == .queue(.add(ItemID(url))))
  }

  @Test(
    "a link that cannot be one is a parse error naming why",
    arguments: [
      "start https://media.example.org/a film.mkv", "queue add https://", "start http:///x",
    ])
  func refused(line: String) {
    #expect(throws: ActionParseError.self) { try ParticipantAction.parse(line) }
  }
}

@Suite("links through the action performer")
struct LinkActionTests {
  @Test(
    "with a player that reads links, start and queue add send the link as a series of one; without one, a clear error and nothing sent"
  )
  func startAndQueue() async throws {
    let relay = try await RelayHarness(.inMemory)
    let ann = try await relay.participant("ann")
    let url = "https://media.example.org/films/harbour.mkv"
    var simulated = ActionPerformer(client: ann, catalog: [testSeries])
    guard
      case .error(let why) = await simulated.perform(try ParticipantAction.parse("start \(url)"))
    else {
      Issue.record("a simulated player started a link")
      return
    }
    #expect(
      why == "this player cannot play links: join with --player mpv to watch media.example.org")
    #expect(await ann.groupState.session == nil)

    let reads = LinkReader { link in
      link.hasSuffix("missing.mkv")
        ? .failure(LinkReadError("cannot watch \(link): mpv could not open it"))
        : .success(ItemInfo(id: ItemID(link), title: "Harbour Lights", duration: 5400))
    }
    var mpv = ActionPerformer(client: ann, catalog: [testSeries], linkReader: reads)
    guard case .done = await mpv.perform(try ParticipantAction.parse("start \(url)")) else {
      Issue.record("the link did not start")
      return
    }
    let session = try #require(await ann.groupState.session)
    #expect(session.item == ItemInfo(id: ItemID(url), title: "Harbour Lights", duration: 5400))
    #expect(session.series.title == "media.example.org")
    guard case .done = await mpv.perform(try ParticipantAction.parse("queue add \(url)?t=2")) else {
      Issue.record("the link was not queued")
      return
    }
    #expect(await ann.groupState.queue.map(\.item) == [ItemID("\(url)?t=2")])
    guard
      case .error(let problem) = await mpv.perform(
        try ParticipantAction.parse("queue add https://media.example.org/missing.mkv"))
    else {
      Issue.record("a link mpv cannot open was queued")
      return
    }
    #expect(problem.contains("mpv could not open it"))
    #expect(await ann.groupState.queue.count == 1)
    await ann.stop()
    await relay.stop()
  }
}
