import Logging
import NIOConcurrencyHelpers
import ParticipantRuntime
import Participation
import PlaybackCoordination
import RoomCarrying
import Rooms
import RoomsTesting
import Synchronization
import TCPRelayClient
import TCPRelayServer
import TestSupport
import Testing
import WireProtocol

/// Rooms handed from machine to machine over TCP on loopback, with the participants' own
/// relays (``StandbyRelay``) as people's `cowatch join` runs them.
@Suite("Carrying rooms: handovers over TCP")
struct HandoverTests {
  static func logger(_ label: String) -> Logger {
    var logger = Logger(label: label)
    logger.logLevel = .warning
    return logger
  }

  /// A participant with its own relay, ready to carry the room.
  struct Member {
    let client: ParticipantClient
    let relay: StandbyRelay?
  }

  /// `carries`: with its own relay, offered to carry the room; else, as a host's own
  /// participant, it tells the relay that its machine runs it.
  /// `host`: the relay a host's participant runs (it says so to that relay only, with its
  /// key).
  static func member(
    _ name: String, to port: Int, carries: Bool, host: RelayServer? = nil
  ) async throws -> Member {
    let relay =
      carries
      ? try await StandbyRelay.start(
        host: "127.0.0.1", port: 0, tls: nil, fingerprint: nil, logger: logger("test.\(name)"))
      : nil
    var configuration = ParticipantConfiguration(name: name)
    configuration.carry =
      relay?.offer
      ?? CarryOffer(
        port: port, fingerprint: nil, runsRelay: true, relayKey: host?.runtime.ownerKey)
    configuration.ownRelayEpoch = relay?.relayEpoch ?? host?.runtime.epoch
    let client = ParticipantClient(
      transport: TCPTransport(host: "127.0.0.1", port: port), configuration: configuration,
      logger: logger("test.\(name).client"), carrier: relay)
    relay?.attach(client)
    try await client.start()
    return Member(client: client, relay: relay)
  }

  /// ann hosts: a relay that passes its rooms on, with ann's participant on it (it runs
  /// the relay).
  static func hosted() async throws -> (host: RelayServer, ann: Member) {
    let host = try await RelayServer.start(
      host: "127.0.0.1", port: 0, logger: Self.logger("test.host"), feedsSuccessors: true)
    let ann = try await Self.member(
      "ann", to: host.port, carries: false, host: host)
    return (host, ann)
  }

  /// ann hosts (her participant runs the relay), bob and carl join with relays of their
  /// own; ann starts the session; once everyone knows bob and carl would carry the room and
  /// carl has the session.
  static func watching() async throws -> (
    host: RelayServer, ann: Member, bob: Member, carl: Member
  ) {
    let (host, ann) = try await Self.hosted()
    let bob = try await Self.member("bob", to: host.port, carries: true)
    let carl = try await Self.member("carl", to: host.port, carries: true)
    let started = await ann.client.send(.start(series: testSeries, item: testItem.id))
    #expect((try? started.get()) != nil)
    await eventually("ann hears of both successors") {
      await ann.client.successors.map(\.name) == ["bob", "carl"]
    }
    await eventually("carl has the session") { await carl.client.groupState.session != nil }
    return (host, ann, bob, carl)
  }

  /// Leaves as a host does ("only me"), through the leave the command line uses: goodbye,
  /// then the room goes to its first successor.
  static func leave(_ member: Member, relay: RelayServer) async {
    let handedTo = Mutex<String?>(nil)
    let leave = RoomLeave.leave(relay: relay, name: member.client.configuration.name) { to in
      handedTo.withLock { $0 = to.name }
    }
    await leave(member.client, false)
    #expect(handedTo.withLock { $0 } != nil, "the room was handed over, not closed")
  }

