import RelayTLS
import Testing

/// Joining a room found nearby, decided from the advertisement and what is known: the
/// downgrades and overwrites a stranger on the same Wi-Fi could try.
@Suite("Trusting a room found nearby")
struct NearbyTrustTests {
  let fp = "SHA256:" + String(repeating: "a", count: 43) + "="
  let other = "SHA256:" + String(repeating: "b", count: 43) + "="
  let endpoints = ["192.168.1.20:7700", "[fe80::1]:7700"]

  func decide(
    advertised: String?, given: String? = nil, noTls: Bool = false, trustNew: Bool = false,
    canAsk: Bool = false, known: [String: String] = [:]
  ) -> NearbyTrust.Decision {
    NearbyTrust.decide(
      room: "movie-night", advertised: advertised, given: given, noTls: noTls,
      trustNew: trustNew, canAsk: canAsk, endpoints: endpoints, known: known)
  }

  func refused(_ d: NearbyTrust.Decision, saying text: String) -> Bool {
    if case .refuse(let why) = d { why.contains(text) } else { false }
  }

  @Test("an advertisement that says no TLS is not followed into plain TCP unless asked for")
  func noDowngrade() {
    #expect(refused(decide(advertised: nil), saying: "add --no-tls if you know"))
    #expect(refused(decide(advertised: nil, trustNew: true), saying: "add --no-tls"))
    #expect(decide(advertised: nil, noTls: true) == .plain)
    // A person at the terminal is asked, in words that say what plain TCP means; never
    // with --fingerprint given.
    guard case .askPlain(let question) = decide(advertised: nil, canAsk: true) else {
      Issue.record("a person at the terminal was not asked")
      return
    }
    #expect(question.contains("without TLS"))
    #expect(question.contains("anyone on this network can read and change"))
    #expect(
      refused(decide(advertised: nil, given: fp, canAsk: true), saying: "you gave --fingerprint"))
  }

  @Test("--fingerprint is never ignored: a room advertised without TLS cannot match it")
  func fingerprintNotIgnored() {
    #expect(refused(decide(advertised: nil, given: fp), saying: "you gave --fingerprint"))
    #expect(refused(decide(advertised: other, given: fp), saying: "not the --fingerprint given"))
    #expect(decide(advertised: fp, given: fp) == .trust(remember: []))
  }

  @Test("a certificate remembered for one of its addresses is never replaced from here")
  func noOverwrite() {
    let known = [endpoints[0]: other]
    for d in [
      decide(advertised: fp, known: known), decide(advertised: fp, trustNew: true, known: known),
      decide(advertised: fp, canAsk: true, known: known),
      decide(advertised: fp, given: fp, known: known),
    ] {
      #expect(refused(d, saying: "was trusted before"), "\(d)")
    }
  }

  @Test("trusted once: only the addresses not known yet are remembered; unknown: asked or refused")
  func remembering() {
    #expect(
      decide(advertised: fp, known: [endpoints[0]: fp]) == .trust(remember: [endpoints[1]]))
    #expect(decide(advertised: fp, trustNew: true) == .trust(remember: endpoints))
    #expect(decide(advertised: fp, canAsk: true) == .ask(remember: endpoints))
    #expect(refused(decide(advertised: fp), saying: "--trust-new-relay"))
    #expect(refused(decide(advertised: fp, noTls: true), saying: "leave --no-tls out"))
  }
}
