import Media
import ParticipantRuntime
import Participation
import PlaybackCoordination
import TestSupport
import Testing

@Suite("Ready checks across the wire", .serialized, .timeLimit(.minutes(1)))
struct ReadyCheckSessionTests {
  @Test(
    "five players hold through the countdown and start at one instant when all said ready",
    arguments: TransportKind.allCases)
  func countdownStart(kind: TransportKind) async throws {
    let relay = try await RelayHarness(kind)
    let names = ["ann", "bob", "cat", "dan", "eve"]
    let players = names.indices.map { i in
      SimulatedPlayer(
        configuration: SimulatedPlayerConfiguration(
          loadLatency: 0.1...0.1, playLatency: Double(i) * 0.05...Double(i) * 0.05,
          seekLatency: 0.05...0.05, seed: UInt64(i + 1)),
        itemResolver: PlayerSyncTests.resolver)
    }
    var joining: [ParticipantClient] = []
    for (name, player) in zip(names, players) {
      joining.append(try await relay.participant(name, player: player))
    }
    let clients = joining
    try await relay.startTogether(clients)
    let clock = relay.clock
    @Sendable func groupNow() -> GroupInstant {
      GroupInstant(nanoseconds: clock.localNow().nanoseconds + RelayHarness.relayClockOffset)
    }
    await relay.run(until: "everyone plays", within: 5) {
      players.allSatisfy { $0.observe(at: clock.localNow()).rate > 0 }
    }
    await relay.advance(by: 1)

    // ann asks: the group pauses, and everyone's replica holds the question.
    try await clients[0].send(.askReady).get()
    for c in clients {
      await relay.run(until: "the question reached everyone", within: 2) {
        await c.groupState.session?.readyCheck != nil
      }
    }
    #expect(
      await clients[4].groupState.notReadyToWatch.map(\.name) == ["bob", "cat", "dan", "eve"])
    for c in clients.dropFirst() { try await c.send(.setReadyToWatch(true)).get() }
    // The last answer reached the relay; its change reaches ann's replica a moment later.
    await relay.run(until: "the countdown reached ann", within: 2) {
      await clients[0].groupState.session?.countdown != nil
    }
    let session = try #require(await clients[0].groupState.session)
    let startsAt = try #require(session.countdown, "the last answer started the countdown")
    #expect(session.readyCheck == nil)
    let held = session.timeline.itemTime

    // Nobody runs before the countdown ends; everyone runs together after it.
    await relay.run(until: "half a second before the start", within: 5) {
      startsAt.seconds(since: groupNow()) <= 0.5
    }
    for p in players {
      let o = p.observe(at: clock.localNow())
      #expect(o.rate == 0 && abs(o.position - held) < 0.001)
    }
    await relay.run(until: "a second after the start", within: 5) {
      groupNow().seconds(since: startsAt) >= 1
    }
    let positions = players.map { $0.observe(at: clock.localNow()).position }
    #expect(positions.max()! - positions.min()! < 0.001, "spread \(positions)")
    #expect(positions.allSatisfy { abs($0 - (held + 1)) < 0.05 })
    for c in clients { await c.stop() }
    await relay.stop()
  }
}
