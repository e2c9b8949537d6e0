import Foundation
import Logging
import ParticipantRuntime
import Participation
import PlaybackCoordination
import PostgresRoomStore
import RelayRuntime
import RelayTLS
import Synchronization
import TCPRelayClient
import TCPRelayServer
import TestSupport
import Testing
import ThrowawayPostgres
import WireProtocol

@testable import Rooms

/// Several relays on one PostgreSQL database (a throwaway server): leases, redirects,
/// fencing and takeover.
@Suite(
  "Rooms shared by relays through PostgreSQL", .serialized,
  .enabled(if: ThrowawayPostgres.available, "PostgreSQL is not installed (.ci/run installs it)"),
  .timeLimit(.minutes(2)))
struct SharedRoomsTests {
  /// The store's bound on a read or a write: not what these tests are about, and the
  /// throwaway server, beside the whole suite and busy loops, once took more than the
  /// relay's 10 s to make its tables.
  static let storeTimeout = 30.0

  static func endpoint(_ port: Int) -> RelayEndpoint {
    RelayEndpoint(address: "127.0.0.1:\(port)", fingerprint: "SHA256:relay\(port)")
  }

  @Test(
    "one owner per room: a claim, a redirect to it, writes fenced by the lease, a takeover once it expires, a release"
  )
  func leases() async throws {
    let cluster = try await ThrowawayPostgres.start()
    defer { cluster.stop() }
    // Leases of 6 s: long enough that what comes before a renewal below is done in time
    // while the whole suite loads the machine (3 s was not, beside the Syncplay tests'
    // real clients and players).
    let a = try await PostgresRoomStore.connect(
      url: cluster.url, advertised: Self.endpoint(7001), leaseDuration: 6,
      timeout: Self.storeTimeout)
    let b = try await PostgresRoomStore.connect(
      url: cluster.url, advertised: Self.endpoint(7002), leaseDuration: 6,
      timeout: Self.storeTimeout)
    defer {
      a.close()
      b.close()
    }
    #expect(try await a.claim("lobby") == .owned(stored: nil, clock: nil))
    #expect(try await b.claim("lobby") == .elsewhere(Self.endpoint(7001)))

    // a runs the room and writes it; b, not holding the lease, cannot overwrite it.
    var relay = RelayDriver(store: a)
    relay.hello(1, "ann")
    relay.hello(2, "bob")
    #expect(await relay.runtime.flushStore())
    let written = try #require(relay.runtime.storedRooms().first)
    var forged = written
    forged.nextNumber = 99
    try await b.write(
      RoomStoreBatch(
        changed: [
          .init(
            name: "lobby", state: forged.state, nextNumber: 99, members: forged.members,
            departed: [])
        ], clock: ClockReading(group: relay.now, wallNanoseconds: 0)))
    #expect(
      try await a.load().rooms.first?.nextNumber == written.nextNumber, "b's write fenced off")

    // Renewed, the lease holds; the relays see each other.
    #expect(try await a.renewLeases().isEmpty)
    _ = try await b.renewLeases()
    #expect(try await b.claim("lobby") == .elsewhere(Self.endpoint(7001)))
    #expect(try await a.peers() == [Self.endpoint(7002)])

    // a stops renewing (as if dead): once the lease expires, b takes the room over with
    // what a stored, and a's later writes go nowhere; a hears it lost the room.
    // Waited for by asking, as a relay does (a claim before the expiry is told "elsewhere"
    // and changes nothing), rather than for a fixed time.
    var claimed = try await b.claim("lobby")
    let deadline = ContinuousClock.now + .seconds(20)
    while case .elsewhere = claimed, ContinuousClock.now < deadline {
      try await Task.sleep(for: .milliseconds(100))
      claimed = try await b.claim("lobby")
    }
    guard case .owned(let stored, let clock) = claimed else {
      Issue.record("b did not take the room over: \(claimed)")
      return
    }
    #expect(stored == written)
    #expect(clock?.group == relay.now)
    relay.hello(3, "carol")
    #expect(await relay.runtime.flushStore())
    #expect(try await a.load().rooms.first?.members.count == 2, "a's write after losing is fenced")
    #expect(try await a.renewLeases() == ["lobby"])
    #expect(a.heldRooms.isEmpty)
    #expect(b.heldRooms == ["lobby"])

