import Foundation
import ParticipantRuntime
import Participation
import PlaybackCoordination
import Testing
import WatchNights

/// Every member's runtime keeps the room's memory, and a host picks the night up again.
@Suite("Sessions: the room remembers the night")
struct RoomMemorySessionTests {
  @Test(
    "night 1: each member's machine keeps the item, the paused position, the queue and who was there; night 2, on a new relay, continue brings them back",
    arguments: TransportKind.allCases)
  func continueNextNight(kind: TransportKind) async throws {
    let base = FileManager.default.temporaryDirectory
      .appendingPathComponent("cowatch-nights-\(UUID().uuidString)").path
    defer { try? FileManager.default.removeItem(atPath: base) }
    let annFolder = RoomMemoryFolder(stateDirectory: base + "/ann")
    let bobFolder = RoomMemoryFolder(stateDirectory: base + "/bob")

    // Night 1.
    let relay = try await RelayHarness(kind)
    let ann = try await relay.participant("ann", room: "club")
    let bob = try await relay.participant("bob", room: "club")
    let keepers = [(ann, annFolder), (bob, bobFolder)].map { client, folder in
      let keeper = NightKeeper(room: "club", previous: nil, folder: folder, clock: relay.clock)
      keeper.follow(client)
      return keeper
    }
    try await ann.send(.start(series: testSeries, item: "harbour/s1e1")).get()
    await relay.run(until: "bob sees the session", within: 5) {
      await bob.groupState.session != nil
    }
    try await bob.send(.join).get()
    try await bob.send(.queueAdd(series: testSeries, item: "harbour/s1e3")).get()
    await relay.run(until: "the group plays", within: 10) {
      (await ann.groupState.session?.timeline.rate ?? 0) > 0
    }
    // Playing: the position is written every 30 s at most.
    await relay.advance(by: 40, step: 0.5)
    let playing = try #require(keepers[1].written)
    #expect(playing.position > 25 && playing.position < 45, "\(playing.position)")
    try await ann.send(.pause(item: "harbour/s1e1", at: 123.4)).get()
    await relay.run(until: "bob's machine wrote the pause", within: 5) {
      keepers[1].written?.position == 123.4
    }
    for client in [ann, bob] { await client.stop() }
    for keeper in keepers { keeper.stop() }
    await relay.stop()

    guard case .memory(let remembered) = bobFolder.read(room: "club") else {
      Issue.record("bob's machine remembers nothing: \(bobFolder.read(room: "club"))")
      return
    }
    #expect(remembered.watched.item == "harbour/s1e1")
    #expect(remembered.position == 123.4)
    #expect(remembered.queue.map(\.watched.item) == ["harbour/s1e3"])
    #expect(remembered.people == ["ann", "bob"])
    #expect(remembered.offer(to: "bob") == "last time: Harbour S1E1 at 2:03, with ann — continue?")
    // The same on ann's machine: the memory is every member's.
    guard case .memory(let annMemory) = annFolder.read(room: "club") else {
      Issue.record("ann's machine remembers nothing")
      return
    }
    #expect(annMemory.position == 123.4 && annMemory.queue == remembered.queue)

    // Night 2: bob hosts; every process of night 1 is gone.
    let next = try await RelayHarness(kind)
    let host = try await next.participant("bob", room: "club")
    var performer = ActionPerformer(client: host, catalog: [testSeries], lastTime: remembered)
    guard case .note(let said) = await performer.perform(.continueLastTime) else {
      Issue.record("continue did not say what it did")
      return
    }
    #expect(said.contains("continuing Harbour S1E1 at 2:03, paused"), "\(said)")
    await next.run(until: "the queue is back", within: 5) { await host.groupState.queue.count == 1 }
    let state = await host.groupState
    #expect(state.session?.item.id == "harbour/s1e1")
    #expect(state.session?.timeline.itemTime == 123.4)
    #expect(state.session?.timeline.rate == 0)
    #expect(state.queue.map(\.item) == ["harbour/s1e3"])
    // Continued once: a second `continue` has nothing left to pick up.
    guard case .error = await performer.perform(.continueLastTime) else {
      Issue.record("continued twice")
      return
    }
    await host.stop()
    await next.stop()
  }

  @Test("an item the catalog no longer has is said, and nothing starts")
  func itemGone() async throws {
    let relay = try await RelayHarness(.inMemory)
    let host = try await relay.participant("bob", room: "club")
    var memory = sampleNight()
    memory.watched.item = "harbour/s9e9"
    var performer = ActionPerformer(client: host, catalog: [testSeries], lastTime: memory)
    guard case .error(let said) = await performer.perform(.continueLastTime) else {
      Issue.record("a missing item was continued")
      return
    }
    #expect(said.contains("is no longer in the catalog"), "\(said)")
    #expect(await host.groupState.session == nil)
    await host.stop()
    await relay.stop()
  }

  func sampleNight() -> RoomMemory {
    RoomMemory(
      room: "club",
      watched: .init(
        series: "harbour", seriesTitle: "Harbour", item: "harbour/s1e2", itemTitle: "Fog"),
      position: 30, people: ["ann", "bob"], when: Date())
  }
}
