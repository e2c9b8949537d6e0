import Clocks
import LineFraming
import PlaybackCoordination
import RelayRuntime
import Testing
import WireProtocol

@testable import Rooms

@Suite("Relay core: each request applies once")
struct RequestWindowTests {
  @Test("a later id arriving first does not make an earlier one a duplicate: both apply")
  func overtakingIDsBothApply() throws {
    var r = RelayDriver()
    r.hello(1, "ann")
    r.send(.command(id: 5, .setAutoAdvance(true)), from: 1)
    r.send(.command(id: 4, .setAutoAdvance(false)), from: 1)
    #expect(r.accepted(1) == [5, 4])
    let ann = try #require(r.welcome(1)).participant
    #expect(r.core.state(ofRoom: "lobby")?.participant(ann)?.autoAdvance == false)
  }

  @Test("a resent request gets the answer it got the first time and changes nothing")
  func resentRequestIsAnsweredAgain() throws {
    var r = RelayDriver()
    r.hello(1, "ann")
    r.hello(2, "bob")
    r.send(.command(id: 1, .setAutoAdvance(true)), from: 1)
    r.send(.command(id: 2, .join), from: 1)  // no session: rejected
    r.send(.send(seq: 3, to: .all, kind: "chat", body: "hi"), from: 1)
    let before = r.core.state(ofRoom: "lobby")
    r.drop(1)
    r.connect(3)
    let resume = r.welcome(1)?.resume
    r.send(
      .hello(version: ProtocolVersion.current, name: "ann", room: "lobby", resume: resume), from: 3)
    r.outbox[ConnectionID(3)] = []
    r.send(.command(id: 1, .setAutoAdvance(true)), from: 3)
    r.send(.command(id: 2, .join), from: 3)
    r.send(.send(seq: 3, to: .all, kind: "chat", body: "hi"), from: 3)
    #expect(r.accepted(3) == [1, 3])
    #expect(r.rejections(3).map(\.0) == [2])
    // Only the disconnection and the return were sequenced since.
    #expect(r.core.state(ofRoom: "lobby")?.sequence == (before?.sequence ?? 0) + 2)
    let hi = (r.outbox[ConnectionID(2)] ?? []).filter {
      if case .message = $0 { true } else { false }
    }
    #expect(hi.count == 1)
  }

  @Test("expire settles a request: the old answer if it applied, a refusal (never applied) if not")
  func expireSettles() throws {
    var r = RelayDriver()
    r.hello(1, "ann")
    r.send(.command(id: 1, .setAutoAdvance(true)), from: 1)
    r.send(.expire(id: 1), from: 1)
    r.send(.expire(id: 2), from: 1)
    r.send(.command(id: 2, .setAutoAdvance(false)), from: 1)
    #expect(r.accepted(1) == [1, 1])
    #expect(r.rejections(1).map(\.0) == [2, 2])
    let ann = try #require(r.welcome(1)).participant
    #expect(r.core.state(ofRoom: "lobby")?.participant(ann)?.autoAdvance == true)
  }

  @Test("ids older than the window are refused, not applied again")
  func forgottenIDs() {
    var c = RelayConfiguration()
    c.requestWindow = 4
    var r = RelayDriver(c)
    r.hello(1, "ann")
    for id in 1...10 as ClosedRange<UInt64> {
      r.send(.command(id: id, .setAutoAdvance(id % 2 == 0)), from: 1)
    }
    r.send(.command(id: 2, .setAutoAdvance(false)), from: 1)
    r.send(.command(id: 9, .setAutoAdvance(false)), from: 1)
    #expect(r.rejections(1).map(\.0) == [2])
    #expect(r.accepted(1).suffix(1) == [9])
  }
}

@Suite("Request window: what it keeps")
struct RequestWindowStorageTests {
  @Test("a remembered answer is a few words, not a whole server message")
  func compactAnswers() {
    // Every member keeps up to 512 of them: at the size of a `ServerMessage` (whose
    // largest case holds a room state) a full window would cost far more.
    #expect(MemoryLayout<RequestWindow.Answer>.size <= 48)
    #expect(MemoryLayout<RequestWindow.Answer>.size * 4 < MemoryLayout<ServerMessage>.size)
  }

  @Test("what comes back is the answer given, with its id")
  func roundTrip() {
    var window = RequestWindow(capacity: 4)
    window.record(7, .accepted(id: 7, sequence: 42))
    window.record(8, .rejected(id: 8, reason: .noSession))
    window.record(9, .error(code: .rateLimited, message: "slow down", fatal: false))
    #expect(window.lookup(7) == .answered(.accepted(id: 7, sequence: 42)))
    #expect(window.lookup(8) == .answered(.rejected(id: 8, reason: .noSession)))
    #expect(
      window.lookup(9) == .answered(.error(code: .rateLimited, message: "slow down", fatal: false)))
    #expect(window.lookup(10) == .new)
  }
}

