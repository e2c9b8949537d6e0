import HeadlessFront
import ParticipantRuntime
import Participation
import PlaybackCoordination
import TestSupport
import Testing
import WireProtocol

@Suite("The room's owner, on both transports", .serialized, .timeLimit(.minutes(1)))
struct RoomOwnerSessionTests {
  @Test(
    "owner-only control rejects the others' commands; stepping away still works; ownership passes on leave",
    arguments: TransportKind.allCases)
  func ownerControl(kind: TransportKind) async throws {
    let relay = try await RelayHarness(kind)
    let ann = try await relay.participant("ann")
    let bob = try await relay.participant("bob")
    let annID = try #require(await ann.participantID)
    let bobID = try #require(await bob.participantID)
    #expect(await bob.groupState.control.owner == annID)

    try await ann.send(.start(series: testSeries, item: "harbour/s1e1")).get()
    await eventually("bob sees the session") { await bob.groupState.session != nil }
    try await bob.send(.join).get()
    try await ann.send(.setPlaybackControl(.owner)).get()
    await eventually("bob hears that ann controls playback") {
      await bob.groupState.control.playback == .owner
    }
    await #expect(throws: ClientError.rejected(.ownerControlsPlayback(owner: "ann"))) {
      try await bob.send(.pause(item: "harbour/s1e1", at: 0)).get()
    }
    await #expect(throws: ClientError.rejected(.notOwner(owner: "ann"))) {
      try await bob.send(.setLocked(true)).get()
    }
    try await bob.send(.beginSuspension(.interrupted)).get()
    try await bob.send(.endSuspension(nil, proposing: nil)).get()
    try await ann.send(.pause(item: "harbour/s1e1", at: 0)).get()

    await ann.stop()
    await eventually("ownership passed to bob") { await bob.groupState.control.owner == bobID }
    #expect(await bob.groupState.control.playback == .owner, "the rule stays with the room")
    try await bob.send(.seek(item: "harbour/s1e1", to: 30)).get()
    await bob.stop()
    await relay.stop()
  }

  @Test(
    "a locked room refuses a newcomer with one clear error; a removed participant is told and gone",
    arguments: TransportKind.allCases)
  func lockAndRemove(kind: TransportKind) async throws {
    let relay = try await RelayHarness(kind)
    let ann = try await relay.participant("ann")
    let eve = try await relay.participant("eve")
    let eveID = try #require(await eve.participantID)
    try await ann.send(.setLocked(true)).get()
    await #expect(
      throws: ClientError.refused(
        code: .roomLocked,
        message: "room lobby is locked by ann: nobody new can enter until it is unlocked")
    ) {
      _ = try await relay.participant("cat")
    }
    try await ann.send(.remove(eveID)).get()
    await eventually("eve is out of the room") {
      await relay.state(ofRoom: "lobby")?.participants.map(\.name) == ["ann"]
    }
    #expect(await ann.groupState.lastChange?.kind == .removed(participant: eveID, name: "eve"))
    // eve's client stops trying: her place is gone, and the locked room would refuse her.
    await relay.run(until: "eve's client has finished", within: 1) {
      await eve.connectionStatus == .disconnected
    }
    #expect(await relay.state(ofRoom: "lobby")?.participants.map(\.name) == ["ann"])
    await eve.stop()
    await ann.stop()
    await relay.stop()
  }
}

@Suite("The owner's actions in headless words")
struct OwnerActionTests {
  @Test(
    "lock, unlock, remove NAME, control owner|everyone and owner NAME parse",
    arguments: [
      ("lock", ParticipantAction.lock(true)), ("unlock", .lock(false)),
      ("remove Eve", .remove(.named("Eve"))), ("control owner", .control(.owner)),
      ("control Everyone", .control(.everyone)), ("owner bob", .owner(.named("bob"))),
    ])
  func parses(line: String, action: ParticipantAction) throws {
    #expect(try ParticipantAction.parse(line) == action)
  }

  @Test(
    "bad owner actions are one clear error",
    arguments: ["control", "control nobody", "remove", "owner", "lock now"])
  func malformed(line: String) {
    #expect(throws: ActionParseError.self) { try ParticipantAction.parse(line) }
  }

  @Test("the actions act: by name, case-insensitively; unknown names are an error")
  func performs() async throws {
    let relay = try await RelayHarness(.inMemory)
    let ann = try await relay.participant("ann")
    let bob = try await relay.participant("Bob")
    let eve = try await relay.participant("eve")
    var performer = ActionPerformer(client: ann, catalog: [testSeries])
    for line in ["lock", "control owner", "remove eve", "owner bob"] {
      let output = await performer.perform(try ParticipantAction.parse(line))
      guard case .done = output else {
        Issue.record("\(line): \(output)")
        continue
      }
    }
    let unknown = await performer.perform(try ParticipantAction.parse("remove zed"))
    guard case .error("nobody called zed is in the room") = unknown else {
      Issue.record("remove zed: \(unknown)")
      return
    }
    let state = await bob.groupState
    #expect(
      state.control == RoomControl(owner: await bob.participantID, locked: true, playback: .owner))
    #expect(state.participants.map(\.name) == ["ann", "Bob"])
    for client in [ann, bob, eve] { await client.stop() }
    await relay.stop()
  }
}
