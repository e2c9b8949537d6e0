import Participation
import PlaybackCoordination
import Testing
import WireProtocol

/// A participant whose room moves from machine to machine (rooms that outlive their host),
/// on the pure core: where it reconnects, and what it offers.
@Suite("Participant core: a room that moves to a successor")
struct RoomMoveTests {
  let routes = RelayRouteTests()
  var bob: Successor {
    Successor(participant: "p2", name: "bob", relay: routes.second)
  }
  var carl: Successor {
    Successor(participant: "p3", name: "carl", relay: routes.third)
  }

  func at(_ seconds: Double) -> LocalInstant { routes.at(seconds) }

  /// Ticks until the core connects somewhere; returns where, and when.
  func nextConnection(_ core: inout ParticipantCore, from start: Double) throws -> (
    RelayEndpoint?, Double
  ) {
    var now = start
    while now < start + 30 {
      now += 0.05
      if let relay = routes.connection(core.tick(at: at(now), seen: nil)) { return (relay, now) }
    }
    Issue.record("no connection within 30 s")
    throw CancellationError()
  }

  func carryOffers(_ effects: [ParticipantEffect]) -> [CarryOffer] {
    effects.compactMap { if case .send(.carry(let offer)) = $0 { offer } else { nil } }
  }

  /// Entered through the relay it started with, which names bob and carl successors.
  func entered(carry: CarryOffer? = nil) -> ParticipantCore {
    var configuration = ParticipantConfiguration(name: "ann")
    configuration.carry = carry
    var core = ParticipantCore(configuration: configuration, hasPlayer: false)
    _ = core.start(at: at(0))
    _ = core.connected(at: at(0.01))
    _ = core.received(routes.welcome(relays: []), at: at(0.02), seen: nil)
    _ = core.received(.succession([bob, carl]), at: at(0.03), seen: nil)
    return core
  }

