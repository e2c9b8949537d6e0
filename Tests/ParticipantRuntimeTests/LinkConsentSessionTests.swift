import LinkConsent
import Media
import Narration
import ParticipantRuntime
import Participation
import PlaybackCoordination
import Synchronization
import TestSupport
import Testing

/// Links someone else starts, as a member's machine takes them: asked about, refused,
/// opened, through a relay on both transports.
@Suite("Sessions: links with consent", .timeLimit(.minutes(1)))
struct LinkConsentSessionTests {
  static let film = "https://media.example.org/films/harbour.mkv"
  static let item = ItemInfo(id: ItemID(film), title: "Harbour lights", duration: 300)

  /// A simulated player that plays any link (as mpv would), behind bob's gate.
  static func gatedPlayer(_ settings: LinkConsent.Settings, lookup: [UInt8] = [93, 184, 216, 34])
    -> (ConsentingPlayer, SimulatedPlayer, LinkGate)
  {
    let inner = SimulatedPlayer(
      configuration: SimulatedPlayerConfiguration(
        loadLatency: 0.1...0.1, playLatency: 0...0, seekLatency: 0...0),
      itemResolver: { id in
        LinkItem.isLink(id) ? SimulatedItem(id: id, title: "link", duration: 300) : nil
      })
    let saved = Mutex<[TrustedSites]>([])
    let gate = LinkGate(
      consent: LinkConsent(settings: settings), lookup: { _ in [lookup] },
      save: { sites in
        saved.withLock { $0.append(sites) }
        return nil
      })
    return (ConsentingPlayer(inner, gate: gate), inner, gate)
  }

  /// ann starts `link` for the room, and bob joins her.
  static func watchTogether(
    _ link: ItemInfo, startedBy ann: ParticipantClient, joinedBy bob: ParticipantClient
  ) async throws {
    try await ann.send(.start(series: LinkItem.series(for: link), item: link.id)).get()
    await eventually("bob sees the session") { await bob.groupState.session != nil }
    try await bob.send(.join).get()
  }

  /// What a client told its person, as it is told.
  final class Heard: Sendable {
    private let lines = Mutex<[String]>([])
    var all: [String] { lines.withLock { $0 } }
    func add(_ line: String) { lines.withLock { $0.append(line) } }
  }

  static func notices(of client: ParticipantClient) -> (Heard, Task<Void, Never>) {
    let said = Heard()
    let task = Task(executorPreference: client.clock.taskExecutor) {
      for await case .notice(let notice) in client.events { said.add(notice.description) }
    }
    return (said, task)
  }

