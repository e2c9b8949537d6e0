import Narration
import ParticipantRuntime
import Participation
import PlaybackCoordination
import Synchronization
import TestSupport
import Testing

/// A participant whose library lacks the group's episode, on virtual time: the group waits
/// for it as for any first load while the room is asked who lends it; when nobody does, it
/// steps away saying why, and the group goes on without waiting out the load's timeout.
@Suite("A borrower the group waits for", .serialized, .timeLimit(.minutes(1)))
struct BorrowingWaitTests {
  @Test(
    "carol lacks the episode: loading while the room is asked, the group waiting for her; nobody lends it: she steps away saying why and the group plays",
    arguments: TransportKind.allCases)
  func nobodyLends(kind: TransportKind) async throws {
    let relay = try await RelayHarness(kind)
    let annPlayer = PlayerSyncTests().player(ppm: 0, latency: 0.05, seed: 1)
    let ann = try await relay.participant("ann", player: annPlayer)
    // carol has no files at all: every episode is asked of the room.
    let lending = ItemLending(paths: [:], lender: nil)
    let carolPlayer = BorrowingPlayer(
      PlayerSyncTests().player(ppm: 0, latency: 0.05, seed: 2), lending: lending)
    let carol = try await relay.participant("carol", player: carolPlayer)
    _ = await lending.attach(carol)
    let carolID = try #require(await carol.participantID)
    let notices = Mutex<[String]>([])
    let listening = relay.task {
      for await event in carol.events {
        if case .notice(let notice) = event { notices.withLock { $0.append(notice.description) } }
      }
    }
    try await ann.send(.start(series: testSeries, item: "harbour/s1e1")).get()
    await eventually("carol sees the session") { await carol.groupState.session != nil }
    try await carol.send(.join).get()

    // While the room is asked, carol is loading, not away: the group waits for her.
    await relay.run(until: "the group waits for carol's load", within: 3) {
      await ann.groupState.session?.waits.contains {
        $0.participant == carolID && $0.cause == .loading
      } == true
    }
    #expect(await ann.groupState.participant(carolID)?.isSuspended == false)
    #expect(await ann.groupState.session?.status != .playing)
    #expect(
      lending.status("harbour/s1e1").map { if case .asking = $0 { true } else { false } } == true)

    // Nobody answers within 5 s: she steps away with the reason, and the group plays on
    // long before the load's own timeout (60 s).
    let asked = relay.clock.nanoseconds()
    await relay.run(until: "carol steps away", within: 7) {
      await ann.groupState.participant(carolID)?.suspensions.contains(.playerUnavailable) == true
    }
    await relay.run(until: "the group plays without her", within: 2) {
      await ann.groupState.session?.status == .playing
    }
    #expect(Double(relay.clock.nanoseconds() - asked) / 1e9 < 8)
    await relay.run(until: "carol is told why", within: 1) {
      notices.withLock {
        $0.contains {
          $0.contains("you don't have")
            && $0.contains(
              "stepping away until the group plays something you have (nobody in the room lends it)"
            )
        }
      }
    }
    #expect(await ann.groupState.participant(carolID)?.lender == nil)
    await ann.stop()
    await carol.stop()
    await listening.value
    await relay.stop()
  }
}
