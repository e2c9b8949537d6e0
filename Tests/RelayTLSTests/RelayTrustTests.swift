import Foundation
import RelayTLS
import Testing

@Suite("Trusting a relay's certificate")
struct RelayTrustTests {
  let a = "SHA256:Qack/BC9g57yZScI3Q2DScMFQAF4Sy6ge2fefRAY4LE"
  let b = "SHA256:abmOIWy7CgJ+6oZX+WXUTp0BhKjFb29w+GzQ7fYFvKo"

  func decide(
    presented: String, pinned: String? = nil, ca: Bool = false, known: String? = nil,
    trustNew: Bool = false, canAsk: Bool = false
  ) -> RelayTrust.Decision {
    RelayTrust.decide(
      endpoint: "192.168.1.5:7700", presented: presented, pinned: pinned, caVerified: ca,
      known: known, trustNew: trustNew, canAsk: canAsk)
  }

  @Test(
    "a changed certificate's refusal names the file to edit; the file is under XDG_CONFIG_HOME, else HOME's .config"
  )
  func knownRelaysFileNamed() {
    guard
      case .refuse(let why) = RelayTrust.decide(
        endpoint: "192.168.1.5:7700", presented: b, pinned: nil, caVerified: false, known: a,
        trustNew: false, canAsk: true, knownRelaysPath: "/home/ann/.config/cowatch/known-relays")
    else {
      Issue.record("a changed certificate was not refused")
      return
    }
    #expect(why.contains("remove its line from /home/ann/.config/cowatch/known-relays"))
    #expect(
      KnownRelays.defaultPath(environment: ["HOME": "/home/ann"])
        == "/home/ann/.config/cowatch/known-relays")
    #expect(
      KnownRelays.defaultPath(environment: ["HOME": "/home/ann", "XDG_CONFIG_HOME": "/cfg"])
        == "/cfg/cowatch/known-relays")
  }

  @Test("a pin decides alone: it must match, whatever else is known or vouched for")
  func pinned() {
    #expect(decide(presented: a, pinned: a) == .trust)
    guard
      case .refuse(let why) = decide(presented: b, pinned: a, ca: true, known: b, trustNew: true)
    else {
      Issue.record("a mismatched pin was not refused")
      return
    }
    #expect(why.contains("not the pinned \(RelayFingerprint.shown(a))"))
  }

  @Test(
    "a CA's word is enough; a remembered fingerprint must match, and a change is refused loudly, never asked"
  )
  func knownAndCA() {
    #expect(decide(presented: a, ca: true) == .trust)
    #expect(decide(presented: a, known: a) == .trust)
    guard case .refuse(let why) = decide(presented: b, known: a, trustNew: true, canAsk: true)
    else {
      Issue.record("a changed certificate was not refused")
      return
    }
    #expect(why.hasPrefix("THE RELAY AT 192.168.1.5:7700 PRESENTS A DIFFERENT CERTIFICATE"))
  }

  @Test(
    "an unknown relay: trusted and remembered when told to, asked about when someone can answer, else refused with what to do"
  )
  func unknown() {
    #expect(decide(presented: a, trustNew: true) == .trustAndRemember)
    #expect(decide(presented: a, canAsk: true) == .ask)
    guard case .refuse(let why) = decide(presented: a) else {
      Issue.record("an unknown relay was not refused")
      return
    }
    #expect(why.contains("--fingerprint") && why.contains("--trust-new-relay"))
  }

  @Test("fingerprints read as SSH writes them; anything else is not one")
  func fingerprints() {
    #expect(RelayFingerprint.parse(a) == a)
    #expect(RelayFingerprint.parse(" \(a)= ") == a)
    #expect(RelayFingerprint.parse("SHA256:short") == nil)
    #expect(RelayFingerprint.parse("MD5:" + a.dropFirst(7)) == nil)
    #expect(RelayFingerprint.of(der: [1, 2, 3]).count == a.count)
  }

  /// The first watch night: links spelled fingerprints with `-`/`_`, prompts with `+`/`/`,
  /// so a person comparing the two read different characters.
  @Test("one spelling is shown, the link's; both spellings read as the same fingerprint")
  func oneSpelling() throws {
    // A digest whose base64 has both + and /.
    let der = try #require(
      (0..<5000).lazy.map { [UInt8(truncatingIfNeeded: $0), UInt8(truncatingIfNeeded: $0 >> 8)] }
        .first {
          let f = RelayFingerprint.of(der: $0)
          return f.contains("+") && f.contains("/")
        })
    let canonical = RelayFingerprint.of(der: der)
    let shown = RelayFingerprint.shown(canonical)
    #expect(!shown.contains("+") && !shown.contains("/"))
    #expect(shown.hasPrefix("SHA256:") && shown.count == canonical.count)
    #expect(RelayFingerprint.parse(shown) == canonical)
    #expect(RelayFingerprint.parse(canonical) == canonical)
    // Both alphabets in one text is neither spelling.
    let mixed = String(shown.prefix(20)) + String(canonical.dropFirst(20))
    if mixed.contains(where: { "+/".contains($0) }), mixed.contains(where: { "-_".contains($0) }) {
      #expect(RelayFingerprint.parse(mixed) == nil)
    }
    // The question a person reads names it as the link does.
    if case .refuse(let why) = decide(presented: canonical) {
      #expect(why.contains(shown) && !why.contains(canonical))
    } else {
      Issue.record("an unknown relay was not refused")
    }
  }

  @Test("the known-relays file remembers one fingerprint per relay and survives a hand-edited line")
  func knownRelaysFile() throws {
    let path = FileManager.default.temporaryDirectory
      .appendingPathComponent("cowatch-known-\(UInt64.random(in: 0...UInt64.max))/known-relays")
      .path
    defer {
      try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent)
    }
    let known = KnownRelays(path: path)
    #expect(known.fingerprint(for: "h:1") == nil)
    try known.remember(a, for: "h:1")
    try known.remember(b, for: "h:2")
    try known.remember(b, for: "h:1")
    #expect(known.fingerprint(for: "h:1") == b)
    #expect(known.fingerprint(for: "h:2") == b)
    try ("garbage line\n" + (try String(contentsOfFile: path, encoding: .utf8))).write(
      toFile: path, atomically: true, encoding: .utf8)
    #expect(known.fingerprint(for: "h:2") == b)
    #expect(
      KnownRelays.defaultPath(environment: ["XDG_CONFIG_HOME": "/x/config"])
        == "/x/config/cowatch/known-relays")
  }

  @Test(
    "a relay's self-signed certificate is made once and kept: the same fingerprint after a restart, the key readable by its owner only"
  )
  func identityKept() throws {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("cowatch-identity-\(UInt64.random(in: 0...UInt64.max))").path
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let first = try RelayIdentity.loadOrCreate(in: directory)
    let again = try RelayIdentity.loadOrCreate(in: directory)
    #expect(first.fingerprint == again.fingerprint && first.isSelfSigned)
    let mode =
      try FileManager.default.attributesOfItem(atPath: directory + "/relay-key.pem")[
        .posixPermissions] as? Int
    #expect(mode == 0o600)
    #expect(try RelayIdentity.makeSelfSigned().fingerprint != first.fingerprint)
    #expect(throws: RelayTLSError.self) {
      try RelayIdentity.load(
        certificate: directory + "/nope.pem", key: directory + "/relay-key.pem")
    }
    // Files that are not what they are given as are named, each for what it is not.
    let text = directory + "/notes.txt"
    try "not a certificate".write(toFile: text, atomically: true, encoding: .utf8)
    #expect {
      try RelayIdentity.load(certificate: text, key: directory + "/relay-key.pem")
    } throws: { error in
      "\(error)".contains("\(text) is not a PEM certificate")
    }
    #expect {
      try RelayIdentity.load(certificate: directory + "/relay-certificate.pem", key: text)
    } throws: { error in
      "\(error)".contains("\(text) is not a PEM private key")
    }
  }

  @Test(
    "relays started at once on a fresh machine all use one certificate: nobody reads a half-written key or a key that is not its certificate's"
  )
  func identityMadeOnceUnderRace() async throws {
    for _ in 0..<5 {
      let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("cowatch-identity-race-\(UInt64.random(in: 0...UInt64.max))").path
      defer { try? FileManager.default.removeItem(atPath: directory) }
      let fingerprints = await withTaskGroup(of: String?.self) { group in
        for _ in 0..<8 {
          group.addTask { try? RelayIdentity.loadOrCreate(in: directory).fingerprint }
        }
        var all: [String?] = []
        for await f in group { all.append(f) }
        return all
      }
      #expect(fingerprints.allSatisfy { $0 != nil }, "every relay could start")
      #expect(Set(fingerprints.compactMap { $0 }).count == 1, "one certificate")
    }
  }
}
