import RoomCrypto
import Testing
import WireProtocol

@Suite("Room keys from a password")
struct RoomKeysTests {
  static let derivation = KeyDerivation(salt: Array(repeating: 7, count: 16), cost: 12)

  static func keys(_ password: String, _ derivation: KeyDerivation = derivation) throws -> RoomKeys
  {
    try RoomKeys.derive(password: try RoomPassword(password), derivation: derivation)
  }

  @Test("the same password and derivation give the same verifier; another password or salt another")
  func deterministic() throws {
    let a = try Self.keys("correct horse")
    #expect(a.protection == (try Self.keys("correct horse")).protection)
    #expect(a.protection.verifier != (try Self.keys("correct hors")).protection.verifier)
    let otherSalt = KeyDerivation(salt: Array(repeating: 8, count: 16), cost: 12)
    #expect(
      a.protection.verifier != (try Self.keys("correct horse", otherSalt)).protection.verifier)
    #expect(a.protection.verifier.count == 32)
  }

  /// The one derivation at the real cost (about 0.3 s and 128 MiB): every other test of
  /// rooms with a password uses the cheapest, being about something else.
  @Test("the default cost derives keys that prove and seal as the cheap ones do")
  func defaultCost() throws {
    let derivation = KeyDerivation.fresh()
    #expect(derivation.cost == KeyDerivation.defaultCost && derivation.isValid)
    let keys = try Self.keys("correct horse", derivation)
    let nonce = Array("0123456789abcdef0123456789abcdef".utf8)
    let verifier = keys.protection.verifier
    let proof = keys.proof(room: "movie-night", nonce: nonce)
    #expect(RoomKeys.verify(proof: proof, room: "movie-night", nonce: nonce, verifier: verifier))
    #expect(verifier != (try Self.keys("correct horse")).protection.verifier, "the cost counts")
    let sealed = keys.seal(kind: "chat", body: "hi", room: "movie-night", sender: "p2")
    #expect(try keys.open(sealed, room: "movie-night", sender: "p2").body == "hi")
    #expect(throws: RoomCryptoError.notSealedForThisRoom) {
      try Self.keys("correct horse").open(sealed, room: "movie-night", sender: "p2")
    }
  }

  @Test("a proof verifies for its room and nonce only, and only with the right password")
  func proofs() throws {
    let keys = try Self.keys("correct horse")
    let nonce = Array("0123456789abcdef0123456789abcdef".utf8)
    let proof = keys.proof(room: "movie-night", nonce: nonce)
    let verifier = keys.protection.verifier
    #expect(RoomKeys.verify(proof: proof, room: "movie-night", nonce: nonce, verifier: verifier))
    #expect(!RoomKeys.verify(proof: proof, room: "movie-nigh", nonce: nonce, verifier: verifier))
    #expect(
      !RoomKeys.verify(
        proof: proof, room: "movie-night", nonce: nonce.reversed(), verifier: verifier))
    let wrong = try Self.keys("battery staple").proof(room: "movie-night", nonce: nonce)
    #expect(!RoomKeys.verify(proof: wrong, room: "movie-night", nonce: nonce, verifier: verifier))
    #expect(!RoomKeys.verify(proof: [], room: "movie-night", nonce: nonce, verifier: verifier))
    #expect(!RoomKeys.verify(proof: proof, room: "movie-night", nonce: nonce, verifier: [1, 2]))
  }

  @Test("a sealed message opens with the same password, room and sender only")
  func sealing() throws {
    let keys = try Self.keys("correct horse")
    let sealed = keys.seal(kind: "chat", body: "see you at 9 🎬", room: "movie-night", sender: "p2")
    #expect(!sealed.contains("see you"))
    let opened = try keys.open(sealed, room: "movie-night", sender: "p2")
    #expect(opened.kind == "chat" && opened.body == "see you at 9 🎬")
    #expect(throws: RoomCryptoError.notSealedForThisRoom) {
      try keys.open(sealed, room: "movie-night", sender: "p3")
    }
    #expect(throws: RoomCryptoError.notSealedForThisRoom) {
      try keys.open(sealed, room: "other", sender: "p2")
    }
    #expect(throws: RoomCryptoError.notSealedForThisRoom) {
      try Self.keys("battery staple").open(sealed, room: "movie-night", sender: "p2")
    }
    var tampered = Array(sealed.utf8)
    tampered[20] = tampered[20] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
    #expect(throws: RoomCryptoError.notSealedForThisRoom) {
      try keys.open(String(decoding: tampered, as: UTF8.self), room: "movie-night", sender: "p2")
    }
    #expect(throws: RoomCryptoError.unreadableMessage) {
      try keys.open("not base64 at all!", room: "movie-night", sender: "p2")
    }
    // Two sealings of one message differ (a fresh nonce each time).
    #expect(
      sealed != keys.seal(kind: "chat", body: "see you at 9 🎬", room: "movie-night", sender: "p2"))
  }

  @Test("passwords: one trailing line break is not part of them; empty and huge ones are refused")
  func passwords() throws {
    #expect(try RoomPassword("secret\n") == RoomPassword("secret"))
    #expect(try RoomPassword("secret\r\n") == RoomPassword("secret"))
    #expect(try RoomPassword("two words") != RoomPassword("two"))
    #expect(throws: RoomCryptoError.emptyPassword) { try RoomPassword("\n") }
    #expect(throws: RoomCryptoError.passwordTooLong(1024)) {
      try RoomPassword(String(repeating: "x", count: 1025))
    }
    #expect("\(try RoomPassword("secret"))" == "(a room password)")
  }

  @Test(
    "a Syncplay client's server password (the MD5 of the password, in hex) is the same room password"
  )
  func syncplayDigest() throws {
    // md5("secret"), as `syncplay --password secret` sends it.
    let digest = "5ebe2294ecd0e0f08eab7690d2a6ee69"
    #expect(try RoomPassword(syncplayDigest: digest) == RoomPassword("secret"))
    #expect(try RoomPassword(syncplayDigest: digest.uppercased()) == RoomPassword("secret"))
    #expect(throws: RoomCryptoError.invalidSyncplayPassword) {
      try RoomPassword(syncplayDigest: "secret")
    }
  }

  @Test("derivation parameters outside the protocol's limits are refused before any work")
  func limits() throws {
    #expect(throws: RoomCryptoError.invalidDerivation) {
      try Self.keys("x", KeyDerivation(salt: Array(repeating: 1, count: 16), cost: 30))
    }
    #expect(throws: RoomCryptoError.invalidDerivation) {
      try Self.keys("x", KeyDerivation(salt: [1, 2, 3], cost: 12))
    }
  }
}