  @Test("the host leaves, then the next: the room goes on, the same session on every machine")
  func chain() async throws {
    let (host, ann, bob, carl) = try await Self.watching()
    let session = await ann.client.groupState.session?.id
    let bobRelay = try #require(bob.relay)
    let carlRelay = try #require(carl.relay)
    let sampler = RoomSampler([host, bobRelay.server, carlRelay.server])

    await Self.leave(ann, relay: host)
    await eventually("bob and carl are back, on bob's relay") {
      let epochs = [await bob.client.relayEpoch, await carl.client.relayEpoch]
      let connected = [await bob.client.connectionStatus, await carl.client.connectionStatus]
      return epochs == [bobRelay.server.runtime.epoch, bobRelay.server.runtime.epoch]
        && connected == [.connected, .connected]
    }
    #expect(await carl.client.groupState.session?.id == session)
    #expect(await carl.client.groupState.participants.map(\.name) == ["bob", "carl"])
    await eventually("carl is bob's successor") {
      await bob.client.successors.map(\.name) == ["carl"]
    }

    await Self.leave(bob, relay: bobRelay.server)
    await eventually("carl is back, on its own relay") {
      let epoch = await carl.client.relayEpoch
      let status = await carl.client.connectionStatus
      return epoch == carlRelay.server.runtime.epoch && status == .connected
    }
    #expect(await carl.client.groupState.session?.id == session)
    #expect(await carl.client.groupState.participants.map(\.name) == ["carl"])
    #expect(await sampler.stop() == 1, "never two relays running the room at once")
    await carl.client.stop()
    await carlRelay.stop()
  }
}

extension HandoverTests {
  @Test(
    "the host's relay dies without a word: bob and carl elect bob's and go on there"
  )
  func hostKilled() async throws {
    let (host, ann, bob, carl) = try await Self.watching()
    let session = await carl.client.groupState.session?.id
    let ids = [await bob.client.participantID, await carl.client.participantID]
    let heard = await ChatLog(bob.client)
    await carl.client.sendMessage(kind: .chat, body: "before")
    await eventually("bob heard carl") { heard.bodies == ["before"] }
    let bobRelay = try #require(bob.relay)
    let carlRelay = try #require(carl.relay)
    // Never two of the successors' relays with people in the room at once.
    let sampler = RoomSampler([bobRelay.server, carlRelay.server])

    await host.kill()
    await ann.client.kill()
    // Said while the room has no relay: kept, and delivered once it has one.
    await carl.client.sendMessage(kind: .chat, body: "during 1")
    await carl.client.sendMessage(kind: .chat, body: "during 2")
    await eventually("bob and carl are back, on bob's relay") {
      let epochs = [await bob.client.relayEpoch, await carl.client.relayEpoch]
      let connected = [await bob.client.connectionStatus, await carl.client.connectionStatus]
      return epochs == [bobRelay.server.runtime.epoch, bobRelay.server.runtime.epoch]
        && connected == [.connected, .connected]
    }
    #expect([await bob.client.participantID, await carl.client.participantID] == ids)
    #expect(await carl.client.groupState.session?.id == session)
    // A last line, after: carl's lines reach bob in order, so once it is there a copy of an
    // earlier one would have come before it.
    await carl.client.sendMessage(kind: .chat, body: "after")
    await eventually("bob heard what carl said meanwhile") { heard.bodies.last == "after" }
    #expect(heard.bodies == ["before", "during 1", "during 2", "after"], "each once, in order")
    #expect(await sampler.stop() == 1)
    // carl's relay was only a candidate: it does not run the room.
    #expect(carl.relay?.server.runtime.roomNames.isEmpty == true)
    // bob now runs the relay: not a successor of itself; carl is the next.
    await eventually("carl is the only successor") {
      await carl.client.successors.map(\.name) == ["carl"]
    }
    await bob.client.stop()
    await bobRelay.stop()
    await carl.client.stop()
    await carl.relay?.stop()
  }

