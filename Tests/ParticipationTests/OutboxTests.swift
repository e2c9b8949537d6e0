import PlaybackCoordination
import Testing
import WireProtocol

@testable import Participation

@Suite("Outbox: ids, answers, timeouts and resending")
struct OutboxTests {
  let at = Fixture.at

  @Test("requests get ids in the order asked for, and each is settled once")
  func idsInOrder() {
    var outbox = Outbox()
    let first = outbox.add(.command(.join), origin: .user, ticket: nil, at: at(0), answerTimeout: 5)
    let second = outbox.add(
      .message(kind: "chat", body: "hi", to: .all), origin: .user, ticket: 7, at: at(0),
      answerTimeout: 5)
    #expect((first.id, second.id) == (1, 2))
    #expect(outbox.settle(2)?.ticket == 7)
    #expect(outbox.settle(2) == nil, "an answer that comes twice settles nothing the second time")
    #expect(outbox.count == 1)
  }

  @Test("a caller stops waiting at the answer timeout; the request stays queued")
  func overdueTickets() {
    var outbox = Outbox()
    _ = outbox.add(.command(.join), origin: .user, ticket: 3, at: at(0), answerTimeout: 5)
    _ = outbox.add(.command(.leave), origin: .user, ticket: nil, at: at(1), answerTimeout: 5)
    #expect(outbox.nextAnswerDeadline == at(5))
    #expect(outbox.takeOverdueTickets(at: at(4.9)).isEmpty)
    #expect(outbox.takeOverdueTickets(at: at(5)) == [3])
    #expect(outbox.takeOverdueTickets(at: at(6)).isEmpty, "each caller is told once")
    #expect(outbox.count == 2)
    #expect(outbox.nextAnswerDeadline == nil)
  }

  @Test("after a long disconnection old requests expire, and the person's commands after them too")
  func resendExpiresStaleSequence() {
    var outbox = Outbox()
    _ = outbox.add(
      .command(.seek(item: nil, to: 10)), origin: .user, ticket: nil, at: at(0), answerTimeout: 5)
    _ = outbox.add(
      .message(kind: "chat", body: "back soon", to: .all), origin: .user, ticket: nil,
      at: at(8), answerTimeout: 5)
    _ = outbox.add(
      .command(.pause(item: nil, at: 10)), origin: .user, ticket: nil, at: at(9), answerTimeout: 5)
    _ = outbox.add(
      .command(.setReadiness(.ready)), origin: .ready, ticket: nil, at: at(9), answerTimeout: 5)
    let plan = outbox.resend(at: at(12), window: 10).map { resend -> String in
      switch resend {
      case .send(let request): "send \(request.id)"
      case .expire(let id): "expire \(id)"
      }
    }
    // The seek is 12 s old; the pause was at the spot the seek went to, so it goes with
    // it. The chat line and the readiness are not part of that sequence.
    #expect(plan == ["expire 1", "send 2", "expire 3", "send 4"])
    #expect(outbox.requests.map(\.expiring) == [true, false, true, false])
  }

  @Test("stopping empties the outbox and hands back what was in it")
  func removeAll() {
    var outbox = Outbox()
    _ = outbox.add(.command(.join), origin: .user, ticket: 1, at: at(0), answerTimeout: 5)
    #expect(outbox.removeAll().map(\.id) == [1])
    #expect(outbox.count == 0)
    let next = outbox.add(.command(.join), origin: .user, ticket: nil, at: at(1), answerTimeout: 5)
    #expect(next.id == 2, "ids are never reused: the relay's window remembers them")
  }
}
