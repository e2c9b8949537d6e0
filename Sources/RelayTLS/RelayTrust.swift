/// Whether to trust the certificate a relay presents: the decision alone, from what is
/// known, so that it is tested without a network (the edge gathers the facts and acts).
///
/// In order: a pinned fingerprint (`--fingerprint`) must match, and nothing else counts; a
/// certificate a system CA vouches for, for the relay's name, is trusted; a fingerprint
/// remembered for the relay must match — a different one is refused loudly, never asked
/// about (it is what an attacker on the path would present); an unknown relay is asked
/// about once (the front) or trusted if the person said so beforehand
/// (`--trust-new-relay`), and then remembered; otherwise refused.
public enum RelayTrust {
  public enum Decision: Hashable, Sendable {
    case trust
    /// Trust and remember it for next time.
    case trustAndRemember
    /// Ask the person (the answer decides, and a yes is remembered).
    case ask
    case refuse(String)
  }

  public static func decide(
    endpoint: String, presented: String, pinned: String?, caVerified: Bool, known: String?,
    trustNew: Bool, canAsk: Bool, knownRelaysPath: String? = nil
  ) -> Decision {
    // Either spelling of a fingerprint (links' and SSH's) names the same certificate.
    let pinned = pinned.map { RelayFingerprint.parse($0) ?? $0 }
    let known = known.map { RelayFingerprint.parse($0) ?? $0 }
    if let pinned {
      return presented == pinned
        ? .trust
        : .refuse(
          "the relay at \(endpoint) presents \(RelayFingerprint.shown(presented)), not the pinned \(RelayFingerprint.shown(pinned)): refusing (someone may be in the way, or the relay's certificate changed)"
        )
    }
    if caVerified { return .trust }
    if let known {
      return presented == known
        ? .trust
        : .refuse(
          "THE RELAY AT \(endpoint) PRESENTS A DIFFERENT CERTIFICATE: \(RelayFingerprint.shown(presented)), not \(RelayFingerprint.shown(known)) as before. Someone may be in the way. If the relay's operator changed it, remove its line from \(knownRelaysPath ?? "the known-relays file") and connect again: refusing"
        )
    }
    if trustNew { return .trustAndRemember }
    if canAsk { return .ask }
    return .refuse(
      "the relay at \(endpoint) presents \(RelayFingerprint.shown(presented)), which is not known here: give --fingerprint (from the invite) or --trust-new-relay"
    )
  }
}
