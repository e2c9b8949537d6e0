import PlaybackCoordination
import RoomCrypto
import RoomsTesting
import Testing
import WireProtocol

@testable import Rooms

/// The room's recent conversation, kept for people who enter later.
@Suite("Relay core: the room's backlog for newcomers")
struct BacklogRelayTests {
  /// The payloads connection `id` was sent, as (body, earlier), in order.
  static func messages(_ r: RelayDriver, _ id: UInt64) -> [(body: String, earlier: Bool)] {
    (r.outbox[ConnectionID(id)] ?? []).compactMap {
      if case .message(_, _, _, _, let body, _, let earlier) = $0 { (body, earlier) } else { nil }
    }
  }

  static func reaction(_ text: String, at: Double = 754.2) -> String {
    Reaction(text: text, at: at).body
  }

  @Test(
    "a newcomer gets the room's chat and reactions once, in order, marked earlier, right after its welcome; private and unkept payloads are not among them"
  )
  func newcomerGetsBacklog() throws {
    var r = RelayDriver()
    r.hello(1, "ann")
    r.hello(2, "bob")
    let bob = try #require(r.welcome(2)).participant
    r.send(.send(seq: 1, to: .all, kind: .chat, body: "popcorn ready", keep: true), from: 1)
    r.send(.send(seq: 2, to: .only([bob]), kind: .chat, body: "psst"), from: 1)
    r.send(
      .send(seq: 3, to: .all, kind: .reaction, body: Self.reaction("😂"), keep: true), from: 2)
    r.send(.send(seq: 4, to: .all, kind: "lend", body: "not conversation"), from: 1)
    r.send(.send(seq: 5, to: .all, kind: .chat, body: "unkept"), from: 1)
    #expect(r.accepted(1) == [1, 2, 4, 5])
    #expect(r.accepted(2) == [3])

    r.hello(3, "cat")
    let outbox = r.outbox[ConnectionID(3)] ?? []
    guard case .welcome = outbox.first else {
      Issue.record("the welcome comes first")
      return
    }
    let earlier = Self.messages(r, 3)
    #expect(earlier.map(\.body) == ["popcorn ready", Self.reaction("😂")])
    #expect(earlier.allSatisfy { $0.earlier })
    // Right after the welcome: before the room hears of the newcomer's step.
    #expect(
      outbox.dropFirst().prefix(2).allSatisfy { if case .message = $0 { true } else { false } })

