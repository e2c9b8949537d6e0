import Media
import ParticipantRuntime
import Participation
import PlaybackCoordination
import TestSupport
import Testing

/// A personal offset: one person's player runs ahead of the group on purpose (sound late
/// through Bluetooth), shown to the others, and not corrected away.
@Suite("A personal offset", .serialized, .timeLimit(.minutes(1)))
struct PersonalOffsetTests {
  func player(seed: UInt64) -> SimulatedPlayer {
    PlayerSyncTests().player(ppm: 0, latency: 0.05, seed: seed)
  }

  @Test(
    "bob's player runs 200 ms ahead while playing, after a seek and paused; the others see his offset; his pause in his own player lands where the group is",
    arguments: TransportKind.allCases)
  func runsAhead(kind: TransportKind) async throws {
    let relay = try await RelayHarness(kind)
    let annPlayer = player(seed: 1)
    let bobPlayer = player(seed: 2)
    let ann = try await relay.participant("ann", player: annPlayer)
    let bob = try await relay.participant("bob", player: bobPlayer) { $0.personalOffset = 0.2 }
    let bobID = try #require(await bob.participantID)
    await eventually("ann sees bob's offset") {
      await ann.groupState.participant(bobID)?.personalOffset == 0.2
    }
    try await ann.send(.start(series: testSeries, item: "harbour/s1e1")).get()
    await eventually("bob sees the session") { await bob.groupState.session != nil }
    try await bob.send(.join).get()
    let clock = relay.clock
    @Sendable func gap() -> Double {
      let now = clock.localNow()
      return bobPlayer.observe(at: now).position - annPlayer.observe(at: now).position
    }
    await relay.run(until: "both play", within: 5) {
      [annPlayer, bobPlayer].allSatisfy {
        let o = $0.observe(at: clock.localNow())
        return o.rate > 0 && !o.isBusy
      }
    }
    await relay.advance(by: 1)
    #expect(abs(gap() - 0.2) < 0.01, "bob 200 ms ahead while playing: \(gap())")
    // His report does not count the offset as his gap (it is not sync error).
    await relay.advance(by: 2.5)
    let reported = try #require(await ann.groupState.participant(bobID)?.playerOffset)
    #expect(abs(reported) < 0.01, "bob's reported gap \(reported)")

    try await ann.send(.seek(item: "harbour/s1e1", to: 100)).get()
    await relay.run(until: "both play past the seek", within: 5) {
      [annPlayer, bobPlayer].allSatisfy {
        let o = $0.observe(at: clock.localNow())
        return o.position >= 100 && o.rate > 0 && !o.isBusy
      }
    }
    await relay.advance(by: 0.5)
    #expect(abs(gap() - 0.2) < 0.01, "still 200 ms ahead after a seek: \(gap())")

    // Changed while playing: his player moves, the others are told.
    try await bob.setPersonalOffset(-0.15).get()
    await relay.advance(by: 1)
    #expect(abs(gap() + 0.15) < 0.01, "now 150 ms behind: \(gap())")
    #expect(await ann.groupState.participant(bobID)?.personalOffset == -0.15)

    // bob pauses: the group pauses where its line is, not where his player is.
    _ = await bob.pause()
    await relay.run(until: "both paused", within: 5) {
      [annPlayer, bobPlayer].allSatisfy { $0.observe(at: clock.localNow()).rate == 0 }
    }
    let groupPausedAt = try #require(await ann.groupState.session?.timeline.itemTime)
    let annAt = annPlayer.observe(at: clock.localNow()).position
    #expect(abs(annAt - groupPausedAt) < 0.001)
    #expect(abs(gap() + 0.15) < 0.001, "paused 150 ms behind: \(gap())")

    // Out of range: one clear refusal, nothing changed.
    await #expect(throws: ClientError.self) { try await bob.setPersonalOffset(11).get() }
    #expect(await bob.personalOffset == -0.15)
    await ann.stop()
    await bob.stop()
    await relay.stop()
  }
}