@Suite("Relay core: resume proofs")
struct ResumeSecretTests {
  @Test("nonces are 128 bits from the system generator, all different")
  func secretsAreUnguessable() {
    let secrets = (0..<1000).map { _ in RelayCore.systemSecret() }
    #expect(Set(secrets).count == 1000)
    #expect(secrets.allSatisfy { $0.count == 32 && $0.allSatisfy(\.isHexDigit) })
  }

  /// The trust issue: resume secrets travelled in every hello, so whoever ran the room
  /// once could later resume as anyone. A proof is signed by the member's own key and names
  /// the relay it is sent to.
  @Test(
    "one member's key does not resume another, a proof for another relay is no good, and a wrong proof never takes a place"
  )
  func wrongSecret() throws {
    var r = RelayDriver()
    r.hello(1, "ann")
    r.hello(2, "bob")
    let ann = try #require(r.welcome(1))
    // Signed by bob's key for ann's place.
    r.connect(3)
    let forged = ResumeToken(
      participant: ann.participant,
      proof: r.key("bob").prove(room: "lobby", participant: ann.participant, relay: nil))
    r.send(
      .hello(version: ProtocolVersion.current, name: "eve", room: "lobby", resume: forged), from: 3)
    #expect(r.welcome(3)?.participant != ann.participant)
    #expect(!r.closed.contains(ConnectionID(1)), "ann keeps her connection")
    // ann's own key, but a proof addressed to another relay (one that read it there).
    r.connect(4)
    let elsewhere = ResumeToken(
      participant: ann.participant,
      proof: r.key("ann").prove(
        room: "lobby", participant: ann.participant,
        relay: "SHA256:abmOIWy7CgJ+6oZX+WXUTp0BhKjFb29w+GzQ7fYFvKo"))
    r.send(
      .hello(version: ProtocolVersion.current, name: "eve", room: "lobby", resume: elsewhere),
      from: 4)
    #expect(r.welcome(4)?.participant != ann.participant)
    // Another room's proof.
    r.connect(5)
    let otherRoom = ResumeToken(
      participant: ann.participant,
      proof: r.key("ann").prove(room: "other", participant: ann.participant, relay: nil))
    r.send(
      .hello(version: ProtocolVersion.current, name: "eve", room: "lobby", resume: otherRoom),
      from: 5)
    #expect(r.welcome(5)?.participant != ann.participant)
    #expect(!r.closed.contains(ConnectionID(1)), "ann keeps her connection")
    // Her own proof takes her place.
    r.hello(6, "ann", resume: ResumeToken(participant: ann.participant))
    #expect(r.welcome(6)?.participant == ann.participant && r.welcome(6)?.resumed == true)
  }

  @Test("the welcome carries no secret, and the relay keeps only the public key")
  func nothingSecretKept() throws {
    var r = RelayDriver()
    r.hello(1, "ann")
    let welcome = try #require(r.welcome(1))
    #expect(welcome.resume.proof.isEmpty)
    let stored = try #require(r.runtime.storedRooms().first?.members.first)
    #expect(stored.resumeKey == r.key("ann").publicKey)
  }
}

@Suite("Relay core: a relay that did not run")
struct RelayStallTests {
  @Test("a relay stopped for 8 s (past the 6 s heartbeat timeout) drops nobody when it runs again")
  func stallDropsNobody() throws {
    var r = RelayDriver()
    r.hello(1, "ann")
    r.hello(2, "bob")
    r.advance(1)
    r.stall(8)
    r.advance(1)
    #expect(r.closed.isEmpty)
    #expect(r.core.state(ofRoom: "lobby")?.participants.count == 2)
    // Still measured while it runs: silent members go after the timeout as before.
    r.advance(7)
    #expect(r.closed == [ConnectionID(1), ConnectionID(2)])
  }
}

@Suite("Relay core: names in a room")
struct RoomNameTests {
  @Test("a name taken after case folding or normalisation is refused; others are unaffected")
  func takenNames() {
    var r = RelayDriver()
    r.hello(1, "Ann")
    for (i, name) in ["ann", "ＡＮＮ", " ANN "].enumerated() {
      let c = UInt64(10 + i)
      r.hello(c, name)
      #expect(r.welcome(c) == nil)
      #expect(r.errors(c) == [.invalidHello])
      #expect(r.closed.contains(ConnectionID(c)))
    }
    r.hello(2, "anne")
    #expect(r.welcome(2) != nil)
    #expect(r.core.state(ofRoom: "lobby")?.participants.map(\.name) == ["Ann", "anne"])
  }

  @Test("a bidi override in a name is refused before anyone sees it")
  func bidi() {
    var r = RelayDriver()
    r.hello(1, "\u{202E}nna")
    #expect(r.errors(1) == [.invalidHello])
    #expect(r.core.roomNames.isEmpty)
  }
}

@Suite("Relay log text")
struct RelayLogTextTests {
  @Test("a peer cannot forge log lines or drive a terminal through the relay's log")
  func escaped() {
    let text = RelayRuntime.loggable("unknown type \"x\n2026 forged line\u{1B}[31m\u{202E}\"")
    #expect(!text.contains("\n"))
    #expect(!text.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x202E })
    #expect(text.contains("\\u{a}2026 forged line\\u{1b}[31m\\u{202e}"))
    #expect(RelayRuntime.loggable(String(repeating: "x", count: 10_000)).count == 301)
  }
}

