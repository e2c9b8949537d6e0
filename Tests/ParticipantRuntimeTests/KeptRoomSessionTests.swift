import ParticipantRuntime
import Participation
import PlaybackCoordination
import Rooms
import TestSupport
import Testing

@Suite("Rooms kept on request across the wire", .serialized, .timeLimit(.minutes(1)))
struct KeptRoomSessionTests {
  @Test(
    "ann asks the relay to keep the room and everyone leaves; the next one in finds it paused where they stopped, with its queue",
    arguments: TransportKind.allCases)
  func keptForTheNextNight(kind: TransportKind) async throws {
    var configuration = RelayHarness.fastConfiguration
    configuration.maximumKeptRooms = 10
    let relay = try await RelayHarness(kind, configuration: configuration)
    let ann = try await relay.participant("ann")
    let bob = try await relay.participant("bob")
    try await ann.send(.start(series: testSeries, item: "harbour/s1e1")).get()
    try await ann.send(.queueAdd(series: testSeries, item: "harbour/s1e2")).get()
    try await ann.send(.setKept(true)).get()
    await relay.run(until: "bob's replica holds the request", within: 2) {
      await bob.groupState.control.kept
    }
    await relay.advance(by: 1)
    await ann.stop()
    await bob.stop()
    await relay.run(until: "the room is empty", within: 10) {
      await relay.state(ofRoom: "lobby")?.participants.isEmpty == true
    }
    let kept = try #require(await relay.state(ofRoom: "lobby"), "kept, not dropped")
    #expect(kept.control == RoomControl(kept: true))
    let session = try #require(kept.session)
    #expect(session.timeline.rate == 0 && session.intendedRate == 0)
    #expect(kept.queue.map(\.item) == ["harbour/s1e2"])

    // Later, past every grace, someone comes back: the room as it was left, theirs to let
    // go. (Minutes, not hours: the relay's every tick is a step of virtual time, and hours of
    // them took 10 s; the relay core's test leaves a kept room for six hours.)
    await relay.advance(by: 120, step: 1)
    let cat = try await relay.participant("cat")
    let found = await cat.groupState
    #expect(found.session?.item.id == "harbour/s1e1")
    #expect(found.session?.timeline.itemTime == session.timeline.itemTime)
    #expect(found.queue.map(\.item) == ["harbour/s1e2"])
    #expect(found.owner?.name == "cat")
    try await cat.send(.setKept(false)).get()
    await cat.stop()
    await relay.run(until: "let go, the room goes with its last member", within: 10) {
      await relay.state(ofRoom: "lobby") == nil
    }
    await relay.stop()
  }

  @Test(
    "a relay that keeps no rooms (a host's) refuses the request in words, and nobody's replica changes",
    arguments: TransportKind.allCases)
  func refusedWhereNoneAreKept(kind: TransportKind) async throws {
    let relay = try await RelayHarness(kind)
    let ann = try await relay.participant("ann")
    let result = await ann.send(.setKept(true))
    guard case .failure(.rejected(let rejection)) = result else {
      Issue.record("not refused: \(result)")
      await relay.stop()
      return
    }
    #expect(rejection.description.contains("keeps no rooms"), "\(rejection)")
    #expect(await ann.groupState.control.kept == false)
    #expect(await relay.state(ofRoom: "lobby")?.control.kept == false)
    await ann.stop()
    await relay.stop()
  }
}
