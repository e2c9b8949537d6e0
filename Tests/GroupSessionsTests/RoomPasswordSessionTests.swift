import GroupSessions
import Participation
import PlaybackCoordination
import Testing
import WireProtocol

@Suite("A room with a password, on both transports", .serialized, .timeLimit(.minutes(1)))
struct RoomPasswordSessionTests {
  @Test(
    "the right password enters and chats sealed; a wrong one and none are refused in words",
    arguments: TransportKind.allCases)
  func passwords(kind: TransportKind) async throws {
    let relay = try await RelayHarness(kind)
    let ann = try await relay.participant("ann", room: "movie-night", password: "correct horse")
    let bob = try await relay.participant("bob", room: "movie-night", password: "correct horse")
    let chats = await ann.rawMessages(kind: "chat")
    await bob.sendMessage(kind: "chat", body: "popcorn ready")
    var iterator = chats.makeAsyncIterator()
    let first = await iterator.next()
    #expect(first?.1 == "bob" && first?.2 == "popcorn ready")
    #expect(await ann.snapshot().messagesSealed)

    await #expect(
      throws: ClientError.refused(
        code: .wrongPassword, message: "wrong password for room movie-night")
    ) {
      _ = try await relay.participant("eve", room: "movie-night", password: "popcorn")
    }
    await #expect(throws: ClientError.passwordRequired(room: "movie-night")) {
      _ = try await relay.participant("dan", room: "movie-night")
    }
    let cat = try await relay.participant("cat", room: "lobby")
    await #expect(
      throws: ClientError.refused(
        code: .roomNotProtected,
        message:
          "room lobby exists without a password, so a password would protect nothing in it; choose another room name, or join without one"
      )
    ) {
      _ = try await relay.participant("dan", room: "lobby", password: "late")
    }
    await cat.stop()
    #expect(await relay.state(ofRoom: "movie-night")?.participants.map(\.name) == ["ann", "bob"])
    await ann.stop()
    await bob.stop()
    await relay.stop()
  }
}
