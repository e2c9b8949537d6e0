import Foundation
import PlaybackCoordination
import Testing
import WireProtocol

@testable import Rooms

@Suite("A room's state stays far below the welcome line limit")
struct RoomStateBoundTests {
  /// The welcome a participant must be able to read: a client takes lines of at most this.
  static let clientLineLimit = 1 << 20

  @Test(
    "a full room with the longest names, most suspensions and the largest series fits one welcome")
  func fullestRoomFits() throws {
    let configuration = RelayConfiguration()
    var r = RelayDriver(configuration)
    let codec = WireCodec()
    // The largest series one command line can carry: ids at the byte limit, and titles of
    // quotes, which JSON doubles.
    let idPad = String(repeating: "x", count: DisplayText.maximumIdentifierBytes - 5)
    var items: [ItemInfo] = []
    var series = SeriesInfo(id: "big", title: "", items: [])
    while true {
      let next = ItemInfo(
        id: ItemID(String(format: "%04d", items.count) + "/" + idPad),
        title: String(repeating: "\"", count: 40), duration: 60)
      let candidate = SeriesInfo(id: "big", title: "", items: items + [next])
      let line = codec.encode(
        ClientMessage.command(id: 1, .start(series: candidate, item: items.first?.id ?? next.id)))
      if line.count > configuration.maximumFrameBytes { break }
      items.append(next)
      series = candidate
    }
    #expect(items.count > 100)

    // Every member: a 32-character, 61-byte name, joined, with every suspension it may
    // hold, each 64 bytes of quotes.
    let members = configuration.maximumParticipantsPerRoom - 1
    for i in 0..<members {
      let number = UInt64(i + 1)
      r.hello(number, String(repeating: "é", count: 29) + String(format: "%03d", i))
      if i == 0 {
        r.send(.command(id: 1, .start(series: series, item: series.items[0].id)), from: number)
      } else {
        r.send(.command(id: 1, .join), from: number)
      }
      for k in 0..<DisplayText.maximumSuspensions {
        let reason = String(repeating: "\"", count: DisplayText.maximumReasonBytes - 1) + "\(k)"
        r.send(
          .command(id: UInt64(2 + k), .beginSuspension(SuspensionReason(reason))), from: number)
      }
      #expect(r.rejections(number).isEmpty, "\(r.rejections(number).prefix(2))")
    }
    let last = UInt64(members + 1)
    r.hello(last, "zoe")
    let welcome = try #require(r.welcome(last))
    #expect(welcome.state.participants.count == members + 1)
    #expect(welcome.state.participants[5].suspensions.count == DisplayText.maximumSuspensions)
    let size = codec.encode(ServerMessage.welcome(welcome)).count
    // About a fifth of the limit: the series is bounded by one inbound line (64 KiB),
    // each member by its name and suspensions.
    #expect(size < Self.clientLineLimit / 4, "welcome is \(size) bytes")
  }

  @Test(
    "a messenger kind is 1 to 64 bytes of safe text",
    arguments: ["", String(repeating: "k", count: 65), "chat\u{1B}[2J", "rtl\u{202E}"])
  func messageKinds(kind: String) {
    var r = RelayDriver()
    r.hello(1, "ann")
    r.hello(2, "bob")
    r.send(.send(seq: 1, to: .all, kind: kind, body: "hi"), from: 1)
    #expect(r.rejections(1).map(\.0) == [1])
    r.send(.send(seq: 2, to: .all, kind: "chat", body: "hi"), from: 1)
    #expect(r.accepted(1).contains(2))
  }

}

@Suite("Rooms per address")
struct RoomsPerAddressTests {
  @Test(
    "one address opens at most its share of rooms; joining rooms and other addresses are not held back; an emptied room gives its place back"
  )
  func roomsPerAddress() {
    var configuration = RelayConfiguration()
    configuration.maximumRoomsPerAddress = 3
    var r = RelayDriver(configuration)
    for i in 0..<3 { r.hello(UInt64(i + 1), "m\(i)", room: "r\(i)", address: "10.0.0.1") }
    // Each left at once: the rooms live on for the reconnect grace.
    for i in 0..<3 { r.drop(UInt64(i + 1)) }
    r.hello(4, "m3", room: "r3", address: "10.0.0.1")
    #expect(r.errors(4) == [.tooManyRooms])
    #expect(r.closed.contains(ConnectionID(4)))
    #expect(r.core.roomNames == ["r0", "r1", "r2"])
    // Joining a room that exists is fine, and so is another address opening one.
    r.hello(5, "guest", room: "r1", address: "10.0.0.1")
    #expect(r.welcome(5) != nil)
    r.hello(6, "other", room: "r9", address: "10.0.0.2")
    #expect(r.welcome(6) != nil)
    // Past the grace the left rooms are dropped and their places come back.
    r.advance(configuration.reconnectGrace + 0.5)
    r.hello(7, "m7", room: "r7", address: "10.0.0.1")
    #expect(r.welcome(7) != nil, "\(r.errors(7))")
  }
}

@Suite("Wrong resume secrets")
struct WrongResumeTests {
  @Test(
    "a wrong secret enters as a new member; past 20 a minute from one address, resumes are refused, then allowed again"
  )
  func wrongSecretsAreCounted() throws {
    var r = RelayDriver()
    r.hello(1, "ann", address: "10.0.0.1")
    let ann = try #require(r.welcome(1)).participant
    func guess(_ n: UInt64, _ address: String) {
      r.connect(n, address: address)
      r.send(
        .hello(
          version: ProtocolVersion.current, name: "m\(n)", room: "lobby",
          resume: ResumeToken(participant: ann, secret: String(format: "%032x", n))),
        from: n)
    }
    for n in UInt64(2)...21 { guess(n, "10.0.0.66") }
    #expect(r.welcome(21)?.resumed == false, "a wrong secret is not a resume")
    #expect(r.welcome(21)?.participant != ann)
    guess(22, "10.0.0.66")
    #expect(r.errors(22) == [.rateLimited])
    #expect(r.closed.contains(ConnectionID(22)))
    // Another address is not held back, and ann was never displaced.
    guess(23, "10.0.0.67")
    #expect(r.welcome(23) != nil)
    #expect(!r.closed.contains(ConnectionID(1)))
    // A minute later (ann still here, pinging) the address may try again.
    for second in 0..<Int(RelayCore.wrongResumeWindow) + 1 {
      r.advance(1)
      r.send(.ping(id: UInt64(second), t0: LocalInstant(nanoseconds: 0)), from: 1)
    }
    #expect(r.core.state(ofRoom: "lobby")?.participant(ann) != nil)
    guess(24, "10.0.0.66")
    #expect(r.errors(24).isEmpty)
    #expect(r.welcome(24)?.resumed == false)
  }
}
