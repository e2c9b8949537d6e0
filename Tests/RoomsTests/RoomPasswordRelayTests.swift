import PlaybackCoordination
import RoomCrypto
import Testing
import WireProtocol

@testable import Rooms

@Suite("Relay core: rooms with a password")
struct RoomPasswordRelayTests {
  static let derivation = KeyDerivation(salt: Array(repeating: 3, count: 16), cost: 12)
  static let keys = try! RoomKeys.derive(
    password: try! RoomPassword("correct horse"), derivation: derivation)
  static let wrongKeys = try! RoomKeys.derive(
    password: try! RoomPassword("battery staple"), derivation: derivation)

  /// ann creates "movie-night" with the password.
  static func protectedRoom() -> RelayDriver {
    var r = RelayDriver()
    r.connect(1, address: "10.0.0.1")
    r.send(
      .hello(
        version: ProtocolVersion.current, name: "ann", room: "movie-night", resume: nil,
        protect: keys.protection), from: 1)
    return r
  }

  static func challenge(_ r: RelayDriver, _ id: UInt64) -> RoomChallenge? {
    for case .challenge(let c) in r.outbox[ConnectionID(id)] ?? [] { return c }
    return nil
  }

  /// Connection `id` says hello to "movie-night" and answers the challenge with `keys`.
  static func enter(
    _ r: inout RelayDriver, _ id: UInt64, _ name: String, with keys: RoomKeys,
    address: String = "10.0.0.2"
  ) {
    r.connect(id, address: address)
    r.send(
      .hello(version: ProtocolVersion.current, name: name, room: "movie-night", resume: nil),
      from: id)
    guard let challenge = challenge(r, id) else { return }
    r.send(.proof(signature: keys.proof(room: "movie-night", nonce: challenge.nonce)), from: id)
  }

  @Test(
    "the creator enters at once; an entrant is challenged with the room's derivation and enters with the right proof"
  )
  func rightPassword() throws {
    var r = Self.protectedRoom()
    #expect(r.welcome(1) != nil)
    Self.enter(&r, 2, "bob", with: Self.keys)
    let challenge = try #require(Self.challenge(r, 2))
    #expect(challenge.derivation == Self.derivation)
    #expect(r.welcome(2) != nil)
    #expect(r.lastState(1)?.participants.map(\.name) == ["ann", "bob"])
  }

