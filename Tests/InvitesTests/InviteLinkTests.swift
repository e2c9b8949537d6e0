import Invites
import Testing
import WireProtocol

@Suite("Invite links")
struct InviteLinkTests {
  static let fingerprint = "SHA256:q6urq6urq6urq6urq6urq6urq6urq6urq6u+/6urq6s"
  static let other = "SHA256:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8"

  @Test("a link is one shell word and reads back as written")
  func roundTrip() throws {
    let invite = InviteLink(
      room: "movie-night", addresses: ["203.0.113.5:7700", "192.168.1.5:7700", "[fd00::5]:7700"],
      fingerprint: Self.fingerprint,
      successors: [
        RelayEndpoint(address: "192.168.1.6:7701", fingerprint: Self.other),
        RelayEndpoint(address: "192.168.1.7:7701"),
      ])
    let text = invite.text
    #expect(
      text
        == "cowatch://movie-night@203.0.113.5:7700,192.168.1.5:7700,[fd00::5]:7700/fp=q6urq6urq6urq6urq6urq6urq6urq6urq6u-_6urq6s/next=192.168.1.6:7701=AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8,192.168.1.7:7701"
    )
    // Nothing a shell or a chat program takes for itself (brackets only around IPv6).
    #expect(!text.contains { "?&#;!*$'\"` \\<>|(){}~".contains($0) })
    #expect(try InviteLink.parse(text) == invite)
    // Pasted from a chat, with what wraps it.
    #expect(try InviteLink.parse("<\(text)>\n") == invite)
    let plain = InviteLink(
      room: "lobby", addresses: ["10.0.0.2:7700"], fingerprint: nil, plain: true)
    #expect(plain.text == "cowatch://lobby@10.0.0.2:7700/plain")
    #expect(try InviteLink.parse(plain.text) == plain)
  }

  @Test(
    "a malformed or cut link is one clear line",
    arguments: [
      ("http://x", "it does not start with cowatch://"),
      ("cowatch://", "the room is missing"),
      ("cowatch://10.0.0.1:7700", "the room is missing"),
      ("cowatch://movie night@10.0.0.1:7700", "is not a room name"),
      ("cowatch://lobby@", "an address is missing"),
      ("cowatch://lobby@10.0.0.1:7700,", "an address is missing"),
      ("cowatch://lobby@10.0.0.1", "is not an address"),
      ("cowatch://lobby@10.0.0.1:99999", "is not an address"),
      ("cowatch://lobby@evil$(rm):1", "is not an address"),
      ("cowatch://lobby@10.0.0.1:7700/fp=q6urq6urq6urq6ur", "cut short or mistyped"),
      ("cowatch://lobby@10.0.0.1:7700/fp=q6urq6urq6urq6urq6urq6urq6urq6urq6u-_6urq6t", "mistyped"),
      ("cowatch://lobby@10.0.0.1:7700/plain/plain", "says plain twice"),
      (
        "cowatch://lobby@10.0.0.1:7700/plain/fp=q6urq6urq6urq6urq6urq6urq6urq6urq6u-_6urq6s",
        "both plain and a fingerprint"
      ),
      ("cowatch://lobby@10.0.0.1:7700/password=hunter2", "means nothing in a link"),
      ("cowatch://lobby@10.0.0.1:7700/next=10.0.0.2:1=xyz", "a successor's fingerprint"),
      // The first line of a link a terminal wrapped after its addresses.
      (
        "cowatch://movie-night@192.168.1.5:7700,10.8.0.2:7700/",
        "ends before the relay's fingerprint"
      ),
      ("cowatch://lobby@10.0.0.1:7700", "ends before the relay's fingerprint"),
    ])
  func malformed(text: String, reason: String) {
    #expect(throws: InviteLinkError.self) { try InviteLink.parse(text) }
    do {
      _ = try InviteLink.parse(text)
    } catch {
      #expect(error.description.hasPrefix("not a whole Cowatch link: "))
      #expect(error.description.contains(reason), "\(error.description)")
      #expect(!error.description.contains("\n"))
    }
  }

  @Test("garbage never crashes the parser, and what it accepts writes back the same")
  func garbage() {
    var generator = SystemRandomNumberGenerator()
    let alphabet = Array("cowatch:/@,.=-_[]lobby0123456789ABCxyz+%?&# \u{0}é🍿")
    let seeds = [
      InviteLink(
        room: "lobby", addresses: ["10.0.0.1:7700"], fingerprint: Self.fingerprint
      ).text, "cowatch://a@b:1/plain",
    ]
    for _ in 0..<3000 {
      var text = Array(seeds.randomElement(using: &generator)!)
      for _ in 0..<Int.random(in: 1...6, using: &generator) {
        let index = Int.random(in: 0...text.count, using: &generator)
        switch Int.random(in: 0..<3, using: &generator) {
        case 0: text.insert(alphabet.randomElement(using: &generator)!, at: index)
        case 1 where index < text.count: text.remove(at: index)
        default: text = Array(text.prefix(index))
        }
      }
      let candidate = String(text)
      if let parsed = try? InviteLink.parse(candidate) {
        #expect((try? InviteLink.parse(parsed.text)) == parsed, "\(candidate)")
      }
    }
    #expect(throws: InviteLinkError.self) {
      try InviteLink.parse("cowatch://" + String(repeating: "a", count: 5000) + "@x:1")
    }
  }
}