  @Test("moved to bob's: the relay it started with is no way back any more")
  func homeRetired() throws {
    var core = entered()
    let moved = core.received(.redirect(room: "lobby", relay: routes.second), at: at(1), seen: nil)
    #expect(routes.connection(moved) == .some(routes.second))
    _ = core.connected(at: at(1.01))
    _ = core.received(routes.welcome(relays: [], resumed: true), at: at(1.02), seen: nil)
    _ = core.connectionLost(at: at(2))
    var tried: [RelayEndpoint?] = []
    var now = 2.0
    for _ in 0..<4 {
      let (relay, when) = try nextConnection(&core, from: now)
      now = when
      tried.append(relay)
      _ = core.connectFailed(
        .transport(.unreachable(endpoint: relay?.address ?? "home", reason: "refused")), at: at(now)
      )
    }
    #expect(
      !tried.contains(nil), "the old relay (its port perhaps someone else's now) is not tried")
    #expect(Set(tried.map { $0?.address }) == [routes.second.address, routes.third.address])
  }

  @Test("elected at a successor's relay: the relay it started with is not tried again either")
  func electedElsewhere() throws {
    var core = entered()
    _ = core.connectionLost(at: at(1))
    var (relay, now) = try nextConnection(&core, from: 1)
    #expect(relay == nil, "first where it was")
    _ = core.connectFailed(
      .transport(.unreachable(endpoint: "home", reason: "refused")), at: at(now))
    (relay, now) = try nextConnection(&core, from: now)
    #expect(relay == routes.second)
    _ = core.connected(at: at(now))
    _ = core.received(routes.welcome(relays: [], resumed: true), at: at(now + 0.01), seen: nil)
    _ = core.connectionLost(at: at(now + 1))
    now += 1
    var tried: [RelayEndpoint?] = []
    for _ in 0..<3 {
      (relay, now) = try nextConnection(&core, from: now)
      tried.append(relay)
      _ = core.connectFailed(
        .transport(.unreachable(endpoint: "x", reason: "refused")), at: at(now))
    }
    #expect(tried == [routes.second, routes.third, routes.second])
  }

  @Test("a relay gone silent: the next one is tried at once, not the silent one again")
  func silentRelay() throws {
    var core = entered()
    var now = 0.1
    var silent = false
    while !silent, now < 20 {
      now += 0.1
      silent = core.tick(at: at(now), seen: nil).contains {
        if case .event(.notice(.relaySilent)) = $0 { true } else { false }
      }
    }
    #expect(silent)
    let (relay, when) = try nextConnection(&core, from: now)
    #expect(relay == routes.second, "a sleeping machine may accept connections nobody answers")
    #expect(when - now < 0.6)
  }

  @Test("its own relay sends it to bob's (replaced while asleep): it no longer says it runs one")
  func replacedHost() throws {
    var core = entered(carry: CarryOffer(port: 7700, fingerprint: nil, runsRelay: true))
    // bob and carl went meanwhile; the relay named nobody.
    _ = core.received(.succession([]), at: at(5), seen: nil)
    let moved = core.received(.redirect(room: "lobby", relay: routes.second), at: at(6), seen: nil)
    #expect(
      moved.contains {
        if case .event(.notice(.roomMoved(toMachineOf: "bob"))) = $0 { true } else { false }
      })
    _ = core.connected(at: at(6.01))
    let welcomed = core.received(
      routes.welcome(relays: [], resumed: true), at: at(6.02), seen: nil)
    #expect(carryOffers(welcomed).isEmpty)
  }

  @Test("handed the room itself: it says it runs the relay from then on")
  func handedOver() throws {
    var core = entered(carry: CarryOffer(port: 7701, fingerprint: nil))
    let me = Successor(participant: "p1", name: "ann", relay: routes.second)
    _ = core.received(.succession([me, carl]), at: at(1), seen: nil)
    _ = core.received(.handover(room: "lobby"), at: at(2), seen: nil)
    let moved = core.received(
      .redirect(room: "lobby", relay: routes.second), at: at(2.01), seen: nil)
    #expect(
      moved.contains {
        if case .event(.notice(.roomMoved(toMachineOf: nil))) = $0 { true } else { false }
      })
    _ = core.connected(at: at(2.02))
    let welcomed = core.received(
      routes.welcome(relays: [], resumed: true), at: at(2.03), seen: nil)
    #expect(carryOffers(welcomed).map(\.runsRelay) == [true])
  }

  @Test("its own relay's key goes to that relay only: another one hears only the offer")
  func keyStaysHome() throws {
    let key = "0123456789abcdef0123456789abcdef"
    var configuration = ParticipantConfiguration(name: "ann")
    configuration.carry = CarryOffer(port: 7701, fingerprint: nil, relayKey: key)
    configuration.ownRelayEpoch = "ann's"
    var core = ParticipantCore(configuration: configuration, hasPlayer: false)
    _ = core.start(at: at(0))
    _ = core.connected(at: at(0.01))
    // routes.welcome comes from the room's relay (epoch e1), not ann's own.
    let first = core.received(routes.welcome(relays: []), at: at(0.02), seen: nil)
    #expect(carryOffers(first).map(\.relayKey) == [nil])
    #expect(carryOffers(first).map(\.port) == [7701])
    let me = Successor(participant: "p1", name: "ann", relay: routes.second)
    _ = core.received(.succession([me, carl]), at: at(1), seen: nil)
    _ = core.received(.handover(room: "lobby"), at: at(2), seen: nil)
    _ = core.received(.redirect(room: "lobby", relay: routes.second), at: at(2.01), seen: nil)
    _ = core.connected(at: at(2.02))
    var own = Welcome(
      participant: "p1", room: "lobby", resume: ResumeToken(participant: "p1"),
      configuration: .init(), state: GroupState(sequence: 1), resumed: true, relayEpoch: "ann's")
    own.relays = []
    let there = core.received(.welcome(own), at: at(2.03), seen: nil)
    #expect(carryOffers(there).map(\.relayKey) == [key])
    #expect(carryOffers(there).map(\.runsRelay) == [true])
  }

  @Test(
    "runsRelay is said to its own relay only: welcomed by another, a host's participant is quiet")
  func runsRelayToItsOwnOnly() throws {
    var configuration = ParticipantConfiguration(name: "ann")
    configuration.carry = CarryOffer(port: 7700, fingerprint: nil, runsRelay: true)
    configuration.ownRelayEpoch = "e1"
    var core = ParticipantCore(configuration: configuration, hasPlayer: false)
    _ = core.start(at: at(0))
    _ = core.connected(at: at(0.01))
    // routes.welcome comes from the relay of epoch e1: ann's own.
    let own = core.received(routes.welcome(relays: []), at: at(0.02), seen: nil)
    #expect(carryOffers(own).map(\.runsRelay) == [true])
    _ = core.received(.succession([bob]), at: at(0.03), seen: nil)
    // Its relay is gone; it ends up at bob's (another epoch) with its token.
    _ = core.connectionLost(at: at(1))
    var elsewhere = Welcome(
      participant: "p1", room: "lobby", resume: ResumeToken(participant: "p1"),
      configuration: .init(), state: GroupState(sequence: 1), resumed: true, relayEpoch: "bob's")
    elsewhere.relays = []
    let (_, when) = try nextConnection(&core, from: 1)
    _ = core.connected(at: at(when))
    let there = core.received(.welcome(elsewhere), at: at(when + 0.01), seen: nil)
    #expect(carryOffers(there).isEmpty, "not taken for the one that runs bob's relay")
  }
}
