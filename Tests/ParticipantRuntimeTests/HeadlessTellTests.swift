import HeadlessFront
import ParticipantRuntime
import Synchronization
import TestSupport
import Testing

@Suite("Headless tell")
struct HeadlessTellTests {
  /// Chat bodies one participant receives.
  final class Inbox: Sendable {
    let bodies = Mutex<[String]>([])
    var all: [String] { bodies.withLock { $0 } }
  }

  /// What `client` receives from now on.
  func inbox(_ client: ParticipantClient) async -> Inbox {
    let stream = await client.rawMessages(kind: "chat")
    let inbox = Inbox()
    Task(executorPreference: client.clock.taskExecutor) {
      for await (_, _, body) in stream { inbox.bodies.withLock { $0.append(body) } }
    }
    return inbox
  }

  @Test(
    "headless tell reads names as the front's /tell does: any case, @name, names with spaces, quoted names with commas"
  )
  func namesAsInTheFront() async throws {
    let relay = try await RelayHarness(.inMemory)
    let ann = try await relay.participant("ann")
    let mary = try await relay.participant("mary ann")
    let jo = try await relay.participant("smith, jo")
    let bob = try await relay.participant("bob")
    let (maryGot, joGot, bobGot) = (await inbox(mary), await inbox(jo), await inbox(bob))
    await eventually("everyone is in") { await ann.groupState.participants.count == 4 }
    let errors = await headlessErrors(
      [
        #"tell @Mary Ann, "smith, jo" meet at the lighthouse"#,
        "tell MARY ANN just you",
        "tell bob,nobody hi",
        "tell bob",
      ], client: ann)
    await eventually("the tells arrive") { maryGot.all.count == 2 }
    #expect(maryGot.all == ["meet at the lighthouse", "just you"])
    #expect(joGot.all == ["meet at the lighthouse"])
    #expect(bobGot.all.isEmpty, "a tell naming someone absent goes to nobody")
    #expect(errors.count == 2, "\(errors)")
    #expect(errors.contains { $0.contains("nobody called nobody is in the room") }, "\(errors)")
    #expect(errors.contains { $0.contains("NAME[,NAME]") }, "\(errors)")
    await relay.stop()
  }
}

@Suite("Headless mode ends with its participant")
struct HeadlessEndTests {
  @Test("removed by the owner, a headless participant stops reading its input and returns")
  func endsWhenRemoved() async throws {
    let relay = try await RelayHarness(.inMemory)
    let ann = try await relay.participant("ann")
    let bob = try await relay.participant("bob")
    let output = OutputLines()
    let runner = HeadlessRunner(client: bob, catalog: [testSeries]) { line in output.add(line) }
    // An input that never ends, as a terminal left open.
    let (input, feed) = AsyncStream<String>.makeStream()
    let finished = Finished()
    let running = relay.task {
      await runner.run(input: input)
      finished.flag.withLock { $0 = true }
    }
    await eventually("bob is in") { await ann.groupState.participants.count == 2 }
    let bobID = try #require(await bob.participantID)
    #expect(await ann.send(.remove(bobID)).isSuccess)
    await eventually("the runner returns", within: 5) { finished.flag.withLock { $0 } }
    #expect(
      finished.flag.withLock { $0 },
      "the runner still waits for input 5 s after its participant was removed")
    // Like the room closing or the relay given up on, with the line that says why.
    await eventually("the error line that says why") {
      output.lines.contains {
        $0.contains(#""event":"error""#) && $0.contains("ann removed you from the room")
      }
    }
    feed.finish()
    await running.value
    await ann.stop()
    await relay.stop()
  }
}

final class Finished: Sendable {
  let flag = Mutex(false)
}

extension Result {
  var isSuccess: Bool { if case .success = self { true } else { false } }
}
