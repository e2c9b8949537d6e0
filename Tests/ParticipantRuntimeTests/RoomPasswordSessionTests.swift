import ParticipantRuntime
import Participation
import PlaybackCoordination
import RoomCrypto
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

/// Collects what a person was asked, across the calls of ``RoomEntrance/enter``.
private actor Questions {
  var asked: [RoomEntrance.Question] = []
  func add(_ question: RoomEntrance.Question) { asked.append(question) }
}

@Suite("Entering a room with a password as a person at a terminal does", .timeLimit(.minutes(1)))
struct RoomEntranceTests {
  @Test("asked for the password, then again after a wrong one; the right one enters")
  func asksUntilRight() async throws {
    let relay = try await RelayHarness(.inMemory)
    let ann = try await relay.participant("ann", room: "movie-night", password: "correct horse")
    let questions = Questions()
    var answers = ["popcorn", "correct horse"]
    let bob = try await RoomEntrance.enter(
      room: "movie-night", password: nil,
      client: { relay.client("bob", room: "movie-night", password: $0) },
      ask: { question in
        await questions.add(question)
        return .password(try! RoomPassword(answers.removeFirst()))
      })
    #expect(await questions.asked == [.required(room: "movie-night"), .wrong(room: "movie-night")])
    #expect(await relay.state(ofRoom: "movie-night")?.participants.map(\.name) == ["ann", "bob"])
    await bob.stop()
    await ann.stop()
    await relay.stop()
  }

  @Test("nobody to ask, or nothing typed: one clear failure")
  func cannotAsk() async throws {
    let relay = try await RelayHarness(.inMemory)
    let ann = try await relay.participant("ann", room: "movie-night", password: "correct horse")
    await #expect(throws: RoomEntrance.Failure.refused(.passwordRequired(room: "movie-night"))) {
      _ = try await RoomEntrance.enter(
        room: "movie-night", password: nil,
        client: { relay.client("bob", room: "movie-night", password: $0) },
        ask: { _ in .cannotAsk })
    }
    await #expect(throws: RoomEntrance.Failure.noPasswordTyped(room: "movie-night")) {
      _ = try await RoomEntrance.enter(
        room: "movie-night", password: nil,
        client: { relay.client("bob", room: "movie-night", password: $0) },
        ask: { _ in .nothing })
    }
    await ann.stop()
    await relay.stop()
  }
}