  @Test(
    "a link from a site bob does not trust: bob is asked, steps away saying why, and once he opens it plays in step",
    arguments: TransportKind.allCases)
  func askedThenOpened(kind: TransportKind) async throws {
    let relay = try await RelayHarness(kind)
    let (player, inner, gate) = Self.gatedPlayer(.init())
    let ann = try await relay.participant("ann")
    let bob = try await relay.participant("bob", player: player)
    let (said, listening) = Self.notices(of: bob)
    defer { listening.cancel() }
    try await Self.watchTogether(Self.item, startedBy: ann, joinedBy: bob)
    let bobID = try #require(await bob.participantID)
    await relay.run(until: "bob steps away, asked", within: 10) {
      await ann.groupState.participant(bobID)?.suspensions.contains(.playerUnavailable) == true
    }
    #expect(gate.questions == [Self.film])
    #expect(
      said.all.contains(
        "stepping away from the group's link: the link to media.example.org waits for your answer"),
      "\(said.all)")
    #expect(
      inner.observe(at: relay.clock.localNow()).item == nil, "nothing fetched before the answer")
    // The group does not wait for bob's answer.
    await relay.run(until: "ann plays", within: 10) {
      await ann.groupState.session?.status == .playing
    }
    gate.answer(.open, for: Self.film)
    #expect(gate.questions.isEmpty)
    await relay.run(until: "bob is back and plays the link", within: 10) {
      let o = inner.observe(at: relay.clock.localNow())
      return await ann.groupState.participant(bobID)?.suspensions.isEmpty == true
        && o.item == Self.item.id && o.rate > 0 && !o.isBusy
    }
    await relay.advance(by: 1)
    let position = try #require(await bob.groupState.session?.timeline)
    let now = relay.clock.localNow()
    // The group's clock is the relay's, an hour and a bit off the participants'.
    let group = position.position(
      at: GroupInstant(nanoseconds: now.nanoseconds + RelayHarness.relayClockOffset))
    #expect(abs(inner.observe(at: now).position - group) < 0.1, "bob caught up with the group")
    for client in [ann, bob] { await client.stop() }
    await relay.stop()
  }

  @Test(
    "a link to this machine (127.0.0.1, or a name that leads there) is refused even with --trust-links; bob steps away saying why",
    arguments: TransportKind.allCases)
  func localRefused(kind: TransportKind) async throws {
    let relay = try await RelayHarness(kind)
    let (player, inner, gate) = Self.gatedPlayer(.init(trustsEveryLink: true, asks: false))
    let ann = try await relay.participant("ann")
    let bob = try await relay.participant("bob", player: player)
    let (said, listening) = Self.notices(of: bob)
    defer { listening.cancel() }
    let local = ItemInfo(id: "http://127.0.0.1:8080/admin", title: "admin", duration: 300)
    try await Self.watchTogether(local, startedBy: ann, joinedBy: bob)
    let bobID = try #require(await bob.participantID)
    await relay.run(until: "bob steps away", within: 10) {
      await ann.groupState.participant(bobID)?.suspensions.contains(.playerUnavailable) == true
    }
    #expect(
      said.all.contains(
        "stepping away from the group's link: 127.0.0.1 is this machine: links to your own machine or network open only with --allow-local-links"
      ), "\(said.all)")
    #expect(gate.questions.isEmpty)
    #expect(inner.observe(at: relay.clock.localNow()).item == nil)
    for client in [ann, bob] { await client.stop() }
    await relay.stop()
  }

  @Test("a name that resolves to the network's own addresses is refused as they are")
  func resolvedToLocal() async throws {
    let relay = try await RelayHarness(.inMemory)
    let (player, inner, _) = Self.gatedPlayer(
      .init(trustsEveryLink: true), lookup: [169, 254, 169, 254])
    let ann = try await relay.participant("ann")
    let bob = try await relay.participant("bob", player: player)
    let (said, listening) = Self.notices(of: bob)
    defer { listening.cancel() }
    try await Self.watchTogether(Self.item, startedBy: ann, joinedBy: bob)
    await relay.run(until: "bob says why he stepped away", within: 10) {
      said.all.contains {
        $0.contains("169.254.169.254 is a link-local address")
          && $0.contains("where media.example.org leads")
      }
    }
    #expect(inner.observe(at: relay.clock.localNow()).item == nil)
    for client in [ann, bob] { await client.stop() }
    await relay.stop()
  }

  @Test("a trusted site's link opens at once (after its lookup), with no question and no step away")
  func trustedSite() async throws {
    let relay = try await RelayHarness(.inMemory)
    let (player, inner, gate) = Self.gatedPlayer(.init())
    gate.answer(.alwaysForSite, for: "https://media.example.org/other.mkv")
    #expect(gate.allowsExtractor(Self.film))
    let ann = try await relay.participant("ann")
    let bob = try await relay.participant("bob", player: player)
    try await Self.watchTogether(Self.item, startedBy: ann, joinedBy: bob)
    await relay.run(until: "both play", within: 10) {
      let o = inner.observe(at: relay.clock.localNow())
      return await ann.groupState.session?.status == .playing && o.rate > 0 && !o.isBusy
    }
    let bobID = try #require(await bob.participantID)
    #expect(await ann.groupState.participant(bobID)?.suspensions.isEmpty == true)
    #expect(gate.questions.isEmpty)
    for client in [ann, bob] { await client.stop() }
    await relay.stop()
  }
}
