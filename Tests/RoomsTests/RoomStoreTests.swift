import Foundation
import PlaybackCoordination
import RelayRuntime
import RoomsTesting
import Testing
import WireProtocol

@testable import Rooms

/// ann and bob in "lobby" watching S/E1, paused at 12.345 s by ann; bob away with a
/// message from ann waiting for him; everything written to `store`.
func pausedRoom(store: any RoomStore) async throws -> (
  RelayDriver, ann: ResumeToken, bob: ResumeToken
) {
  var r = RelayDriver(store: store)
  r.hello(1, "ann")
  r.hello(2, "bob")
  let ann = try #require(r.welcome(1)).resume
  let bob = try #require(r.welcome(2)).resume
  let series = SeriesInfo(
    id: "s", title: "S", items: [ItemInfo(id: "s/e1", title: "E1", duration: 600)])
  r.send(.command(id: 1, .start(series: series, item: "s/e1")), from: 1)
  r.send(.command(id: 2, .join), from: 1)
  r.send(.command(id: 1, .join), from: 2)
  r.send(.command(id: 6, .setReadiness(.ready)), from: 1)
  r.send(.command(id: 2, .setReadiness(.ready)), from: 2)
  r.send(.command(id: 3, .play(item: nil, rate: nil)), from: 1)
  r.advance(3)
  r.send(.command(id: 4, .pause(item: nil, at: 12.345)), from: 1)
  // What the group watches next is kept too.
  r.send(.command(id: 3, .queueAdd(series: series, item: "s/e1")), from: 2)
  r.drop(2)
  r.send(.send(seq: 5, to: .all, kind: "chat", body: "while you were away"), from: 1)
  #expect(r.runtime.statistics.storeUnwritten, "changes wait for the store")
  #expect(await r.runtime.flushStore())
  #expect(!r.runtime.statistics.storeUnwritten, "all applied is stored")
  return (r, ann, bob)
}

@Suite("Room store: what the relay writes and brings back")
struct RoomStoreTests {
  @Test("what is written holds the members' public resume keys: nothing that resumes")
  func secretsHashed() async throws {
    let store = InMemoryRoomStore()
    let (r, ann, bob) = try await pausedRoom(store: store)
    let room = try #require(store.rooms.first)
    #expect(room.members.map(\.participant) == [ann.participant, bob.participant])
    #expect(room.members[0].resumeKey == r.key("ann").publicKey)
    #expect(room.members[1].resumeKey == r.key("bob").publicKey)
  }

  @Test("a relay without a store notes no changes; one with a store writes only what changed")
  func onlyChanges() async throws {
    var plain = RelayDriver()
    plain.hello(1, "ann")
    #expect(await plain.runtime.flushStore())
    #expect(plain.runtime.storeWrites.batches == 0)

    let store = InMemoryRoomStore()
    var r = RelayDriver(store: store)
    r.hello(1, "ann")
    r.hello(2, "bob")
    #expect(await r.runtime.flushStore())
    let first = store.writes
    #expect(first.batches == 1)
    #expect(first.rows == 3, "one room and two members")
    // Nothing changed: nothing written.
    #expect(await r.runtime.flushStore())
    #expect(store.writes.batches == 1)
    // A message to bob: bob's row (the message kept for him), ann's (her request's answer)
    // and the room's.
    r.send(.send(seq: 1, to: .all, kind: "chat", body: "hi"), from: 1)
    #expect(await r.runtime.flushStore())
    #expect(store.writes.rows - first.rows == 3)
    // bob leaves: his row goes; then ann: the room goes.
    r.send(.bye, from: 2)
    #expect(await r.runtime.flushStore())
    #expect(store.rooms.first?.members.map(\.name) == ["ann"])
    r.send(.bye, from: 1)
    #expect(await r.runtime.flushStore())
    #expect(store.rooms.isEmpty)
  }

