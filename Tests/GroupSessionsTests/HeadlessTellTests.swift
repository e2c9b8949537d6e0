import GroupSessions
import Synchronization
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
    Task { for await (_, _, body) in stream { inbox.bodies.withLock { $0.append(body) } } }
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
