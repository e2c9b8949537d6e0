import PlaybackCoordination
import Testing
import WireProtocol

@testable import Participation

@Suite("Relay link: greeting, back-off, giving up and silence")
struct RelayLinkTests {
  let at = Fixture.at
  let configuration = ParticipantConfiguration(
    name: "ann", answerTimeout: 5, reconnectInitialDelay: 0.1, reconnectMaximumDelay: 0.4,
    reconnectGiveUpAfter: 3, relaySilenceTimeout: 10)

  func welcome(resumed: Bool = false, epoch: String = "e1") -> Welcome {
    Welcome(
      participant: Fixture.ann, room: "lobby",
      resume: ResumeToken(participant: Fixture.ann), configuration: .init(),
      state: GroupState(), resumed: resumed, relayEpoch: epoch)
  }

  /// A link that was welcomed once, then lost its connection at `at(0)`.
  func welcomedThenLost() -> RelayLink {
    var link = RelayLink(configuration: configuration)
    _ = link.start(home: nil)
    _ = link.opened(at: at(-1))
    _ = link.welcomed(welcome())
    #expect(link.lost(at: at(0)) == .retry)
    return link
  }

  @Test("a failed first entry stops with its reason; nothing keeps trying")
  func firstFailureStops() {
    var link = RelayLink(configuration: configuration)
    let started = link.start(home: "127.0.0.1:7700")
    let startedAgain = link.start(home: "127.0.0.1:7700")
    #expect(started && !startedAgain, "starting twice starts once")
    #expect(link.failed(.noWelcome(seconds: 5), at: at(0)) == .startFailed(.noWelcome(seconds: 5)))
  }

  @Test("after a welcome, reconnection backs off doubling to its maximum, then gives up")
  func backOff() {
    var link = welcomedThenLost()
    var waits: [Double] = []
    var now = at(0)
    for _ in 0..<5 {
      guard case .waitingToReconnect(let until) = link.state else { break }
      waits.append((until.seconds(since: now) * 1000).rounded() / 1000)
      now = until
      #expect(link.tick(at: now) == .reconnect(nil))
      if link.failed(.noWelcome(seconds: 5), at: now) != .retry { break }
    }
    #expect(waits == [0.1, 0.2, 0.4, 0.4, 0.4])
    #expect(link.failed(.noWelcome(seconds: 5), at: at(3.5)) == .gaveUp)
  }

  @Test("refusals that cannot change stop the participant; a full room is tried again")
  func refusals() {
    var link = welcomedThenLost()
    #expect(
      link.failed(.refused(code: .roomFull, message: "full"), at: at(0.1)) == .retry)
    var removed = welcomedThenLost()
    let failure = removed.failed(
      .refused(code: .removedFromRoom, message: "ann removed you"), at: at(0.1))
    #expect(failure == .stop("the relay refused: ann removed you"))
  }

  @Test("the greeting times out, except while the room's keys are being derived")
  func greetingTimeout() {
    var link = RelayLink(configuration: configuration)
    _ = link.start(home: nil)
    #expect(link.opened(at: at(0)) == .some(nil), "a new member greets without a token")
    let challenge = RoomChallenge(derivation: KeyDerivation(salt: [1, 2, 3]), nonce: [4])
    link.greeting(deriving: challenge, at: at(1))
    #expect(link.nextDeadline == nil)
    #expect(link.tick(at: at(60)) == nil, "scrypt takes what it takes")
    link.greeting(deriving: nil, at: at(60))
    #expect(link.nextDeadline == at(65))
    #expect(link.tick(at: at(65)) == .greetingTimedOut)
  }

  @Test("a relay silent past the timeout is left; a process that was stopped is not fooled")
  func silence() {
    var link = RelayLink(configuration: configuration)
    _ = link.start(home: nil)
    _ = link.opened(at: at(0))
    _ = link.welcomed(welcome())
    link.heard(at: at(0))
    #expect(link.tick(at: at(1)) == nil)
    // Thirty seconds without a tick: this machine slept; the relay's silence says nothing.
    #expect(link.tick(at: at(31)) == nil)
    for second in 32...40 { #expect(link.tick(at: at(Double(second))) == nil) }
    #expect(link.tick(at: at(40.5)) == nil)
    #expect(link.tick(at: at(41)) == .relaySilent)
  }

  @Test("a tick at the silence deadline itself acts on it: a deadline never stays due")
  func silenceAtItsDeadline() throws {
    var link = RelayLink(configuration: configuration)
    _ = link.start(home: nil)
    _ = link.opened(at: at(0))
    _ = link.welcomed(welcome())
    link.heard(at: at(0))
    let deadline = try #require(link.nextDeadline)
    // A runtime sleeps until the deadline and ticks then; nothing done at it would leave
    // the deadline where it was, and the runtime ticking at it for ever (seen on virtual
    // time, where the clock stops exactly there).
    #expect(link.tick(at: deadline) == .relaySilent)
  }

  @Test("a resumed welcome keeps the count of messages received for the next resume")
  func resumeCarriesMessageCount() {
    var link = RelayLink(configuration: configuration)
    _ = link.start(home: nil)
    _ = link.opened(at: at(0))
    let (first, restarted) = link.welcomed(welcome())
    #expect(first && !restarted)
    link.messageReceived()
    link.messageReceived()
    _ = link.lost(at: at(1))
    _ = link.tick(at: at(1.2))
    let token = link.opened(at: at(1.2))
    #expect(token??.messagesReceived == 2)
    let (_, restartedWithoutUs) = link.welcomed(welcome(resumed: false, epoch: "e2"))
    #expect(restartedWithoutUs, "another relay process that did not keep this member")
  }
}
