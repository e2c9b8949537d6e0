import PlaybackCoordination
import RoomCrypto
import Testing

/// Private messages sealed with each recipient's own key: only those recipients open
/// them, and nothing on the way can move, re-address or re-attribute them.
@Suite("Private messages sealed for their recipients")
struct MemberKeysTests {
  let ann = MemberKeys.generate()
  let bob = MemberKeys.generate()
  let carl = MemberKeys.generate()

  func sealed(_ body: String = "see you at nine", for ids: [String] = ["p2"]) throws -> String {
    let keys = ["p1": ann, "p2": bob, "p3": carl]
    return try #require(
      MemberKeys.seal(
        kind: .chat, body: body, for: ids.map { ($0, keys[$0]!.publicKey) }, room: "lobby",
        sender: "p1"))
  }

  @Test("the recipient opens it: kind, words and who it was for")
  func opens() throws {
    let text = try sealed(for: ["p2", "p3"])
    let opened = try bob.open(text, me: "p2", room: "lobby", sender: "p1")
    #expect(opened.kind == .chat)
    #expect(opened.body == "see you at nine")
    #expect(opened.recipients == ["p2", "p3"])
    #expect(try carl.open(text, me: "p3", room: "lobby", sender: "p1").body == "see you at nine")
    #expect(!text.contains("nine"))
  }

  @Test("nobody else opens it: not another member, not with another's id, not the sender")
  func othersCannot() throws {
    let text = try sealed()
    #expect(throws: RoomCryptoError.notSealedForMe) {
      try carl.open(text, me: "p3", room: "lobby", sender: "p1")
    }
    #expect(throws: RoomCryptoError.notSealedForMe) {
      try carl.open(text, me: "p2", room: "lobby", sender: "p1")
    }
    #expect(throws: RoomCryptoError.notSealedForMe) {
      try ann.open(text, me: "p2", room: "lobby", sender: "p1")
    }
  }

  @Test("moved to another room, passed off as another sender's, or re-addressed: it does not open")
  func bound() throws {
    let text = try sealed(for: ["p2", "p3"])
    #expect(throws: RoomCryptoError.self) {
      try bob.open(text, me: "p2", room: "attic", sender: "p1")
    }
    #expect(throws: RoomCryptoError.self) {
      try bob.open(text, me: "p2", room: "lobby", sender: "p3")
    }
    // A relay that drops carl's entry, to make it look like a message for bob alone.
    let parts = text.split(separator: " ").map(String.init)
    let withoutCarl = parts.filter { !$0.hasPrefix("p3=") }.joined(separator: " ")
    #expect(throws: RoomCryptoError.self) {
      try bob.open(withoutCarl, me: "p2", room: "lobby", sender: "p1")
    }
  }

  @Test(
    "garbage is unreadable, not a crash",
    arguments: ["", "v1", "v1 x y z", "v2 a b c", String(repeating: "v1 ", count: 400)])
  func garbage(text: String) {
    #expect(throws: RoomCryptoError.self) {
      try bob.open(text, me: "p2", room: "lobby", sender: "p1")
    }
  }

  @Test("a key that is not one seals nothing")
  func badKey() {
    #expect(
      MemberKeys.seal(kind: .chat, body: "x", for: [("p2", "zz")], room: "lobby", sender: "p1")
        == nil)
    #expect(Participant.isSealingKey(bob.publicKey))
  }
}