  @Test("a failed write keeps the changes and the next one writes them")
  func failedWriteRetried() async throws {
    let store = InMemoryRoomStore()
    var r = RelayDriver(store: store)
    store.setFailure("disk full")
    r.hello(1, "ann")
    #expect(await r.runtime.flushStore() == false)
    #expect(store.rooms.isEmpty)
    r.hello(2, "bob")
    store.setFailure(nil)
    #expect(await r.runtime.flushStore())
    #expect(store.rooms.first?.members.map(\.name) == ["ann", "bob"])
    #expect(r.runtime.storeWrites.failures == 1)
  }

  @Test("after a restart a member resumes with its token: same id, same state, messages kept")
  func restartResumes() async throws {
    let store = InMemoryRoomStore()
    try await resumeAfterRestart { store }
  }

  @Test("after a restart a wrong secret does not resume, and a playing group plays on")
  func restartPlaying() async throws {
    let store = InMemoryRoomStore()
    var first = RelayDriver(store: store)
    first.hello(1, "ann")
    let ann = try #require(first.welcome(1)).resume
    let series = SeriesInfo(
      id: "s", title: "S", items: [ItemInfo(id: "s/e1", title: "E1", duration: 600)])
    first.send(.command(id: 1, .start(series: series, item: "s/e1")), from: 1)
    first.send(.command(id: 2, .join), from: 1)
    first.send(.command(id: 4, .setReadiness(.ready)), from: 1)
    first.send(.command(id: 3, .play(item: nil, rate: nil)), from: 1)
    first.advance(4)
    let playing = try #require(first.core.state(ofRoom: "lobby")?.session)
    #expect(playing.timeline.rate == 1)
    #expect(await first.runtime.flushStore())

    var r = RelayDriver(
      store: store, restoring: store.rooms, epoch: "second",
      at: first.now.nanoseconds + 1_500_000_000)
    r.connect(2)
    let forged = ResumeToken(participant: ann.participant, proof: Array(repeating: 0, count: 64))
    r.send(
      .hello(version: ProtocolVersion.current, name: "eve", room: "lobby", resume: forged), from: 2)
    #expect(r.welcome(2)?.resumed == false)
    #expect(r.welcome(2)?.participant != ann.participant)
    r.hello(3, "ann", resume: ann)
    let welcome = try #require(r.welcome(3))
    #expect(welcome.resumed && welcome.participant == ann.participant)
    let timeline = try #require(welcome.state.session).timeline
    #expect(timeline.rate == 1)
    let expected = playing.timeline.position(at: first.now) + 1.5
    #expect(abs(timeline.position(at: r.now) - expected) < 0.001)
  }

  @Test("after a reboot (another monotonic clock) a playing group plays on where its timeline says")
  func rebootContinuesTimeline() async throws {
    let store = InMemoryRoomStore()
    var first = RelayDriver(store: store)
    first.hello(1, "ann")
    let ann = try #require(first.welcome(1)).resume
    let series = SeriesInfo(
      id: "s", title: "S", items: [ItemInfo(id: "s/e1", title: "E1", duration: 600)])
    first.send(.command(id: 1, .start(series: series, item: "s/e1")), from: 1)
    first.send(.command(id: 2, .join), from: 1)
    first.send(.command(id: 3, .setReadiness(.ready)), from: 1)
    first.send(.command(id: 4, .play(item: nil, rate: nil)), from: 1)
    first.advance(4)
    #expect(await first.runtime.flushStore())
    let position = try #require(first.core.state(ofRoom: "lobby")?.session)
      .timeline.position(at: first.now)
    // The machine rebooted: 30 s later by the wall clock, its monotonic clock reads 12 s.
    let wall = 1_700_000_000_000_000_000 + first.now.nanoseconds + 30_000_000_000
    let now = ClockReading(group: GroupInstant(seconds: 12), wallNanoseconds: wall)
    let loaded = try await RelayRuntime.loadRooms(from: store, retention: 3600, now: now)
    #expect(loaded.clockOffset != 0)
    var r = RelayDriver(
      store: store, restoring: loaded.rooms, epoch: "rebooted",
      at: 12_000_000_000 + loaded.clockOffset)
    r.connect(2)
    r.send(
      .hello(version: ProtocolVersion.current, name: "ann", room: "lobby", resume: ann), from: 2)
    let welcome = try #require(r.welcome(2))
    #expect(welcome.resumed)
    let timeline = try #require(welcome.state.session).timeline
    #expect(abs(timeline.position(at: r.now) - (position + 30)) < 0.001)
  }