    // Live payloads after that are not earlier, and the backlog is not sent again.
    r.send(.send(seq: 6, to: .all, kind: .chat, body: "hi cat", keep: true), from: 1)
    #expect(Self.messages(r, 3).map(\.body) == ["popcorn ready", Self.reaction("😂"), "hi cat"])
    #expect(Self.messages(r, 3).last?.earlier == false)
    // Those already in the room never get the backlog.
    #expect(Self.messages(r, 2).allSatisfy { !$0.earlier })
  }

  @Test("the backlog keeps the latest within its count and its bytes, the oldest dropped first")
  func bounded() {
    var c = RelayConfiguration()
    c.maximumBacklogMessages = 3
    var r = RelayDriver(c)
    r.hello(1, "ann")
    for n in 1...5 {
      r.send(.send(seq: UInt64(n), to: .all, kind: .chat, body: "line \(n)", keep: true), from: 1)
    }
    r.hello(2, "bob")
    #expect(Self.messages(r, 2).map(\.body) == ["line 3", "line 4", "line 5"])

    var bytes = RelayConfiguration()
    bytes.maximumBacklogBytes = 1000
    var s = RelayDriver(bytes)
    s.hello(1, "ann")
    let long = String(repeating: "x", count: 400)
    s.send(.send(seq: 1, to: .all, kind: .chat, body: "a" + long, keep: true), from: 1)
    s.send(.send(seq: 2, to: .all, kind: .chat, body: "b" + long, keep: true), from: 1)
    s.send(.send(seq: 3, to: .all, kind: .chat, body: "c" + long, keep: true), from: 1)
    // Larger than the whole budget: delivered, never kept.
    s.send(
      .send(seq: 4, to: .all, kind: .chat, body: String(repeating: "y", count: 2000), keep: true),
      from: 1)
    #expect(s.accepted(1) == [1, 2, 3, 4])
    s.hello(2, "bob")
    #expect(Self.messages(s, 2).map { $0.body.prefix(1) } == ["b", "c"])
  }

  @Test(
    "keep is refused with one clear reason for a private payload, a kind that is not conversation, or a reaction out of bounds, and nothing is delivered",
    arguments: [
      (Recipients.only(["p2"]), MessageKind.chat, "psst", "some people only"),
      (.all, "lend", "x", "only chat and reactions"),
      (.all, .reaction, #"{"text":"one two three four five six","at":3}"#, "at most 5 words"),
      (.all, .reaction, #"{"text":"😂","at":-1}"#, "not a time in the film"),
      (.all, .reaction, "😂", "is not {"),
      (.all, .reaction, #"{"text":"\#(String(repeating: "ab", count: 21))","at":3}"#, "40 bytes"),
    ])
  func refused(to: Recipients, kind: MessageKind, body: String, why: String) {
    var r = RelayDriver()
    r.hello(1, "ann")
    r.hello(2, "bob")
    r.send(.send(seq: 1, to: to, kind: kind, body: body, keep: true), from: 1)
    #expect(r.rejections(1).map(\.0) == [1])
    #expect(r.rejections(1).first?.1.contains(why) == true, "\(r.rejections(1))")
    #expect(Self.messages(r, 2).isEmpty)
    #expect(!r.closed.contains(ConnectionID(1)))
    r.hello(3, "cat")
    #expect(Self.messages(r, 3).isEmpty)
  }

  @Test("a keep flag that is not true or false is a malformed line, never a kept payload")
  func garbageFlag() throws {
    let line =
      #"{"type":"send","seq":1,"to":{"type":"all"},"kind":"chat","body":"hi","keep":"yes"}"#
    #expect(throws: WireError.self) { try WireCodec().decodeClient(Array(line.utf8)) }
    let plain = #"{"type":"send","seq":1,"to":{"type":"all"},"kind":"chat","body":"hi"}"#
    #expect(
      try WireCodec().decodeClient(Array(plain.utf8))
        == .send(seq: 1, to: .all, kind: .chat, body: "hi", keep: false))
  }

  @Test("a member that resumes gets neither the backlog again nor a duplicate of it")
  func resumeDoesNotRepeat() throws {
    var r = RelayDriver()
    r.hello(1, "ann")
    r.send(.send(seq: 1, to: .all, kind: .chat, body: "before bob", keep: true), from: 1)
    r.hello(2, "bob")
    let token = try #require(r.welcome(2)).resume
    #expect(Self.messages(r, 2).map(\.body) == ["before bob"])
    r.drop(2)
    r.send(.send(seq: 2, to: .all, kind: .chat, body: "while away", keep: true), from: 1)
    // bob says it received the one earlier payload: only what came meanwhile is resent.
    r.hello(
      3, "bob",
      resume: ResumeToken(participant: token.participant, messagesReceived: 1))
    #expect(r.welcome(3)?.resumed == true)
    #expect(Self.messages(r, 3).map(\.body) == ["while away"])
    #expect(Self.messages(r, 3).allSatisfy { !$0.earlier })
  }

  @Test(
    "in a room with a password the backlog holds sealed payloads as sent, opaque to the relay, and a newcomer gets them sealed"
  )
  func sealedKeptOpaque() throws {
    var r = RoomPasswordRelayTests.protectedRoom()
    let keys = RoomPasswordRelayTests.keys
    let ann = try #require(r.welcome(1)).participant
    let sealed = keys.seal(
      kind: .reaction, body: Self.reaction("😮"), room: "movie-night", sender: ann.rawValue)
    r.send(.send(seq: 1, to: .all, kind: RoomKeys.sealedKind, body: sealed, keep: true), from: 1)
    // Not sealed: refused in a room with a password, kept or not.
    r.send(.send(seq: 2, to: .all, kind: .chat, body: "in the clear", keep: true), from: 1)
    #expect(r.accepted(1) == [1])
    RoomPasswordRelayTests.enter(&r, 2, "bob", with: keys)
    let got = (r.outbox[ConnectionID(2)] ?? []).compactMap {
      if case .message(let from, _, _, let kind, let body, nil, true) = $0 {
        (from, kind, body)
      } else {
        nil
      }
    }
    #expect(got.count == 1)
    #expect(got.first?.1 == RoomKeys.sealedKind && got.first?.2 == sealed)
    let opened = try keys.open(
      try #require(got.first?.2), room: "movie-night", sender: ann.rawValue)
    #expect(opened.kind == .reaction)
  }

  @Test("the backlog is stored with the room and comes back with it, within its bounds")
  func stored() async throws {
    let store = InMemoryRoomStore()
    var r = RelayDriver(store: store)
    r.hello(1, "ann")
    r.send(.send(seq: 1, to: .all, kind: .chat, body: "kept across restarts", keep: true), from: 1)
    #expect(await r.runtime.flushStore())
    let room = try #require(store.rooms.first)
    #expect(room.backlog.count == 1)

    var again = RelayDriver(store: store, restoring: store.rooms, epoch: "second")
    again.hello(5, "dan")
    #expect(Self.messages(again, 5).map(\.body) == ["kept across restarts"])
    #expect(Self.messages(again, 5).allSatisfy { $0.earlier })
  }

  @Test(
    "a successor's copy of the room holds the backlog: in the whole room, and fed as it changes")
  func fedToSuccessors() throws {
    var core = RelayCore(feedsSuccessors: true)
    let now = GroupInstant(seconds: 100)
    _ = core.connected(ConnectionID(1), at: now)
    _ = core.received(
      .hello(version: ProtocolVersion.current, name: "ann", room: "lobby", resume: nil),
      from: ConnectionID(1), at: now)
    _ = core.received(
      .send(seq: 1, to: .all, kind: .chat, body: "for the copy", keep: true),
      from: ConnectionID(1), at: now)
    var copy: StoredRoom?
    for change in core.wholeRoom("lobby") { copy = StoredRoom.applying(change, to: copy) }
    #expect(copy?.backlog.count == 1)
    #expect(copy?.backlog == core.storedRooms().first?.backlog)
    // A later change carries the backlog only when it changed; applied, the copy keeps it.
    let unchanged = RoomChange(
      name: "lobby", state: nil, nextNumber: 2, members: [], departed: [])
    #expect(StoredRoom.applying(unchanged, to: copy).backlog.count == 1)
  }
}
