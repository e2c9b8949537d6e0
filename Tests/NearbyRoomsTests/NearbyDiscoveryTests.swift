import Invites
import Testing

@testable import NearbyRooms

/// The responder and the browser, talking through messages that go through the codec, as on
/// the network.
@Suite struct NearbyDiscoveryTests {
  static let fingerprint = "SHA256:" + String(repeating: "q", count: 42) + "E"
  let room = NearbyRoom(
    room: "movie-night", host: "ann", machine: "annslaptop", port: 7700,
    addresses: ["192.168.1.5", "10.0.0.7"], fingerprint: fingerprint, password: false,
    people: 2)
  let second = 1_000_000_000 as UInt64

  /// `message` as another machine receives it.
  func wire(_ message: DNSMessage) throws -> DNSMessage {
    try DNSMessage.decode(message.encoded())
  }

  @Test func aQueryIsAnsweredWithAllItTakesToJoin() throws {
    var responder = NearbyResponder()
    _ = responder.advertise([room], at: 0)
    let answers = responder.answer(try wire(NearbyBrowser.query), at: 2 * second)
    #expect(answers.count == 1)
    var browser = NearbyBrowser()
    let events = try answers.flatMap { browser.receive(try wire($0), from: "10.0.0.7", at: 0) }
    var expected = room
    expected.addresses = ["10.0.0.7", "192.168.1.5"]  // the one it came from first
    #expect(events == [.appeared(expected)])
    #expect(
      expected.link.text.hasPrefix("cowatch://movie-night@10.0.0.7:7700,192.168.1.5:7700/fp="))
    #expect(browser.rooms.first?.machine == "annslaptop")
  }

  @Test func roomsAreAnnouncedTwiceAndSaidGoodbyeTo() throws {
    var responder = NearbyResponder()
    var browser = NearbyBrowser()
    let first = responder.advertise([room], at: 0)
    #expect(first.count == 1)
    #expect(responder.nextDeadline == second)
    #expect(responder.tick(at: second / 2).isEmpty)
    let again = responder.tick(at: second)
    #expect(again == first)
    #expect(responder.nextDeadline == nil)
    _ = try browser.receive(wire(first[0]), from: "192.168.1.5", at: 0)
    #expect(browser.rooms.count == 1)
    // Someone joined: the count changes, announced again.
    var fuller = room
    fuller.people = 3
    let changed = responder.advertise([fuller], at: 2 * second)
    let events = try changed.flatMap {
      browser.receive(try wire($0), from: "192.168.1.5", at: 2 * second)
    }
    #expect(events.count == 1)
    guard case .changed(let now)? = events.first else {
      Issue.record("expected a change, got \(events)")
      return
    }
    #expect(now.people == 3)
    // The room closes: goodbye, and the browser lets it go at once.
    let goodbye = responder.advertise([], at: 3 * second)
    #expect(goodbye.count == 1)
    #expect(goodbye[0].answers.allSatisfy { $0.ttl == 0 })
    let left = try browser.receive(wire(goodbye[0]), from: "192.168.1.5", at: 3 * second)
    #expect(left.count == 1)
    #expect(browser.rooms.isEmpty)
  }

  @Test func roomsWithoutAGoodbyeExpire() throws {
    var responder = NearbyResponder()
    var browser = NearbyBrowser()
    let announcement = responder.advertise([room], at: 0)[0]
    _ = try browser.receive(wire(announcement), from: "192.168.1.5", at: 0)
    #expect(browser.tick(at: 119 * second).isEmpty)
    let events = browser.tick(at: 120 * second)
    #expect(events.count == 1)
    #expect(browser.rooms.isEmpty)
  }

  @Test func stopSaysGoodbyeToEveryRoom() {
    var responder = NearbyResponder()
    var other = room
    other.room = "quiz"
    _ = responder.advertise([room, other], at: 0)
    let goodbyes = responder.stop()
    #expect(goodbyes.count == 2)
    #expect(responder.rooms.isEmpty)
    #expect(responder.nextDeadline == nil)
  }

  @Test func knownAnswersAreNotRepeated() throws {
    var responder = NearbyResponder()
    _ = responder.advertise([room], at: 0)
    var query = NearbyBrowser.query
    query.answers = [room.records().pointer]
    #expect(responder.answer(try wire(query), at: 2 * second).isEmpty)
    // Held for less than half its time: answered again.
    query.answers = [room.records(ttl: 30).pointer]
    #expect(responder.answer(try wire(query), at: 2 * second).count == 1)
  }

  /// A flood of queries gets four answers a second per room, not one per query.
  @Test func aFloodOfQueriesIsAnsweredOnceASecond() throws {
    var responder = NearbyResponder()
    _ = responder.advertise([room], at: 0)
    // Just announced: answered all the same (the asker may have started since).
    #expect(responder.answer(try wire(NearbyBrowser.query), at: second / 5).count == 1)
    var answered = 0
    for tick in 0..<1000 {
      answered += responder.answer(NearbyBrowser.query, at: second + UInt64(tick) * 1_000_000).count
    }
    #expect(answered == 4)  // at 1, 1.25, 1.5 and 1.75 s
  }

  @Test func theServiceTypeIsListed() throws {
    var responder = NearbyResponder()
    _ = responder.advertise([room], at: 0)
    let query = DNSMessage(
      isResponse: false, questions: [DNSQuestion(name: NearbyRoom.serviceTypes, type: .ptr)])
    let answers = responder.answer(try wire(query), at: 2 * second)
    #expect(answers.first?.answers.first?.data == .ptr(NearbyRoom.serviceType))
  }

  @Test func anInstanceAskedForByNameIsAnswered() throws {
    var responder = NearbyResponder()
    _ = responder.advertise([room], at: 0)
    let query = DNSMessage(
      isResponse: false, questions: [DNSQuestion(name: room.instance, type: .any)])
    let answers = responder.answer(try wire(query), at: 2 * second)
    #expect(answers.count == 1)
    #expect(answers[0].answers.contains { $0.type == .srv })
    #expect(answers[0].answers.contains { $0.type == .txt })
  }

  @Test func aRelayWithoutTLSAndAPasswordRoomReadBack() throws {
    var plain = room
    plain.fingerprint = nil
    plain.password = true
    plain.host = nil
    var responder = NearbyResponder()
    var browser = NearbyBrowser()
    let events = try responder.advertise([plain], at: 0).flatMap {
      browser.receive(try wire($0), from: "192.168.1.5", at: 0)
    }
    guard case .appeared(let found)? = events.first else {
      Issue.record("nothing found: \(events)")
      return
    }
    #expect(found.fingerprint == nil)
    #expect(found.password)
    #expect(found.host == nil)
    #expect(found.link.plain)
  }

  /// What a stranger on the network might advertise: nothing of it becomes a room.
  @Test func advertisementsThatAreNotRoomsAreIgnored() throws {
    let broken: [(String, (inout [[UInt8]]) -> Void)] = [
      ("a room name against the rule", { $0[2] = Array("room=movie night; rm -rf".utf8) }),
      ("no room", { $0.remove(at: 2) }),
      ("a fingerprint cut short", { $0[$0.count - 1] = Array("fp=abc".utf8) }),
      ("no fingerprint and no tls=0", { $0.removeLast() }),
      ("no version", { $0[1] = Array("x=1".utf8) }),
      ("a version that is no number", { $0[1] = Array("v=nine".utf8) }),
    ]
    for (what, change) in broken {
      var message = NearbyResponder.announcement(room, ttl: 120)
      for index in message.answers.indices {
        if case .txt(var entries) = message.answers[index].data {
          change(&entries)
          message.answers[index].data = .txt(entries)
        }
      }
      var browser = NearbyBrowser()
      let events = browser.receive(try wire(message), from: "192.168.1.5", at: 0)
      #expect(events.isEmpty, "\(what)")
    }
  }

  @Test func namesFromTheNetworkArePrintable() throws {
    var tricky = room
    tricky.host = "ann\u{1B}[2J\u{7}\u{200B}"
    var browser = NearbyBrowser()
    _ = browser.receive(
      try wire(NearbyResponder.announcement(tricky, ttl: 120)), from: "192.168.1.5", at: 0)
    #expect(browser.rooms.first?.host == "ann[2J")
  }

  @Test func aFloodOfRoomsIsBounded() throws {
    var browser = NearbyBrowser()
    for index in 0..<400 {
      var flood = room
      flood.machine = "machine\(index)"
      _ = browser.receive(
        try wire(NearbyResponder.announcement(flood, ttl: 120)), from: "192.168.1.5", at: 0)
    }
    #expect(browser.rooms.count == NearbyBrowser.maximumInstancesPerSender)
  }

  /// The edges issue: 256 complete fake rooms from one machine crowded real ones out of
  /// the browser for their TTL.
  @Test func fakeRoomsFromOneMachineDoNotCrowdOutAnother() throws {
    var browser = NearbyBrowser()
    for index in 0..<300 {
      var fake = room
      fake.machine = "fake\(index)"
      _ = browser.receive(
        try wire(NearbyResponder.announcement(fake, ttl: 4500)), from: "192.168.1.66", at: 0)
    }
    let events = browser.receive(
      try wire(NearbyResponder.announcement(room, ttl: 120)), from: "192.168.1.5", at: 0)
    #expect(events.count == 1)
    #expect(browser.rooms.contains { $0.machine == "annslaptop" })
  }

  /// A browser that starts while a stranger announces the real room's name without TLS
  /// hears the stranger first: the real room, with TLS, still takes it over (and the
  /// stranger's address goes), so a join sees the real one.
  @Test func aPlainForgeryHeardFirstGivesWayToTheRealRoom() throws {
    var browser = NearbyBrowser()
    var forged = room
    forged.fingerprint = nil
    forged.addresses = ["192.168.1.66"]
    _ = browser.receive(
      try wire(NearbyResponder.announcement(forged, ttl: 120)), from: "192.168.1.66", at: 0)
    #expect(browser.rooms.first?.fingerprint == nil)
    _ = browser.receive(
      try wire(NearbyResponder.announcement(room, ttl: 120)), from: "192.168.1.5", at: second)
    #expect(browser.rooms.count == 1)
    #expect(browser.rooms.first?.fingerprint == Self.fingerprint)
    #expect(browser.rooms.first?.addresses.contains("192.168.1.66") == false)
    // And the stranger cannot take it back to plain.
    _ = browser.receive(
      try wire(NearbyResponder.announcement(forged, ttl: 120)), from: "192.168.1.66",
      at: 2 * second)
    #expect(browser.rooms.first?.fingerprint == Self.fingerprint)
  }

  /// The edges issue: anyone could rewrite a real room's SRV/TXT (to tls=0 and their own
  /// address) or send its goodbye.
  @Test func anotherMachineCannotRewriteOrRetireARoom() throws {
    var browser = NearbyBrowser()
    _ = browser.receive(
      try wire(NearbyResponder.announcement(room, ttl: 120)), from: "192.168.1.5", at: 0)
    // The same instance (its name carries the machine and port), from elsewhere: no TLS,
    // and another address.
    var forged = room
    forged.fingerprint = nil
    forged.addresses = ["192.168.1.66"]
    let rewrite = browser.receive(
      try wire(NearbyResponder.announcement(forged, ttl: 120)), from: "192.168.1.66",
      at: second)
    #expect(rewrite.isEmpty)
    #expect(browser.rooms.first?.fingerprint == Self.fingerprint)
    #expect(browser.rooms.first?.addresses.contains("192.168.1.66") == false)
    // Its goodbye, from elsewhere: the room stays.
    let goodbye = browser.receive(
      try wire(NearbyResponder.announcement(room, ttl: 0)), from: "192.168.1.66", at: 2 * second)
    #expect(goodbye.isEmpty)
    #expect(browser.rooms.count == 1)
    // The real one's goodbye is heard.
    let real = browser.receive(
      try wire(NearbyResponder.announcement(room, ttl: 0)), from: "192.168.1.5", at: 3 * second)
    #expect(real.count == 1)
    #expect(browser.rooms.isEmpty)
  }

  /// A flood of bare pointers that live for ever must not keep a real room out.
  @Test func junkPointersDoNotCrowdOutARealRoom() throws {
    var browser = NearbyBrowser()
    for index in 0..<400 {
      let junk = DNSName(labels: ["junk \(index)"] + NearbyRoom.serviceType.labels)
      let message = DNSMessage(
        isResponse: true,
        answers: [DNSRecord(name: NearbyRoom.serviceType, ttl: .max, data: .ptr(junk))])
      _ = browser.receive(try wire(message), from: "192.168.1.66", at: 0)
    }
    let events = browser.receive(
      try wire(NearbyResponder.announcement(room, ttl: 120)), from: "192.168.1.5", at: 0)
    #expect(events.count == 1)
    // And the junk does not outlive the longest life a record may have.
    _ = browser.tick(at: 4501 * second)
    #expect(browser.rooms.isEmpty)
  }

  @Test func queriesAreNotTakenForAnswers() throws {
    var browser = NearbyBrowser()
    var query = NearbyResponder.announcement(room, ttl: 120)
    query.isResponse = false
    #expect(browser.receive(try wire(query), from: "192.168.1.5", at: 0).isEmpty)
  }
}
