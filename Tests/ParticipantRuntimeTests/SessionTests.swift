import ParticipantRuntime
import Participation
import PlaybackCoordination
import Rooms
import TCPRelayClient
import TCPRelayServer
import TestSupport
import Testing
import WireProtocol

@Suite("Sessions on both transports", .serialized, .timeLimit(.minutes(1)))
struct SessionTests {
  /// Starts a session by the first client and has the others join it.
  func watchTogether(_ clients: [ParticipantClient]) async throws {
    let first = clients[0]
    try await first.send(.start(series: testSeries, item: "harbour/s1e1")).get()
    for client in clients.dropFirst() {
      await eventually("\(client) sees the session") { await client.groupState.session != nil }
      try await client.send(.join).get()
    }
    await eventually("everyone is joined and ready") {
      let state = await first.groupState
      return state.participants.count == clients.count
        && state.participants.allSatisfy { $0.isJoined && $0.readiness == .ready }
    }
  }

  @Test(
    "a pause by one of five reaches all, with its originator and the same item time",
    arguments: TransportKind.allCases)
  func pauseReachesEveryone(kind: TransportKind) async throws {
    let relay = try await RelayHarness(kind)
    var joining: [ParticipantClient] = []
    for name in ["ann", "bob", "cat", "dan", "eve"] {
      joining.append(try await relay.participant(name))
    }
    let clients = joining
    try await watchTogether(clients)
    await eventually("the group plays") { await clients[0].groupState.session?.status == .playing }

    try await clients[1].send(.pause(item: "harbour/s1e1", at: 1.5)).get()
    for client in clients {
      await eventually("every participant sees bob's pause") {
        let state = await client.groupState
        return state.session?.status == .paused && state.session?.timeline.itemTime == 1.5
      }
      let state = await client.groupState
      #expect(state.lastChange?.originatorName == "bob")
      #expect(state.lastChange?.kind == .paused(at: 1.5))
    }
    for client in clients { await client.stop() }
    await relay.stop()
  }

  @Test(
    "a late joiner gets the whole state at once and starts where the group is",
    arguments: TransportKind.allCases)
  func lateJoiner(kind: TransportKind) async throws {
    let relay = try await RelayHarness(kind)
    let ann = try await relay.participant("ann")
    try await watchTogether([ann])
    try await ann.send(.seek(item: "harbour/s1e1", to: 42)).get()
    try await ann.send(.beginSuspension(.interrupted)).get()

    let zoe = try await relay.participant("zoe")
    // The welcome carried the state: no further round-trip needed.
    let state = await zoe.groupState
    #expect(state.session?.item.id == "harbour/s1e1")
    #expect(state.participant(await ann.participantID!)?.suspensions == [.interrupted])
    try await zoe.send(.join).get()
    await eventually("zoe's estimate of the group position matches ann's") {
      guard let z = await zoe.snapshot().groupPosition, let a = await ann.snapshot().groupPosition
      else { return false }
      return abs(z - a) < 0.05 && z >= 42
    }
    await zoe.stop()
    await ann.stop()
    await relay.stop()
  }

