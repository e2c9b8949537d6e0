import Participation
import PlaybackCoordination
import Testing
import WireProtocol

/// A participant following a room across relays that share one database, on the pure core.
@Suite("Participant core: redirects and other relays")
struct RelayRouteTests {
  let home = RelayEndpoint(address: "10.0.0.1:7700", fingerprint: "SHA256:one")
  let second = RelayEndpoint(address: "10.0.0.2:7700", fingerprint: "SHA256:two")
  let third = RelayEndpoint(address: "10.0.0.3:7700", fingerprint: "SHA256:three")

  func at(_ seconds: Double) -> LocalInstant { LocalInstant(seconds: 100 + seconds) }

  func welcome(relays: [RelayEndpoint], resumed: Bool = false) -> ServerMessage {
    let state = GroupState(sequence: 1, participants: [Participant(id: "p1", name: "ann")])
    return .welcome(
      Welcome(
        participant: "p1", room: "lobby",
        resume: ResumeToken(participant: "p1"), configuration: .init(),
        state: state, resumed: resumed, relayEpoch: "e1", relays: relays))
  }

  /// Where the effects say to connect: nil when they do not connect; `.some(nil)` for the
  /// relay the participant started with.
  func connection(_ effects: [ParticipantEffect]) -> RelayEndpoint?? {
    for effect in effects { if case .connect(let relay) = effect { return .some(relay) } }
    return nil
  }

  func sentHello(_ effects: [ParticipantEffect]) -> Bool {
    effects.contains { if case .send(.hello) = $0 { true } else { false } }
  }

  @Test(
    "a redirect is followed at once with the same hello; the welcome's relays are the fallbacks, in turn"
  )
  func redirectAndFallback() throws {
    var core = ParticipantCore(
      configuration: ParticipantConfiguration(name: "ann"), hasPlayer: false)
    #expect(connection(core.start(at: at(0))) == .some(nil))
    #expect(sentHello(core.connected(at: at(0.01))))
    let redirected = core.received(
      .redirect(room: "lobby", relay: second), at: at(0.02), seen: nil)
    #expect(connection(redirected) == .some(second), "straight to the room's relay")
    #expect(core.currentRelay == second)
    #expect(sentHello(core.connected(at: at(0.03))))
    _ = core.received(welcome(relays: [home, third]), at: at(0.04), seen: nil)
    #expect(core.status == .connected)

    // The room's relay dies: first it is tried again (it may be restarting), then the
    // others, one after another, without long waits.
    _ = core.connectionLost(at: at(1))
    var tried: [RelayEndpoint?] = []
    var now = 1.0
    for _ in 0..<4 {
      var next: RelayEndpoint?? = nil
      while next == nil, now < 20 {
        now += 0.05
        next = connection(core.tick(at: at(now), seen: nil))
      }
      let relay = try #require(next)
      tried.append(relay)
      _ = core.connectFailed(
        .transport(.unreachable(endpoint: relay?.address ?? "home", reason: "refused")), at: at(now)
      )
    }
    #expect(tried == [second, home, third, nil])
    #expect(now < 1 + 4 * 0.6, "the next relay is tried within half a second")
  }

  @Test("a redirect back to a relay that just failed is not followed: another relay is tried")
  func redirectToDeadRelay() throws {
    var core = ParticipantCore(
      configuration: ParticipantConfiguration(name: "ann"), hasPlayer: false)
    _ = core.start(at: at(0), relay: home.address)
    _ = core.connected(at: at(0.01))
    _ = core.received(welcome(relays: [second]), at: at(0.02), seen: nil)
    _ = core.connectionLost(at: at(1))
    var now = 1.0
    var next: RelayEndpoint?? = nil
    while next == nil {
      now += 0.05
      next = connection(core.tick(at: at(now), seen: nil))
    }
    #expect(next == .some(nil), "the relay it was on, first")
    _ = core.connectFailed(
      .transport(.unreachable(endpoint: "home", reason: "refused")), at: at(now))
    next = nil
    while next == nil {
      now += 0.05
      next = connection(core.tick(at: at(now), seen: nil))
    }
    #expect(next == .some(second))
    _ = core.connected(at: at(now))
    // The second relay says the room is still on the first (its lease has not run out).
    let answer = core.received(.redirect(room: "lobby", relay: home), at: at(now + 0.01), seen: nil)
    #expect(connection(answer) == nil, "not straight back to a relay that just refused")
    #expect(core.status == .reconnecting)
  }

  @Test("redirects that go round in circles end the first entry with one clear error")
  func redirectLoop() throws {
    var core = ParticipantCore(
      configuration: ParticipantConfiguration(name: "ann"), hasPlayer: false)
    _ = core.start(at: at(0))
    var now = 0.0
    var last: [ParticipantEffect] = []
    for index in 0..<20 {
      now += 0.01
      _ = core.connected(at: at(now))
      last = core.received(
        .redirect(room: "lobby", relay: index % 2 == 0 ? second : third), at: at(now), seen: nil)
      if connection(last) == nil { break }
    }
    let failure = last.compactMap { effect -> ClientError? in
      if case .started(.failure(let error)) = effect { error } else { nil }
    }.first
    #expect(failure?.description.contains("does not answer") == true)
  }
}
