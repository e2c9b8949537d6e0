import Media
import ParticipantRuntime
import Participation
import PlaybackCoordination
import TestSupport
import Testing

@Suite("Players follow the group", .serialized, .timeLimit(.minutes(1)))
struct PlayerSyncTests {
  static let resolver: @Sendable (ItemID) -> SimulatedItem? = { id in
    testSeries.item(id).map { SimulatedItem(id: $0.id, title: $0.title, duration: $0.duration) }
  }

  func player(ppm: Double, latency: Double, seed: UInt64) -> SimulatedPlayer {
    SimulatedPlayer(
      configuration: SimulatedPlayerConfiguration(
        driftPPM: ppm, loadLatency: 0.1...0.1, playLatency: latency...latency,
        seekLatency: latency...latency, seed: seed),
      itemResolver: Self.resolver)
  }

  @Test(
    "drifting players with start-up latency show the same position after play, seek and pause",
    arguments: TransportKind.allCases)
  func playersAgree(kind: TransportKind) async throws {
    let relay = try await RelayHarness(kind)
    let players = [
      player(ppm: 500, latency: 0.05, seed: 1), player(ppm: -500, latency: 0.2, seed: 2),
      player(ppm: 0, latency: 0, seed: 3),
    ]
    var joining: [ParticipantClient] = []
    for (i, p) in players.enumerated() {
      joining.append(try await relay.participant(["ann", "bob", "cat"][i], player: p))
    }
    let clients = joining
    try await relay.startTogether(clients)
    let clock = relay.clock
    @Sendable func spread() -> Double {
      let now = clock.localNow()
      let positions = players.map { $0.observe(at: now).position }
      return positions.max()! - positions.min()!
    }
    await relay.run(until: "everyone plays", within: 5) {
      players.allSatisfy {
        $0.observe(at: clock.localNow()).rate > 0 && !$0.observe(at: clock.localNow()).isBusy
      }
    }
    await relay.advance(by: 0.7)
    #expect(spread() < 0.03, "players agree while playing")

    try await clients[1].send(.seek(item: "harbour/s1e1", to: 100)).get()
    await relay.run(until: "all players are past the seek and playing", within: 5) {
      players.allSatisfy {
        let o = $0.observe(at: clock.localNow())
        return o.position >= 100 && o.rate > 0 && !o.isBusy
      }
    }
    await relay.advance(by: 0.5)
    #expect(spread() < 0.03, "players agree after a seek")

    _ = await clients[2].pause()
    await relay.run(until: "all players paused at the same frame", within: 5) {
      players.allSatisfy { $0.observe(at: clock.localNow()).rate == 0 } && spread() < 0.001
    }
    for c in clients { await c.stop() }
    await relay.stop()
  }
}

@Suite("Pause right after a seek", .serialized, .timeLimit(.minutes(1)))
struct PauseAfterSeekTests {
  @Test(
    "pausing while the player still prerolls a seek pauses at the seek's target, not before it",
    arguments: TransportKind.allCases)
  func pauseKeepsTheSeek(kind: TransportKind) async throws {
    let relay = try await RelayHarness(kind)
    let player = SimulatedPlayer(
      configuration: SimulatedPlayerConfiguration(
        loadLatency: 0.05...0.05, playLatency: 0.3...0.3, seekLatency: 0.3...0.3, seed: 9),
      itemResolver: PlayerSyncTests.resolver)
    let ann = try await relay.participant("ann", player: player)
    try await ann.send(.start(series: testSeries, item: "harbour/s1e1")).get()
    let clock = relay.clock
    await relay.run(until: "ann plays", within: 2) { player.observe(at: clock.localNow()).rate > 0 }
    try await ann.seek(to: 120).get()
    #expect(player.observe(at: clock.localNow()).position < 100, "the player has not got there yet")
    try await ann.pause().get()
    let session = try #require(await ann.groupState.session)
    #expect(session.status == .paused)
    #expect(session.timeline.itemTime >= 120 && session.timeline.itemTime < 121)
    await ann.stop()
    await relay.stop()
  }
}