  @Test(
    "a killed participant keeps its place for the reconnect grace, then is removed and the others are told",
    arguments: TransportKind.allCases)
  func killedParticipantIsRemoved(kind: TransportKind) async throws {
    let relay = try await RelayHarness(kind)
    let ann = try await relay.participant("ann")
    let bob = try await relay.participant("bob")
    await eventually("ann sees bob") { await ann.groupState.participants.count == 2 }
    await bob.kill()
    // Its connection closed: it keeps its place for the reconnect grace, no longer.
    await eventually("the relay sees bob's connection closed") {
      await relay.state(ofRoom: "lobby")?.participants.contains {
        $0.name == "bob" && !$0.isConnected
      }
        == true
    }
    let grace = RelayHarness.fastConfiguration.reconnectGrace
    await relay.advance(by: grace - 0.1)
    #expect(await ann.groupState.participants.map(\.name) == ["ann", "bob"])
    await relay.run(until: "bob is removed (sweeps come every 0.2 s)", within: 0.35) {
      await ann.groupState.participants.map(\.name) == ["ann"]
    }
    #expect(
      await ann.groupState.lastChange.map { if case .exited = $0.kind { true } else { false } }
        == true)
    await ann.stop()
    await relay.stop()
  }

  @Test(
    "after the relay drops every connection, participants rejoin with the state intact",
    arguments: TransportKind.allCases)
  func reconnection(kind: TransportKind) async throws {
    let relay = try await RelayHarness(kind)
    let ann = try await relay.participant("ann")
    let bob = try await relay.participant("bob")
    try await watchTogether([ann, bob])
    try await bob.send(.pause(item: "harbour/s1e1", at: 3)).get()
    let before = try #require(await relay.state(ofRoom: "lobby"))
    let bobID = await bob.participantID

    await relay.dropAllConnections()
    // Time stands still until both have noticed; then they come back after their
    // reconnection delay.
    await eventually("both notice the drop") {
      let a = await ann.connectionStatus
      let b = await bob.connectionStatus
      return a != .connected && b != .connected
    }
    await relay.run(until: "both are connected again", within: 1) {
      let a = await ann.connectionStatus
      let b = await bob.connectionStatus
      return a == .connected && b == .connected
    }
    await eventually("the relay shows both connected") {
      await relay.state(ofRoom: "lobby")?.participants.allSatisfy(\.isConnected) == true
    }
    let after = try #require(await relay.state(ofRoom: "lobby"))
    #expect(after.session?.id == before.session?.id)
    #expect(after.session?.timeline == before.session?.timeline)
    #expect(after.participants.map(\.id) == before.participants.map(\.id))
    #expect(await bob.participantID == bobID, "bob resumed his place, not a new one")
    // Commands work again.
    try await ann.send(.seek(item: "harbour/s1e1", to: 10)).get()
    await eventually("bob sees ann's seek") {
      await bob.groupState.session?.timeline.itemTime == 10
    }
    await ann.stop()
    await bob.stop()
    await relay.stop()
  }

  @Test("nothing crosses rooms", arguments: TransportKind.allCases)
  func roomsAreIsolated(kind: TransportKind) async throws {
    let relay = try await RelayHarness(kind)
    let ann = try await relay.participant("ann", room: "one")
    let bob = try await relay.participant("bob", room: "two")
    try await ann.send(.start(series: testSeries, item: "harbour/s1e1")).get()
    await ann.sendMessage(kind: "chat", body: "only room one")
    // Once the relay has answered ann's message and then a request of bob's, anything it
    // sent bob before that answer has reached him.
    await eventually("ann's message is answered") { await ann.snapshot().unansweredRequests == 0 }
    _ = await bob.send(.setAutoAdvance(true))
    #expect(await bob.groupState.session == nil)
    #expect(await bob.groupState.participants.map(\.name) == ["bob"])
    #expect(await relay.state(ofRoom: "two")?.participants.count == 1)
    await ann.stop()
    await bob.stop()
    await relay.stop()
  }

  @Test(
    "a message .only to one participant reaches only that one, marked as such",
    arguments: TransportKind.allCases)
  func messengerOnly(kind: TransportKind) async throws {
    let relay = try await RelayHarness(kind)
    let ann = try await relay.participant("ann")
    let bob = try await relay.participant("bob")
    let cat = try await relay.participant("cat")
    let received = MessageLog()
    for (name, client) in [("bob", bob), ("cat", cat)] {
      relay.task {
        for await event in client.events {
          if case .message(_, let from, let kind, let body, let to, _) = event {
            let only = to.map { " (only \($0.map(\.rawValue).joined(separator: ",")))" } ?? ""
            await received.add("\(name)<-\(from):\(kind):\(body)\(only)")
          }
        }
      }
    }
    await eventually("ann sees everyone, and the keys they seal private messages with") {
      let people = await ann.groupState.participants
      return people.count == 3 && people.allSatisfy { $0.sealingKey != nil }
    }
    let bobID = try #require(await bob.participantID)
    await ann.sendMessage(kind: "chat", body: "psst", to: .only([bobID]))
    await ann.sendMessage(kind: "chat", body: "hello all")
    // ann's messages arrive in the order she sent them: once her last one reached both,
    // the private one can no longer reach cat.
    await ann.sendMessage(kind: "chat", body: "end")
    await eventually("the last message reaches both") {
      await received.entries.filter { $0.hasSuffix("chat:end") }.count == 2
    }
    #expect(
      await received.entries.sorted() == [
        "bob<-ann:chat:end", "bob<-ann:chat:hello all",
        "bob<-ann:chat:psst (only \(bobID.rawValue))",
        "cat<-ann:chat:end", "cat<-ann:chat:hello all",
      ])
    // What the relay keeps for bob (and feeds a successor, and writes to its store) is
    // sealed for bob: not the words.
    let runtime = try #require(relay.memory?.runtime ?? relay.server?.runtime)
    let kept = runtime.storedRooms().flatMap(\.members).flatMap(\.messages)
    let bodies = kept.compactMap { stored -> (MessageKind, String)? in
      if case .message(_, _, _, let kind, let body, _, _) = stored.message {
        (kind, body)
      } else {
        nil
      }
    }
    #expect(bodies.contains { $0.0 == .sealedPrivately }, "\(bodies.map(\.0))")
    // Said whole when it fails (it failed once, under the parallel suite, and did not
    // again in ten runs: what the relay held then is what tells why).
    let plain = bodies.filter { $0.1.contains("psst") }
    #expect(
      plain.isEmpty,
      "the relay holds the private words: \(plain.map { "\($0.0): \($0.1.prefix(300))" })")
    await ann.stop()
    await bob.stop()
    await cat.stop()
    await relay.stop()
  }

  @Test("a full room refuses with a clear error", arguments: TransportKind.allCases)
  func fullRoom(kind: TransportKind) async throws {
    var configuration = RelayHarness.fastConfiguration
    configuration.maximumParticipantsPerRoom = 1
    let relay = try await RelayHarness(kind, configuration: configuration)
    let ann = try await relay.participant("ann")
    await #expect(
      throws: ClientError.refused(code: .roomFull, message: "room lobby is full (1 participant)")
    ) {
      _ = try await relay.participant("bob")
    }
    await ann.stop()
    await relay.stop()
  }

  @Test(
    "the clock offset estimate matches the relay's true offset", arguments: TransportKind.allCases)
  func clockOffset(kind: TransportKind) async throws {
    let relay = try await RelayHarness(kind)
    let ann = try await relay.participant("ann")
    await relay.run(until: "an estimate exists", within: 1) { await ann.clockEstimate != nil }
    await relay.advance(by: 2)
    let estimate = try #require(await ann.clockEstimate)
    let truth = Double(RelayHarness.relayClockOffset) / 1e9
    // On virtual time a round trip takes no time unless a step fell inside it: the
    // estimate is exact to within its own stated uncertainty.
    #expect(abs(estimate.offset - truth) <= max(estimate.uncertainty, 1e-6))
    await ann.stop()
    await relay.stop()
  }
}