  @Test("a restored member that does not come back within the grace leaves; an empty room goes")
  func restoredMembersExpire() async throws {
    let store = InMemoryRoomStore()
    var first = RelayDriver(store: store)
    first.hello(1, "ann")
    #expect(await first.runtime.flushStore())
    var r = RelayDriver(store: store, restoring: store.rooms, epoch: "second")
    #expect(r.core.roomNames == ["lobby"])
    r.advance(RelayConfiguration().reconnectGrace + 1)
    #expect(r.core.roomNames.isEmpty)
    #expect(await r.runtime.flushStore())
    #expect(store.rooms.isEmpty)
  }

  @Test("a stored room that does not hold together is left out")
  func inconsistentRoomsLeftOut() async throws {
    let store = InMemoryRoomStore()
    var first = RelayDriver(store: store)
    first.hello(1, "ann")
    first.hello(2, "bob", room: "other")
    #expect(await first.runtime.flushStore())
    var rooms = store.rooms
    rooms[0].members[0].resumeKey = [1, 2, 3]
    var badName = rooms[1]
    badName.name = "no spaces allowed"
    var reused = rooms[1]
    reused.name = "reused"
    reused.nextNumber = 1
    let r = RelayDriver(restoring: rooms + [badName, reused])
    #expect(r.core.roomNames == ["other"])
  }

  @Test("the group clock continues across a reboot, not across wall-clock corrections")
  func clockContinuation() {
    let stored = ClockReading(
      group: GroupInstant(seconds: 5000), wallNanoseconds: 1_000_000_000_000)
    // Same boot, 10 s later, the wall clock corrected by half a second: same clock.
    let same = ClockReading(group: GroupInstant(seconds: 5010), wallNanoseconds: 1_010_500_000_000)
    #expect(ClockReading.continuation(of: stored, now: same) == 0)
    // After a reboot the monotonic clock reads 30 s, 60 s of wall time later.
    let rebooted = ClockReading(
      group: GroupInstant(seconds: 30), wallNanoseconds: 1_060_000_000_000)
    let offset = ClockReading.continuation(of: stored, now: rebooted)
    #expect(
      GroupInstant(nanoseconds: rebooted.group.nanoseconds + offset) == GroupInstant(seconds: 5060))
  }

  @Test("loading removes rooms written longer ago than the retention and gives the clock offset")
  func loadWithRetention() async throws {
    let store = InMemoryRoomStore()
    var first = RelayDriver(store: store)
    first.hello(1, "ann")
    #expect(await first.runtime.flushStore())
    let written = first.clock.nanoseconds() + 1_700_000_000_000_000_000
    let now = ClockReading(
      group: GroupInstant(seconds: 7), wallNanoseconds: written + 60_000_000_000)
    let kept = try await RelayRuntime.loadRooms(from: store, retention: 3600, now: now)
    #expect(kept.rooms.map(\.name) == ["lobby"] && kept.expired == 0)
    #expect(kept.clockOffset == first.clock.nanoseconds() + 60_000_000_000 - 7_000_000_000)
    let gone = try await RelayRuntime.loadRooms(from: store, retention: 30, now: now)
    #expect(gone.rooms.isEmpty && gone.expired == 1)
  }
}

