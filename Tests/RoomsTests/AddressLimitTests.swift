import Foundation
import PlaybackCoordination
import Testing
import WireProtocol

@testable import Rooms

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
          resume: ResumeToken(
            participant: ann, proof: Array(repeating: UInt8(truncatingIfNeeded: n), count: 64))),
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
