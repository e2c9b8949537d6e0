import HeadlessFront
import ParticipantRuntime
import Participation
import PlaybackCoordination
import Synchronization
import TestSupport
import Testing

/// The room's shared queue through a relay, on both transports.
@Suite("Sessions: the shared queue")
struct QueueSessionTests {
  @Test(
    "two people edit the queue at once: sequenced one way, the same queue on every replica and the relay",
    arguments: TransportKind.allCases)
  func concurrentEdits(kind: TransportKind) async throws {
    let relay = try await RelayHarness(kind)
    let ann = try await relay.participant("ann")
    let bob = try await relay.participant("bob")
    let carl = try await relay.participant("carl")
    try await ann.send(.queueAdd(series: testSeries, item: "harbour/s1e2")).get()
    try await ann.send(.queueAdd(series: testSeries, item: "harbour/s1e3")).get()
    for client in [bob, carl] {
      await eventually("the queue reaches everyone") { await client.groupState.queue.count == 2 }
    }
    #expect(await carl.groupState.queue.map(\.addedByName) == ["ann", "ann"])
    // bob takes entry 1 off while carl moves it to the end: whichever the relay takes first
    // applies; the other either applies after it or finds the entry gone.
    async let removed = bob.send(.queueRemove(entry: 1))
    async let moved = carl.send(.queueMove(entry: 1, to: 1))
    let (removal, move) = await (removed, moved)
    #expect((try? removal.get()) != nil, "bob's removal applies either way")
    if case .failure(let error) = move {
      #expect(error == .rejected(.notInQueue(entry: 1)), "\(error)")
    }
    let expected = [UInt64(2)]
    await eventually("every replica holds the same queue") {
      var queues: [[UInt64]] = []
      for client in [ann, bob, carl] { queues.append(await client.groupState.queue.map(\.id)) }
      return queues.allSatisfy { $0 == expected }
    }
    #expect(await relay.state(ofRoom: "lobby")?.queue.map(\.id) == expected)
    for client in [ann, bob, carl] { await client.stop() }
    await relay.stop()
  }

  @Test(
    "at the end of an episode the group goes on to the queued one, once, on every replica",
    arguments: TransportKind.allCases)
  func autoAdvanceThroughTheQueue(kind: TransportKind) async throws {
    let relay = try await RelayHarness(kind)
    let ann = try await relay.participant("ann")
    let bob = try await relay.participant("bob")
    let advances = Mutex(0)
    let listening = relay.task {
      for await case .state(_, let events) in bob.events {
        for event in events {
          if case .autoAdvanced = event.kind { advances.withLock { $0 += 1 } }
        }
      }
    }
    defer { listening.cancel() }
    try await ann.send(.start(series: testSeries, item: "harbour/s1e1")).get()
    try await ann.send(.setAutoAdvance(true)).get()
    await eventually("bob sees the session") { await bob.groupState.session != nil }
    try await bob.send(.join).get()
    try await bob.send(.queueAdd(series: testSeries, item: "harbour/s1e3")).get()
    await relay.run(until: "the group plays", within: 10) {
      (await ann.groupState.session?.timeline.rate ?? 0) > 0
    }
    try await ann.send(.seek(item: "harbour/s1e1", to: 297)).get()
    await relay.run(until: "the group went on to the queued episode", within: 20) {
      await bob.groupState.session?.item.id == "harbour/s1e3"
    }
    // Some time on: it plays s1e3 (200 s long), and the end of s1e1 was one advance.
    await relay.advance(by: 5, step: 0.05)
    for client in [ann, bob] {
      let state = await client.groupState
      #expect(state.session?.item.id == "harbour/s1e3" && state.queue.isEmpty)
    }
    #expect(await relay.state(ofRoom: "lobby")?.session?.item.id == "harbour/s1e3")
    #expect(advances.withLock { $0 } == 1)
    await ann.stop()
    await bob.stop()
    await relay.stop()
  }

