import Foundation
import HeadlessFront
import Media
import ParticipantRuntime
import PlaybackCoordination
import TestSupport
import Testing

@Suite("Headless samples")
struct HeadlessSampleTests {
  @Test("a sample's position is given to the microsecond; a person's numbers to the millisecond")
  func precision() {
    #expect(OrderedJSON.preciseDouble(61.123456789).serialized == "61.123457")
    #expect(OrderedJSON.preciseDouble(2).serialized == "2")
    #expect(OrderedJSON.preciseDouble(.nan).serialized == "null")
    #expect(OrderedJSON.double(61.123456789).serialized == "61.123")
  }

  @Test("mono_ns is the instant the player was read, and the position the one it showed then")
  func instantOfTheReading() async throws {
    let relay = try await RelayHarness(.inMemory)
    let player = SimulatedPlayer(
      configuration: SimulatedPlayerConfiguration(
        loadLatency: 0...0, playLatency: 0...0, seekLatency: 0...0, seed: 1),
      itemResolver: PlayerSyncTests.resolver)
    let ann = try await relay.participant("ann", player: player)
    try await ann.send(.start(series: testSeries, item: "harbour/s1e1")).get()
    let clock = relay.clock
    await relay.run(until: "ann plays", within: 2) { player.observe(at: clock.localNow()).rate > 0 }
    await relay.advance(by: 1.234567)
    let before = clock.nanoseconds()
    let output = OutputLines()
    let runner = HeadlessRunner(client: ann, catalog: [testSeries], sampleMilliseconds: 1) { line in
      output.add(line)
    }
    let (input, feed) = AsyncStream<String>.makeStream()
    let running = relay.task { await runner.run(input: input) }
    // The sampler waits on the session's clock, as every wait does.
    await relay.run(until: "a sample", within: 1) {
      output.lines.contains { $0.contains(#""sample""#) }
    }
    let line = try #require(output.lines.first { $0.contains(#""sample""#) })
    let fields = try #require(
      try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    let instant = try #require((fields["mono_ns"] as? Int).map(Int64.init))
    #expect(instant > before && instant <= clock.nanoseconds())
    // What the player showed at that instant (asked before the runner leaves the room).
    let shown = player.observe(at: LocalInstant(nanoseconds: instant)).position
    feed.finish()
    await running.value
    let position = try #require(fields["position"] as? Double)
    #expect(abs(position - shown) < 0.000_001, "\(line), the player showed \(shown)")
    #expect(
      abs(position - (position * 1000).rounded() / 1000) > 0, "not cut to the millisecond: \(line)")
    await relay.stop()
  }
}