  @Test("the relay that took the room over dies too: carl, left alone, carries on")
  func secondDeath() async throws {
    let (host, ann, bob, carl) = try await Self.watching()
    let session = await carl.client.groupState.session?.id
    await host.kill()
    await ann.client.kill()
    let bobRelay = try #require(bob.relay)
    await eventually("bob and carl are back, on bob's relay") {
      let epochs = [await bob.client.relayEpoch, await carl.client.relayEpoch]
      let connected = [await bob.client.connectionStatus, await carl.client.connectionStatus]
      return epochs == [bobRelay.server.runtime.epoch, bobRelay.server.runtime.epoch]
        && connected == [.connected, .connected]
    }
    await eventually("carl is the only successor") {
      await carl.client.successors.map(\.name) == ["carl"]
    }
    let carlRelay = try #require(carl.relay)
    // carl's copy knows whose vote will not count if bob's relay goes: bob's (not ann's,
    // whose participant, alive a moment longer than its relay here, was welcomed at bob's
    // too and must not be taken for the one that runs it).
    await eventually("carl's copy knows bob runs the relay") {
      carlRelay.directory.summary(of: "lobby").contains("host p2")
    }
    await bobRelay.server.kill()
    await bob.client.kill()
    let alone = await eventually(10) {
      let epoch = await carl.client.relayEpoch
      let status = await carl.client.connectionStatus
      return epoch == carlRelay.server.runtime.epoch && status == .connected
    }
    if !alone {
      // What carl's side knew, for whoever reads the failure.
      let snapshot = await carl.client.snapshot()
      Issue.record(
        """
        carl did not carry on alone within 10 s: carl is \(snapshot.connection) at \
        \(await carl.client.currentRelay?.address ?? "where it started"), in a state where \
        connected are \(snapshot.state.participants.filter(\.isConnected).map(\.name)); \
        carl's relay: \(carlRelay.directory.summary(of: "lobby"))
        """)
    }
    #expect(await carl.client.groupState.session?.id == session)
    await carl.client.stop()
    await carlRelay.stop()
  }

  @Test("the host and the first successor die together: the others elect the next one")
  func successorKilledToo() async throws {
    let (host, ann) = try await Self.hosted()
    var joined: [Member] = []
    for name in ["bob", "carl", "dan", "eve"] {
      joined.append(try await Self.member(name, to: host.port, carries: true))
    }
    let others = joined
    await eventually("ann hears of the four successors") {
      await ann.client.successors.map(\.name) == ["bob", "carl", "dan", "eve"]
    }
    let sampler = RoomSampler(others.compactMap { $0.relay?.server })
    // bob's machine goes with the host's: its relay and its participant, without a word.
    await host.kill()
    await ann.client.kill()
    await others[0].client.kill()
    await others[0].relay?.server.kill()
    let carlRelay = try #require(others[1].relay)
    await eventually("carl, dan and eve are back, on carl's relay") {
      for member in others.dropFirst() {
        let epoch = await member.client.relayEpoch
        let status = await member.client.connectionStatus
        guard epoch == carlRelay.server.runtime.epoch, status == .connected else { return false }
      }
      return true
    }
    #expect(await sampler.stop() == 1, "never two relays running the room at once")
    for member in others.dropFirst() {
      await member.client.stop()
      await member.relay?.stop()
    }
  }

  @Test("the host ends the room for everyone: it ends everywhere, and no successor carries it on")
  func endedForEveryone() async throws {
    let (host, ann) = try await Self.hosted()
    let bob = try await Self.member("bob", to: host.port, carries: true)
    let carl = try await Self.member("carl", to: host.port, carries: true)
    await eventually("ann hears of both successors") {
      await ann.client.successors.map(\.name) == ["bob", "carl"]
    }
    await host.close(because: "ann closed the room (it ran on their machine)")
    await ann.client.stop()
    await eventually("bob and carl read that the room closed, and stop") {
      let statuses = [await bob.client.connectionStatus, await carl.client.connectionStatus]
      return statuses == [.disconnected, .disconnected]
    }
    // Nobody votes: the copies stay copies. A vote would come on a connection to their
    // relays, read to its end before the relay sees it close: once none is open, every
    // line bob and carl sent has been acted on.
    await eventually("the successors' relays have heard the last of everyone") {
      bob.relay?.server.runtime.connectionCount == 0
        && carl.relay?.server.runtime.connectionCount == 0
    }
    #expect(bob.relay?.server.runtime.roomNames.isEmpty == true)
    #expect(carl.relay?.server.runtime.roomNames.isEmpty == true)
    await bob.relay?.stop()
    await carl.relay?.stop()
  }