actor MessageLog {
  var entries: [String] = []
  func add(_ entry: String) { entries.append(entry) }
}

/// A note pinned to a moment, as an app might define one.
struct Note: GroupMessage, Hashable {
  static let kind: MessageKind = "note"
  var text: String
}

/// A reaction, as an app might define one.
/// A program's own message type ("reaction" is Cowatch's own kind now, with a body the
/// relay checks: a typed message of another shape under that name is refused).
struct Cheer: GroupMessage, Hashable {
  static let kind: MessageKind = "cheer"
  var emoji: String
  var at: Double
}

@Suite("Typed messenger on both transports", .serialized, .timeLimit(.minutes(1)))
struct TypedMessengerTests {
  @Test(
    "typed messages reach only subscribers of their type, decoded, in order",
    arguments: TransportKind.allCases)
  func typedMessages(kind: TransportKind) async throws {
    let relay = try await RelayHarness(kind)
    let ann = try await relay.participant("ann")
    let bob = try await relay.participant("bob")
    await eventually("ann sees bob") { await ann.groupState.participants.count == 2 }
    let reactions = await bob.messages(of: Cheer.self)
    let chats = await bob.messages(of: Note.self)
    let received = relay.task {
      var got: [ReceivedMessage<Cheer>] = []
      for await r in reactions {
        got.append(r)
        if got.count == 3 { break }
      }
      return got
    }
    let chatReceived = relay.task { () -> Note? in
      for await c in chats { return c.message }
      return nil
    }
    try await ann.send(Cheer(emoji: "👍", at: 1))
    try await ann.send(Note(text: "hello"))
    try await ann.send(Cheer(emoji: "😂", at: 2))
    try await ann.send(Cheer(emoji: "🎬", at: 3))
    let got = await received.value
    #expect(got.map(\.message.emoji) == ["👍", "😂", "🎬"])
    #expect(got.allSatisfy { $0.senderName == "ann" })
    #expect(await chatReceived.value == Note(text: "hello"))
    await ann.stop()
    await bob.stop()
    await relay.stop()
  }
}

