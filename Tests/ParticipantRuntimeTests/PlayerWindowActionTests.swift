import HeadlessFront
import Media
import ParticipantRuntime
import Participation
import PlaybackCoordination
import Synchronization
import TestSupport
import Testing

/// A simulated player whose own window a test can press keys in (as a person does in mpv).
final class PressablePlayer: PlayerDriver {
  let player: SimulatedPlayer
  private let pressed = Mutex<[PlayerUserAction]>([])

  init(_ player: SimulatedPlayer) { self.player = player }

  func press(_ action: PlayerUserAction) { pressed.withLock { $0.append(action) } }

  func perform(_ command: PlayerCommand, at now: LocalInstant) { player.perform(command, at: now) }
  func observe(at now: LocalInstant) -> PlayerObservation { player.observe(at: now) }
  func takeUserActions() -> [PlayerUserAction] {
    pressed.withLock { actions in
      defer { actions = [] }
      return actions
    }
  }
}

/// Keys pressed in the player's own window take the same way in as a key in the front or a
/// headless line: the client hands them to its runner, whose one performer carries them out.
@Suite("Keys pressed in the player's window", .serialized, .timeLimit(.minutes(1)))
struct PlayerWindowActionTests {
  @Test("a press becomes the action a front key would be, less the personal offset")
  func conversion() {
    #expect(ParticipantAction(.pause(at: 12), personalOffset: 0.2) == .playback(.pause))
    #expect(ParticipantAction(.play, personalOffset: 0) == .playback(.play(rate: nil)))
    #expect(ParticipantAction(.seek(to: 100.2), personalOffset: 0.2) == .playback(.seek(to: 100)))
    #expect(ParticipantAction(.seek(to: 0.1), personalOffset: 0.2) == .playback(.seek(to: 0)))
    #expect(ParticipantAction(.rate(1.5), personalOffset: 0) == .playback(.setRate(1.5)))
  }

  @Test(
    "bob seeks and pauses in his own player: headless mode's performer carries it out, the group follows, by bob, where the group's line is; stepped away, his player is his own",
    arguments: TransportKind.allCases)
  func pressedInThePlayer(kind: TransportKind) async throws {
    let relay = try await RelayHarness(kind)
    let annPlayer = PersonalOffsetTests().player(seed: 1)
    let bobPlayer = PressablePlayer(PersonalOffsetTests().player(seed: 2))
    let ann = try await relay.participant("ann", player: annPlayer)
    let bob = try await relay.participant("bob", player: bobPlayer) { $0.personalOffset = 0.2 }
    let bobID = try #require(await bob.participantID)
    let byBob = ChangeLog()
    let watching = relay.task {
      for await event in ann.events {
        guard case .state(_, let changes) = event else { continue }
        for change in changes where change.originator == bobID { await byBob.add(change.kind) }
      }
    }
    try await ann.send(.start(series: testSeries, item: "harbour/s1e1")).get()
    await eventually("bob sees the session") { await bob.groupState.session != nil }
    try await bob.send(.join).get()
    let clock = relay.clock
    await relay.run(until: "both play", within: 5) {
      [annPlayer, bobPlayer.player].allSatisfy {
        let o = $0.observe(at: clock.localNow())
        return o.rate > 0 && !o.isBusy
      }
    }
    let output = OutputLines()
    let runner = HeadlessRunner(client: bob, catalog: [testSeries]) { line in output.add(line) }
    let (input, feed) = AsyncStream<String>.makeStream()
    let running = relay.task { await runner.run(input: input) }

    // His player runs 0.2 s ahead: 100.2 in it is 100 in the group's film.
    bobPlayer.press(.seek(to: 100.2))
    await relay.run(until: "the group seeked, by bob", within: 5) {
      await byBob.kinds.contains { if case .seeked(let to) = $0 { to == 100 } else { false } }
    }
    bobPlayer.press(.pause(at: 101))
    await relay.run(until: "the group paused, by bob", within: 5) {
      await byBob.kinds.contains { if case .paused = $0 { true } else { false } }
    }
    await relay.run(until: "ann's player paused", within: 5) {
      annPlayer.observe(at: clock.localNow()).rate == 0
    }

    // Stepped away, what he does in his player stays there.
    let before = await byBob.kinds.count
    feed.yield("suspend interrupted")
    await relay.run(until: "bob stepped away", within: 5) {
      await ann.groupState.participant(bobID)?.suspensions.isEmpty == false
    }
    bobPlayer.press(.play)
    await relay.advance(by: 1)
    #expect(await ann.groupState.session?.timeline.rate == 0, "the group stays paused")
    let after = await byBob.kinds.dropFirst(before)
    #expect(
      !after.contains { if case .played = $0 { true } else { false } },
      "nothing played by bob: \(after)")

    feed.finish()
    await running.value
    let lines = output.lines
    #expect(!lines.contains { $0.contains(#""event":"error""#) }, "\(lines)")
    watching.cancel()
    await ann.stop()
    await relay.stop()
  }
}

private actor ChangeLog {
  private(set) var kinds: [ChangeKind] = []
  func add(_ kind: ChangeKind) { kinds.append(kind) }
}