@Suite("Relay core: resync is coalesced")
struct ResyncTests {
  @Test("a flood of resyncs gets one whole state now and one more a second later, not one each")
  func coalesced() {
    var c = RelayConfiguration()
    c.messageBurst = 1000
    var r = RelayDriver(c)
    r.hello(1, "ann")
    func updates() -> Int {
      (r.outbox[ConnectionID(1)] ?? []).filter { if case .update = $0 { true } else { false } }
        .count
    }
    for _ in 0..<500 { r.send(.resync, from: 1) }
    #expect(updates() == 1)
    r.advance(0.5)
    #expect(updates() == 1)
    r.advance(0.7)
    #expect(updates() == 2)
    r.advance(3)
    #expect(updates() == 2, "nothing more was asked")
  }
}

@Suite("Relay core: messages for someone away")
struct AwayMessageTests {
  @Test("past the limit, the sender is told what was dropped and the member how many it missed")
  func overflowIsReported() throws {
    var c = RelayConfiguration()
    c.maximumPendingMessages = 3
    c.messageBurst = 1000
    var r = RelayDriver(c)
    r.hello(1, "ann")
    r.hello(2, "bob")
    let bob = try #require(r.welcome(2))
    r.drop(2)
    for i in 1...5 as ClosedRange<UInt64> {
      r.send(.send(seq: i, to: .all, kind: "chat", body: "m\(i)"), from: 1)
    }
    let told = (r.outbox[ConnectionID(1)] ?? []).compactMap { m -> String? in
      if case .error(.messagesLost, let text, false) = m { text } else { nil }
    }
    #expect(told.count == 2)
    #expect(told.first?.contains("1 of your messages to bob was dropped") == true)
    var token = bob.resume
    token.messagesReceived = 0
    r.hello(3, "bob", resume: token)
    let back = r.outbox[ConnectionID(3)] ?? []
    let bodies = back.compactMap { m -> String? in
      if case .message(_, _, _, _, let body, _, _) = m { body } else { nil }
    }
    #expect(bodies == ["m3", "m4", "m5"])
    #expect(
      back.contains {
        if case .error(.messagesLost, let t, false) = $0 {
          t.hasPrefix("2 messages")
        } else {
          false
        }
      })
  }
}

@Suite("Relay runtime: connection caps")
struct ConnectionCapTests {
  @Test("past the per-address cap a connection is refused with a clear error; others still get in")
  func perAddress() throws {
    var c = RelayConfiguration()
    c.maximumConnectionsPerAddress = 2
    c.maximumConnections = 3
    let runtime = RelayRuntime(configuration: c, clock: ManualClock(), epoch: "t")
    let outlets = (0..<5).map { _ in RelayDriver.RecordingOutlet() }
    let a = runtime.open(outlets[0], address: "192.0.2.1")
    _ = runtime.open(outlets[1], address: "192.0.2.1")
    #expect(runtime.open(outlets[2], address: "192.0.2.1") == nil)
    let refusal = String(decoding: outlets[2].lines.withLock { $0.first ?? [] }, as: UTF8.self)
    #expect(refusal.contains("tooManyConnections") && refusal.contains("too many connections"))
    #expect(outlets[2].closed.withLock { $0 })
    #expect(runtime.open(outlets[3], address: "198.51.100.7") != nil, "another address gets in")
    #expect(runtime.open(outlets[4], address: "198.51.100.8") == nil, "the relay is full")
    runtime.closed(try #require(a))
    #expect(runtime.open(RelayDriver.RecordingOutlet(), address: "192.0.2.1") != nil)
  }
}

@Suite("Relay: empty-line floods")
struct EmptyLineFloodTests {
  @Test("empty lines count against the rate limit: a flood closes its own connection only")
  func emptyLinesAreCounted() {
    var r = RelayDriver()
    r.hello(1, "ann")
    r.hello(2, "bob")
    r.sendLines(Array(repeating: [], count: 100), from: 1)
    #expect(r.errors(1).isEmpty, "a few are harmless")
    r.sendLines(Array(repeating: [], count: 10_000), from: 1)
    #expect(r.errors(1) == [.rateLimited])
    #expect(r.closed == [ConnectionID(1)])
    r.send(.command(id: 1, .setAutoAdvance(true)), from: 2)
    #expect(r.accepted(2) == [1], "bob is served as before")
  }

  @Test("the TCP framer hands empty lines to the relay; clients' framers skip them")
  func framerModes() throws {
    var relaySide = LineFramer(maximumFrameBytes: 10, emitsEmptyLines: true)
    relaySide.append(Array("\n\r\nx\n".utf8))
    #expect(try relaySide.nextFrame() == [])
    #expect(try relaySide.nextFrame() == [])
    #expect(try relaySide.nextFrame() == Array("x".utf8))
    var clientSide = LineFramer(maximumFrameBytes: 10)
    clientSide.append(Array("\n\r\nx\n".utf8))
    #expect(try clientSide.nextFrame() == Array("x".utf8))
  }
}
