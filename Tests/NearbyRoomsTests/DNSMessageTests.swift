import Testing

@testable import NearbyRooms

@Suite struct DNSMessageTests {
  let room = NearbyRoom(
    room: "movie-night", host: "ann", machine: "annslaptop", port: 7700,
    addresses: ["192.168.1.5", "10.0.0.7"],
    fingerprint: "SHA256:" + String(repeating: "A", count: 42) + "E", password: true, people: 3)

  @Test func roundTripsAnAnnouncement() throws {
    let message = NearbyResponder.announcement(room, ttl: 120)
    let decoded = try DNSMessage.decode(message.encoded())
    #expect(decoded == message)
  }

  @Test func readsCompressedNames() throws {
    // A query for _cowatch._tcp.local, then an answer whose name points back at it.
    var bytes: [UInt8] = [0, 0, 0x84, 0, 0, 1, 0, 1, 0, 0, 0, 0]
    let question = bytes.count
    for label in ["_cowatch", "_tcp", "local"] {
      bytes.append(UInt8(label.utf8.count))
      bytes += Array(label.utf8)
    }
    bytes += [0, 0, 12, 0, 1]
    bytes += [0xC0, UInt8(question), 0, 12, 0, 1, 0, 0, 0, 120, 0, 6]
    bytes += [3] + Array("abc".utf8) + [0xC0, UInt8(question)]
    let message = try DNSMessage.decode(bytes)
    #expect(
      message.answers.first?.data == .ptr(DNSName(labels: ["abc", "_cowatch", "_tcp", "local"])))
  }

  @Test func refusesPointerLoops() {
    // The answer's name points at itself.
    let bytes: [UInt8] = [
      0, 0, 0x84, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0xC0, 12, 0, 1, 0, 1, 0, 0, 0, 1, 0, 4, 1, 2, 3, 4,
    ]
    #expect(throws: DNSMessageError.self) { try DNSMessage.decode(bytes) }
  }

  @Test func refusesWhatIsCutShortAnywhere() throws {
    let bytes = try NearbyResponder.announcement(room, ttl: 120).encoded()
    for length in 0..<bytes.count {
      #expect(throws: DNSMessageError.self) { try DNSMessage.decode(Array(bytes.prefix(length))) }
    }
  }

  @Test func garbageNeverCrashesTheDecoder() {
    var generator = SystemRandomNumberGenerator()
    for _ in 0..<20_000 {
      let count = Int.random(in: 0..<300, using: &generator)
      let bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
      _ = try? DNSMessage.decode(bytes)
    }
    // Mutations of a real announcement reach deeper than random bytes.
    let real = (try? NearbyResponder.announcement(room, ttl: 120).encoded()) ?? []
    for _ in 0..<20_000 {
      var bytes = real
      for _ in 0..<Int.random(in: 1...4, using: &generator) {
        bytes[Int.random(in: 0..<bytes.count, using: &generator)] = UInt8.random(
          in: 0...255, using: &generator)
      }
      if let message = try? DNSMessage.decode(bytes) {
        var browser = NearbyBrowser()
        _ = browser.receive(message, from: "192.168.1.5", at: 0)
      }
    }
  }

  @Test func refusesOversizedMessagesAndSections() {
    #expect(throws: DNSMessageError.self) {
      try DNSMessage.decode([UInt8](repeating: 0, count: DNSMessage.maximumSize + 1))
    }
    // Claims 65535 questions in a 12-byte message.
    #expect(throws: DNSMessageError.self) {
      try DNSMessage.decode([0, 0, 0, 0, 0xFF, 0xFF, 0, 0, 0, 0, 0, 0])
    }
  }

  @Test func namesCompareWithoutCase() {
    #expect(DNSName(labels: ["_COWATCH", "_tcp", "Local"]).matches(NearbyRoom.serviceType))
    #expect(!DNSName(labels: ["_cowatch", "_udp", "local"]).matches(NearbyRoom.serviceType))
  }

  @Test func longMachineNamesStillMakeALabel() throws {
    var long = room
    long.machine = String(repeating: "é", count: 80)
    #expect(long.instance.labels[0].utf8.count <= 63)
    #expect(long.instance.labels[0].hasSuffix(":7700"))
    _ = try NearbyResponder.announcement(long, ttl: 120).encoded()
  }
}

/// The edges issue: mDNS took answers from anywhere; RFC 6762 §11 asks for on-link ones.
@Suite struct OnLinkTests {
  @Test func onlyThisMachinesSubnetsAreOnLink() {
    let onLink = OnLink(interfaces: [
      ("192.168.1.5", "255.255.255.0"), ("10.89.0.2", "255.255.0.0"), ("bad", "255.0.0.0"),
    ])
    #expect(onLink.contains("192.168.1.77"))
    #expect(onLink.contains("10.89.200.1"))
    #expect(onLink.contains("127.0.0.1"))
    #expect(!onLink.contains("192.168.2.1"), "routed here from another network")
    #expect(!onLink.contains("203.0.113.9"))
    #expect(!onLink.contains("10.90.0.1"))
    #expect(!onLink.contains("192.168.1"), "not an address")
    #expect(!onLink.contains("fe80::1"), "not IPv4")
  }
}