  @Test("a machine the relay cannot reach is named so, and the room goes to one it can reach")
  func unreachableSuccessor() async throws {
    let host = try await RelayServer.start(
      host: "127.0.0.1", port: 0, logger: Self.logger("test.host"), feedsSuccessors: true)
    let probe = TCPTransport(host: "127.0.0.1", port: host.port)
    host.runtime.locateRooms { room, relay in
      await RoomLocating.locate(room, at: relay, over: probe, within: 1)
    }
    let ann = try await Self.member(
      "ann", to: host.port, carries: false, host: host)
    // bob offers a port where nothing ever answers (a machine behind a NAT, as the relay
    // sees it): a socket that listens but never accepts, held for the whole test (a port
    // merely closed could be another test's relay a moment later).
    let silent = try #require(SilentListener())
    defer { silent.close() }
    var configuration = ParticipantConfiguration(name: "bob")
    configuration.carry = CarryOffer(port: silent.port, fingerprint: nil)
    let bob = ParticipantClient(
      transport: TCPTransport(host: "127.0.0.1", port: host.port), configuration: configuration,
      logger: Self.logger("test.bob.client"))
    try await bob.start()
    let carl = try await Self.member("carl", to: host.port, carries: true)
    await eventually("bob is named, unreachable, after carl") {
      await ann.client.successors.map { "\($0.name)\($0.reachable ? "" : "?")" } == [
        "carl", "bob?",
      ]
    }
    await Self.leave(ann, relay: host)
    let carlRelay = try #require(carl.relay)
    await eventually("bob and carl are back, on carl's relay") {
      let epochs = [await bob.relayEpoch, await carl.client.relayEpoch]
      return epochs == [carlRelay.server.runtime.epoch, carlRelay.server.runtime.epoch]
    }
    await bob.stop()
    await carl.client.stop()
    await carlRelay.stop()
  }

  @Test("only the host and one other: the one left carries on alone")
  func hostKilledLeavingOne() async throws {
    let (host, ann) = try await Self.hosted()
    let bob = try await Self.member("bob", to: host.port, carries: true)
    await eventually("ann hears of bob") { await ann.client.successors.map(\.name) == ["bob"] }
    await host.kill()
    await ann.client.kill()
    let bobRelay = try #require(bob.relay)
    await eventually("bob carries on alone, on its own relay") {
      let epoch = await bob.client.relayEpoch
      let status = await bob.client.connectionStatus
      return epoch == bobRelay.server.runtime.epoch && status == .connected
    }
    await bob.client.stop()
    await bobRelay.stop()
  }
}

let testSeries = SeriesInfo(
  id: "harbour", title: "Harbour",
  items: [ItemInfo(id: "harbour/s1e1", title: "Arrival", duration: 300)])
let testItem = testSeries.items[0]

/// What one participant hears in the chat, in order.
final class ChatLog: Sendable {
  private let received = NIOLockedValueBox<[String]>([])
  private let task: Task<Void, Never>

  /// Subscribed before it returns: nothing said after is missed.
  init(_ client: ParticipantClient) async {
    let received = self.received
    let messages = await client.rawMessages(kind: .chat)
    task = Task {
      for await (_, _, body) in messages {
        received.withLockedValue { $0.append(body) }
      }
    }
  }

  var bodies: [String] { received.withLockedValue { $0 } }

  deinit { task.cancel() }
}

/// Samples every 2 ms how many of some relays run the room with someone connected: the
/// most at once must be one.
final class RoomSampler: Sendable {
  private let most = NIOLockedValueBox(0)
  private let task: Task<Void, Never>

  init(_ relays: [RelayServer], room: String = "lobby") {
    let most = self.most
    task = Task {
      while !Task.isCancelled {
        // A killed relay keeps its last state (nobody told it its connections went): it
        // serves nobody, so it is not counted.
        let serving = relays.filter { relay in
          !relay.runtime.isStopped
            && relay.state(ofRoom: room)?.participants.contains(where: \.isConnected) ?? false
        }.count
        most.withLockedValue { $0 = max($0, serving) }
        try? await Task.sleep(nanoseconds: 2_000_000)
      }
    }
  }

  /// Stops sampling; the most relays seen running the room at once.
  func stop() async -> Int {
    task.cancel()
    await task.value
    return most.withLockedValue { $0 }
  }
}

/// A value behind a lock, shareable with tasks.