@Suite("Commands asked for while disconnected", .serialized, .timeLimit(.minutes(1)))
struct DisconnectedCommandTests {
  @Test(
    "a command asked for while the relay is unreachable is sent on reconnection, or reported as not sent once stale"
  )
  func resendWindow() async throws {
    let relay = try await RelayHarness(.inMemory)
    let memory = try #require(relay.memory)
    let ann = try await relay.participant("ann")
    let bob = try await relay.participant("bob") { $0.resendWindow = 0.6 }
    try await ann.send(.start(series: testSeries, item: "harbour/s1e1")).get()
    await eventually("bob sees the session") { await bob.groupState.session != nil }
    try await bob.send(.join).get()
    let errors = MessageLog()
    relay.task {
      for await event in bob.events {
        if case .notice(let notice) = event { await errors.add(notice.description) }
      }
    }

    // Fresh: the seek asked for while down goes through once bob is back.
    memory.setRefusingConnections(true)
    memory.dropAllConnections()
    await eventually("bob is reconnecting") { await bob.connectionStatus == .reconnecting }
    let fresh = relay.task { await bob.seek(to: 30) }
    await eventually("bob's seek waits in his outbox") {
      await bob.snapshot().unansweredRequests > 0
    }
    await relay.advance(by: 0.1)
    memory.setRefusingConnections(false)
    await relay.run(until: "bob's seek applies after the reconnection", within: 0.5) {
      await ann.groupState.session?.timeline.itemTime == 30
    }
    _ = await fresh.value

    // Stale: a pause asked for long before the connection came back is not replayed.
    memory.setRefusingConnections(true)
    memory.dropAllConnections()
    await eventually("bob is reconnecting again") { await bob.connectionStatus == .reconnecting }
    let stale = relay.task { await bob.pause() }
    await eventually("bob's pause waits in his outbox") {
      await bob.snapshot().unansweredRequests > 0
    }
    await relay.advance(by: 1)
    memory.setRefusingConnections(false)
    await relay.run(until: "bob is back", within: 5) { await bob.connectionStatus == .connected }
    await eventually("bob is told the pause was not sent") {
      await errors.entries.contains { $0.hasPrefix("not sent: pause at") }
    }
    #expect(await ann.groupState.session?.status == .playing)
    if case .success = await stale.value { Issue.record("the stale pause must not succeed") }
    await ann.stop()
    await bob.stop()
    await relay.stop()
  }
}