/// The room of ``pausedRoom(store:)`` written to `store`, a relay restarted from what
/// `store` loads: bob resumes as himself, paused at 12.345 s to the millisecond, with ann's
/// message; ann's resent request is answered, not applied again; a newcomer gets a new id.
/// `open` gives the store, each time as a new process would open it.
func resumeAfterRestart(open: () throws -> any RoomStore) async throws {
  // The first relay, and its store, are gone at the end of this scope, as with a process.
  let (held, stateBefore, ann, bob, then) = try await {
    let (before, ann, bob) = try await pausedRoom(store: try open())
    let state = try #require(before.core.state(ofRoom: "lobby"))
    return (before.runtime.storedRooms(), state, ann, bob, before.now)
  }()
  let store = try open()
  let (rooms, _) = try await store.load()
  #expect(rooms == held, "the store holds what the relay held")

  // A new relay process, later on the same clock.
  var r = RelayDriver(
    store: store, restoring: rooms, epoch: "second", at: then.nanoseconds + 2_000_000_000)
  let restored = try #require(r.core.state(ofRoom: "lobby"))
  #expect(restored.session?.timeline == stateBefore.session?.timeline)
  #expect(restored.queue.map(\.item) == ["s/e1"] && restored.queue == stateBefore.queue)
  #expect(restored.queueCounter == 1)
  #expect(restored.participants.allSatisfy { !$0.isConnected }, "everyone is away until back")
  #expect(restored.sequence > stateBefore.sequence)

  r.hello(3, "bob", resume: ResumeToken(participant: bob.participant, messagesReceived: 0))
  let welcome = try #require(r.welcome(3))
  #expect(welcome.resumed)
  #expect(welcome.participant == bob.participant)
  #expect(welcome.relayEpoch == "second")
  #expect(welcome.resume == ResumeToken(participant: bob.participant))
  let position = try #require(welcome.state.session).timeline.position(at: r.now)
  #expect(abs(position - 12.345) < 0.0005, "paused at the same item time to the millisecond")
  let got = (r.outbox[ConnectionID(3)] ?? []).compactMap {
    if case .message(_, _, _, _, let b, _, _) = $0 { b } else { nil }
  }
  #expect(got == ["while you were away"])

  // ann's request 4 (the pause) resent: answered again, not applied twice.
  r.connect(4)
  r.send(
    .hello(version: ProtocolVersion.current, name: "ann", room: "lobby", resume: ann), from: 4)
  let sequence = try #require(r.lastState(4)).sequence
  r.send(.command(id: 4, .pause(item: nil, at: 12.345)), from: 4)
  #expect(r.accepted(4) == [4])
  #expect(r.lastState(4)?.sequence == sequence)

  // A newcomer does not get a number already given.
  r.hello(5, "carol")
  #expect(r.welcome(5)?.participant == ParticipantID("p3"))
}

@Suite("Room store: a member's stored answers")
struct StoredAnswerTests {
  @Test(
    "only the latest answers are stored; older ids are refused as forgotten, never applied again")
  func latestAnswersOnly() async throws {
    let store = InMemoryRoomStore()
    var first = RelayDriver(store: store)
    first.hello(1, "ann")
    let ann = try #require(first.welcome(1)).resume
    let count = UInt64(RelayCore.storedAnswers) + 8
    for id in 1...count {
      first.send(.command(id: id, .setAutoAdvance(id % 2 == 0)), from: 1)
    }
    #expect(await first.runtime.flushStore())
    let member = try #require(store.rooms.first?.members.first)
    #expect(member.answers.count == RelayCore.storedAnswers)
    #expect(member.answerFloor == count - UInt64(RelayCore.storedAnswers))
    // Compact: an accepted answer is its id and sequence.
    let json = String(decoding: try JSONEncoder().encode(member.answers[0]), as: UTF8.self)
    #expect(json.contains(#""i":"#) && json.contains(#""s":"#) && json.count < 32, "\(json)")
    #expect(try JSONDecoder().decode(StoredAnswer.self, from: Data(json.utf8)) == member.answers[0])

    var r = RelayDriver(store: store, restoring: store.rooms, epoch: "second")
    r.connect(2)
    r.send(
      .hello(version: ProtocolVersion.current, name: "ann", room: "lobby", resume: ann), from: 2)
    let sequence = try #require(r.lastState(2)).sequence
    r.send(.command(id: count, .setAutoAdvance(false)), from: 2)
    r.send(.command(id: 1, .setAutoAdvance(true)), from: 2)
    #expect(r.accepted(2) == [count], "the latest is answered again")
    #expect(r.rejections(2).map(\.0) == [1], "an old one is refused as forgotten")
    #expect(r.lastState(2)?.sequence == sequence, "neither applied again")
  }
}