    // A released lease can be claimed at once; a new process at a's address takes over
    // what an earlier one there held.
    try await b.release(["lobby"])
    #expect(try await a.claim("lobby") == .owned(stored: stored, clock: clock))
    let restarted = try await PostgresRoomStore.connect(
      url: cluster.url, advertised: Self.endpoint(7001), leaseDuration: 3,
      timeout: Self.storeTimeout)
    defer { restarted.close() }
    guard case .owned = try await restarted.claim("lobby") else {
      Issue.record("a relay restarted at the same address must take its rooms back")
      return
    }
    #expect(try await a.renewLeases() == ["lobby"])
  }

  /// Three relays on loopback, each with its own TLS certificate, sharing one database.
  final class Relays: Sendable {
    let servers: [RelayServer]
    let stores: [PostgresRoomStore]

    init(cluster: ThrowawayPostgres, count: Int = 3, lease: Double) async throws {
      var servers: [RelayServer] = []
      var stores: [PostgresRoomStore] = []
      var configuration = RelayConfiguration()
      configuration.reconnectGrace = 10
      var logger = Logger(label: "test.relay")
      logger.logLevel = .error
      for _ in 0..<count {
        let identity = try RelayIdentity.makeSelfSigned()
        let store = try await PostgresRoomStore.connect(
          url: cluster.url,
          advertised: RelayEndpoint(address: "127.0.0.1:0", fingerprint: identity.fingerprint),
          leaseDuration: lease, timeout: SharedRoomsTests.storeTimeout, logger: logger)
        let server = try await RelayServer.start(
          host: "127.0.0.1", port: 0, configuration: configuration, logger: logger,
          store: store, directory: store, identity: identity)
        store.advertised?.address = "127.0.0.1:\(server.port)"
        servers.append(server)
        stores.append(store)
      }
      self.servers = servers
      self.stores = stores
    }

    func transport(_ index: Int) -> TCPTransport {
      TCPTransport(
        host: "127.0.0.1", port: servers[index].port,
        tls: RelayVerification(pinned: stores[index].advertised?.fingerprint, knownRelays: nil))
    }
  }

  static func participant(_ name: String, via transport: TCPTransport) async throws
    -> ParticipantClient
  {
    var configuration = ParticipantConfiguration(
      name: name, room: "lobby", pingInterval: 0.2, reportInterval: 0.5)
    configuration.reconnectInitialDelay = 0.05
    let client = ParticipantClient(transport: transport, configuration: configuration)
    try await client.start()
    return client
  }

  /// Polls `condition` every 20 ms for at most `seconds`.
  @Test(
    "three relays: participants spread over them meet in one room; its relay killed, the room goes on on another with its state and the same members, never on two at once"
  )
  func takeover() async throws {
    let cluster = try await ThrowawayPostgres.start()
    defer { cluster.stop() }
    let relays = try await Relays(cluster: cluster, lease: 1)
    defer {
      for store in relays.stores { store.close() }
    }
    // The relays find each other (their welcomes list the others).
    #expect(
      await eventually {
        relays.servers.allSatisfy { $0.runtime.peerCount == 2 }
      })

    let ann = try await Self.participant("ann", via: relays.transport(0))
    let bob = try await Self.participant("bob", via: relays.transport(1))
    let carol = try await Self.participant("carol", via: relays.transport(2))
    let people = [ann, bob, carol]
    // One room, on the relay ann's hello reached first; the others were redirected there.
    #expect(relays.servers[0].state(ofRoom: "lobby")?.participants.count == 3)
    #expect(relays.servers[1].state(ofRoom: "lobby") == nil)
    #expect(relays.servers[2].state(ofRoom: "lobby") == nil)
    #expect(await bob.currentRelay?.address == "127.0.0.1:\(relays.servers[0].port)")
    let ids = [await ann.participantID, await bob.participantID, await carol.participantID]

    // Never two relays running the room at once, sampled all along.
    let owners = Mutex<[Int]>([])
    let killed = Mutex(Set<Int>())
    let watch = Task {
      while !Task.isCancelled {
        let dead = killed.withLock { $0 }
        let running = relays.servers.indices.filter {
          !dead.contains($0) && relays.servers[$0].state(ofRoom: "lobby") != nil
        }
        owners.withLock { $0.append(running.count) }
        try? await Task.sleep(nanoseconds: 5_000_000)
      }
    }

    let series = SeriesInfo(
      id: "harbour", title: "Harbour",
      items: [ItemInfo(id: "harbour/s1e1", title: "Arrival", duration: 1500)])
    #expect(try await ann.send(.start(series: series, item: "harbour/s1e1")).get() == ())
    for person in [bob, carol] { _ = await person.send(.join) }
    _ = await ann.send(.seek(item: nil, to: 600))
    _ = await bob.pause()
    let before = try #require(relays.servers[0].state(ofRoom: "lobby"))
    let pausedAt = try #require(before.session).timeline.itemTime

    // Writes go out in batches every few milliseconds, off the path that forwards changes:
    // a relay killed within a batch's time of a change loses it. This test is about the
    // takeover, so the kill waits for the write (of this step, or of a later one: a
    // participant's readiness can still change while the group is paused).
    #expect(
      await eventually {
        guard let stored = try? await relays.stores[0].load().rooms.first?.state.sequence
        else { return false }
        return stored >= before.sequence
      })
    // The owner dies: no goodbye, no release; its lease runs out.
    let killedAt = Date()
    killed.withLock { _ = $0.insert(0) }
    await relays.servers[0].kill()
    #expect(
      await eventually(15) {
        var all = true
        for person in people {
          let connected = await person.connectionStatus == .connected
          let relay = await person.currentRelay?.address
          all = all && connected && relay != "127.0.0.1:\(relays.servers[0].port)"
        }
        return all
      }, "everyone is back, on another relay")
    let resumedAfter = Date().timeIntervalSince(killedAt)
    #expect(resumedAfter < 1 + 2 + 1.5, "within the lease and a little (took \(resumedAfter) s)")
    let owner = try #require(
      relays.servers.indices.dropFirst().first {
        relays.servers[$0].state(ofRoom: "lobby") != nil
      })
    let after = try #require(relays.servers[owner].state(ofRoom: "lobby"))
    #expect(Set(after.participants.map(\.id)) == Set(ids.compactMap { $0 }), "the same members")
    #expect(after.session?.timeline.itemTime == pausedAt, "paused where it was")
    #expect(after.session?.item.id == "harbour/s1e1")
    for person in people {
      let status = await person.groupState.session?.status
      #expect(status == .paused)
    }

    // And it goes on: a play from carol reaches everyone through the new owner.
    #expect(try await carol.play().get() == ())
    #expect(
      await eventually {
        var all = true
        for person in people {
          let status = await person.groupState.session?.status
          all = all && status == .playing
        }
        return all
      })
    watch.cancel()
    _ = await watch.value
    let samples = owners.withLock { $0 }
    #expect(samples.count > 50)
    #expect(samples.allSatisfy { $0 <= 1 }, "the room never ran on two relays")
    for person in people { await person.stop() }
    for server in relays.servers.dropFirst() { await server.stop() }
  }
}