  @Test("a wrong proof is refused with one clear error and changes nothing")
  func wrongPassword() {
    var r = Self.protectedRoom()
    Self.enter(&r, 2, "eve", with: Self.wrongKeys)
    #expect(r.welcome(2) == nil)
    #expect(
      r.outbox[ConnectionID(2)]?.last
        == .error(code: .wrongPassword, message: "wrong password for room movie-night", fatal: true)
    )
    #expect(r.closed.contains(ConnectionID(2)))
    #expect(r.lastState(1)?.participants.map(\.name) == ["ann"])
  }

  @Test("anything but a proof after the challenge closes the connection; a replayed proof fails")
  func noReplay() throws {
    var r = Self.protectedRoom()
    r.connect(2, address: "10.0.0.2")
    r.send(
      .hello(version: ProtocolVersion.current, name: "eve", room: "movie-night", resume: nil),
      from: 2)
    r.send(.command(id: 1, .join), from: 2)
    #expect(r.errors(2) == [.helloRequired])
    // bob's proof for his own challenge does not work for another one.
    Self.enter(&r, 3, "bob", with: Self.keys)
    let old = try #require(Self.challenge(r, 3))
    r.connect(4, address: "10.0.0.3")
    r.send(
      .hello(version: ProtocolVersion.current, name: "mallory", room: "movie-night", resume: nil),
      from: 4)
    r.send(.proof(signature: Self.keys.proof(room: "movie-night", nonce: old.nonce)), from: 4)
    #expect(r.errors(4) == [.wrongPassword])
  }

  @Test("a resume with a valid token needs no proof")
  func resumeSkipsChallenge() throws {
    var r = Self.protectedRoom()
    Self.enter(&r, 2, "bob", with: Self.keys)
    let bob = try #require(r.welcome(2))
    r.drop(2)
    r.connect(3, address: "10.0.0.2")
    r.send(
      .hello(
        version: ProtocolVersion.current, name: "bob", room: "movie-night", resume: bob.resume),
      from: 3)
    #expect(Self.challenge(r, 3) == nil)
    #expect(r.welcome(3)?.resumed == true)
  }

  @Test("a password for an existing room without one is refused: it would protect nothing")
  func notProtected() {
    var r = RelayDriver()
    r.hello(1, "ann", room: "open")
    r.connect(2)
    r.send(
      .hello(
        version: ProtocolVersion.current, name: "bob", room: "open", resume: nil,
        protect: Self.keys.protection), from: 2)
    #expect(r.errors(2) == [.roomNotProtected])
    #expect(r.lastState(1)?.participants.map(\.name) == ["ann"])
  }

  @Test(
    "wrong passwords are limited per address, then per room; the right one still works elsewhere")
  func rateLimited() {
    var r = Self.protectedRoom()
    for i in 0..<UInt64(RelayCore.maximumWrongProofsPerAddress) {
      Self.enter(&r, 10 + i, "eve\(i)", with: Self.wrongKeys, address: "10.6.6.6")
      #expect(r.errors(10 + i) == [.wrongPassword])
    }
    // The next try from that address is not even challenged, even with the right password.
    Self.enter(&r, 50, "eve", with: Self.keys, address: "10.6.6.6")
    #expect(Self.challenge(r, 50) == nil)
    #expect(r.errors(50) == [.rateLimited])
    // Another address still gets in.
    Self.enter(&r, 51, "bob", with: Self.keys, address: "10.0.0.9")
    #expect(r.welcome(51) != nil)
    // Many addresses guessing together hit the room's limit.
    for i
      in 0..<UInt64(RelayCore.maximumWrongProofsPerRoom - RelayCore.maximumWrongProofsPerAddress)
    {
      Self.enter(&r, 100 + i, "x\(i)", with: Self.wrongKeys, address: "10.7.0.\(i)")
    }
    Self.enter(&r, 200, "cat", with: Self.keys, address: "10.0.0.10")
    #expect(r.errors(200) == [.rateLimited])
    // After the window, the address may try again.
    r.advance(RelayCore.wrongProofWindow + 1)
    Self.enter(&r, 201, "cat", with: Self.keys, address: "10.0.0.10")
    #expect(r.welcome(201) != nil)
  }

  @Test("a proof that never comes times out, after the proof's own timeout")
  func proofTimeout() {
    var r = Self.protectedRoom()
    r.connect(2, address: "10.0.0.2")
    r.send(
      .hello(version: ProtocolVersion.current, name: "bob", room: "movie-night", resume: nil),
      from: 2)
    r.advance(RelayConfiguration().proofTimeout - 1)
    #expect(r.errors(2).isEmpty)
    r.advance(2)
    #expect(r.errors(2) == [.helloRequired])
    #expect(
      r.outbox[ConnectionID(2)]?.contains {
        if case .error(_, let text, _) = $0 {
          text.contains("no proof of the room's password")
        } else {
          false
        }
      } == true)
    #expect(r.closed.contains(ConnectionID(2)))
  }

  @Test(
    "a proof slower than the hello timeout still enters: deriving the keys takes a slow device seconds"
  )
  func slowProofEnters() throws {
    var r = Self.protectedRoom()
    r.connect(2, address: "10.0.0.2")
    // The hello itself comes quickly; the keys take longer than the hello's 5 s.
    r.advance(1)
    r.send(
      .hello(version: ProtocolVersion.current, name: "bob", room: "movie-night", resume: nil),
      from: 2)
    r.advance(RelayConfiguration().helloTimeout + 3)
    let challenge = try #require(Self.challenge(r, 2))
    r.send(.proof(signature: Self.keys.proof(room: "movie-night", nonce: challenge.nonce)), from: 2)
    #expect(r.welcome(2) != nil)
    #expect(r.errors(2).isEmpty)
  }

  @Test("a hello still has to come within the hello timeout")
  func helloStillTimesOut() {
    var r = Self.protectedRoom()
    r.connect(2, address: "10.0.0.2")
    r.advance(RelayConfiguration().helloTimeout + 1)
    #expect(r.errors(2) == [.helloRequired])
  }

  @Test("a protected room routes only sealed messages")
  func sealedOnly() {
    var r = Self.protectedRoom()
    Self.enter(&r, 2, "bob", with: Self.keys)
    r.send(.send(seq: 1, to: .all, kind: "chat", body: "in the clear"), from: 1)
    #expect(
      r.rejections(1).map(\.1)
        == ["room movie-night has a password: its messages travel sealed end to end"])
    let sealed = Self.keys.seal(kind: "chat", body: "hi", room: "movie-night", sender: "p1")
    r.send(.send(seq: 2, to: .all, kind: RoomKeys.sealedKind, body: sealed), from: 1)
    #expect(r.accepted(1) == [2])
    #expect(
      r.outbox[ConnectionID(2)]?.contains(
        .message(from: "p1", fromName: "ann", seq: 2, kind: RoomKeys.sealedKind, body: sealed))
        == true)
  }

  @Test("the protection is kept in the store and comes back with the room")
  func stored() throws {
    let r = Self.protectedRoom()
    let rooms = r.core.storedRooms()
    #expect(rooms.first?.protection == Self.keys.protection)
    var again = RelayDriver(restoring: rooms)
    Self.enter(&again, 2, "bob", with: Self.wrongKeys)
    #expect(again.errors(2) == [.wrongPassword])
    Self.enter(&again, 3, "cat", with: Self.keys)
    #expect(again.welcome(3) != nil)
  }
}