  @Test(
    "the front's forms through the one performer: entries by number, a confirmed play, a switch the front asked about, a link read once",
    arguments: TransportKind.allCases)
  func frontForms(kind: TransportKind) async throws {
    let relay = try await RelayHarness(kind)
    let ann = try await relay.participant("ann")
    let reads = Mutex(0)
    let link = "https://media.example.org/films/harbour.mkv"
    let reader = LinkReader { url in
      reads.withLock { $0 += 1 }
      return .success(ItemInfo(id: ItemID(url), title: "Harbour lights", duration: 90))
    }
    var performer = ActionPerformer(client: ann, catalog: [testSeries], linkReader: reader)
    // A front reads a link to ask the person first; the performer does not read it again.
    _ = await reader.read(link)
    #expect(Self.done(await performer.perform(.start("harbour/s1e1"))))
    #expect(Self.done(await performer.perform(.queue(.add(ItemID(link))))))
    #expect(Self.done(await performer.perform(.queue(.add("harbour/s1e3")))))
    #expect(reads.withLock { $0 } == 1, "the link was read once")
    let entries = await ann.groupState.queue.map(\.id)
    #expect(entries.count == 2)
    #expect(Self.done(await performer.perform(.queue(.move(.entry(entries[1]), toPlace: 1)))))
    #expect(await ann.groupState.queue.map(\.id) == [entries[1], entries[0]])
    // Confirmed in the front's own prompt: played at once, no question.
    #expect(Self.done(await performer.perform(.queue(.play(.entry(entries[1]), confirmed: true)))))
    #expect(await ann.groupState.session?.item.id == "harbour/s1e3")
    #expect(Self.done(await performer.perform(.switchTo("harbour/s1e2", confirmed: true))))
    #expect(await ann.groupState.session?.item.id == "harbour/s1e2")
    #expect(!performer.hasPendingPrompt)
    // An entry gone is said, not sent.
    #expect(!Self.done(await performer.perform(.queue(.remove(.entry(99))))))
    await ann.stop()
    await relay.stop()
  }

  @Test(
    "previous: the episode before this one, asked first, for everyone; at the first one it says so",
    arguments: TransportKind.allCases)
  func previous(kind: TransportKind) async throws {
    let relay = try await RelayHarness(kind)
    let ann = try await relay.participant("ann")
    var performer = ActionPerformer(client: ann, catalog: [testSeries])
    #expect(Self.done(await performer.perform(.start("harbour/s1e2"))))
    guard case .prompt(.confirmSwitch(let item)) = await performer.perform(.previous) else {
      Issue.record("previous was not asked first")
      return
    }
    #expect(item.id == "harbour/s1e1")
    #expect(await ann.groupState.session?.item.id == "harbour/s1e2", "nothing before the answer")
    #expect(Self.done(await performer.perform(.confirm)))
    #expect(await ann.groupState.session?.item.id == "harbour/s1e1")
    guard case .error(let why) = await performer.perform(.previous) else {
      Issue.record("previous from the first episode was not refused")
      return
    }
    #expect(why == "Arrival is the first episode of Harbour")
    await ann.stop()
    await relay.stop()
  }

  static func done(_ output: ActionOutput) -> Bool {
    if case .done = output { true } else { false }
  }

  @Test(
    "queue add, remove, move, clear and play parse",
    arguments: [
      ("queue add harbour/s1e2", ParticipantAction.queue(.add("harbour/s1e2"))),
      ("queue remove 2", .queue(.remove(.place(2)))),
      ("Queue move 3 1", .queue(.move(.place(3), toPlace: 1))),
      ("queue clear", .queue(.clear)), ("queue play 1", .queue(.play(.place(1)))),
    ])
  func parses(line: String, action: ParticipantAction) throws {
    #expect(try ParticipantAction.parse(line) == action)
  }

  @Test(
    "bad queue actions are one clear error",
    arguments: [
      "queue", "queue add", "queue add nothing", "queue remove", "queue remove 0",
      "queue remove two", "queue move 1", "queue move 1 2 3", "queue clear now",
      "queue play 101", "queue shuffle",
    ])
  func malformed(line: String) {
    #expect(throws: ActionParseError.self) { try ParticipantAction.parse(line) }
  }
}
