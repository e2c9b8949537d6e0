/// Whether to join a room found on the local network, and how: the decision alone, from
/// what the advertisement says and what is known here, so that it is tested without a
/// network (``NearbyJoin`` in the command gathers the facts and acts).
///
/// An advertisement is anyone's claim: a stranger on the same Wi-Fi can answer for the
/// room's name with their own address, `tls=0`, or another certificate. So a nearby join
/// never goes down to plain TCP unless the person asked for it (`--no-tls`), never ignores
/// a `--fingerprint` (a room advertised without TLS cannot match one), and never replaces
/// a certificate remembered for one of the advertised addresses: that is refused loudly,
/// as a direct connection refuses it.
public enum NearbyTrust {
  public enum Decision: Hashable, Sendable {
    /// Plain TCP, as the person asked with `--no-tls`.
    case plain
    /// TLS pinned to the advertised certificate; `remember`: the addresses to remember it
    /// for (those not known yet), once trusted.
    case trust(remember: [String])
    /// Ask the person; a yes pins it and remembers it for `remember`.
    case ask(remember: [String])
    /// The room says it runs without TLS: ask the person (`question`), a yes joins in
    /// plain TCP.
    case askPlain(String)
    case refuse(String)
  }

  /// `advertised`: the fingerprint the advertisement names (nil: it says no TLS);
  /// `given`: `--fingerprint`; `known`: what is remembered for each advertised address.
  public static func decide(
    room: String, advertised: String?, given: String?, noTls: Bool, trustNew: Bool,
    canAsk: Bool, endpoints: [String], known: [String: String], knownRelaysPath: String? = nil
  ) -> Decision {
    guard let advertised else {
      if given != nil {
        return .refuse(
          "room \(room) nearby says it runs without TLS, but you gave --fingerprint: not joined (anyone on this network can advertise a room; use its invite link)"
        )
      }
      guard noTls else {
        if canAsk {
          return .askPlain(
            "Room \(room) nearby says it runs without TLS: anyone on this network can read and change what you send, and anyone can advertise a room without TLS under any name. Ask its host for the invite link if you are unsure. Join it in plain TCP? [y/N] "
          )
        }
        return .refuse(
          "room \(room) nearby says it runs without TLS: anyone on this network can advertise that for any room. Use its invite link, or add --no-tls if you know it runs without TLS"
        )
      }
      return .plain
    }
    if noTls {
      return .refuse("room \(room) nearby speaks TLS: leave --no-tls out")
    }
    // A certificate remembered for one of its addresses is never replaced from here.
    for endpoint in endpoints {
      if let pinned = known[endpoint], pinned != advertised {
        return .refuse(
          "THE ROOM \(room) NEARBY PRESENTS \(RelayFingerprint.shown(advertised)) AT \(endpoint), where \(RelayFingerprint.shown(pinned)) was trusted before. Someone on this network may be posing as it. If its host changed the certificate, remove the line for \(endpoint) from \(knownRelaysPath ?? "the known-relays file") and try again: not joined"
        )
      }
    }
    let unknown = endpoints.filter { known[$0] == nil }
    if let given {
      guard given == advertised else {
        return .refuse(
          "room \(room) nearby presents \(RelayFingerprint.shown(advertised)), not the --fingerprint given: not joined"
        )
      }
      return .trust(remember: [])
    }
    if endpoints.contains(where: { known[$0] == advertised }) {
      return .trust(remember: unknown)
    }
    if trustNew { return .trust(remember: unknown) }
    if canAsk { return .ask(remember: unknown) }
    return .refuse(
      "room \(room) nearby is on a relay not trusted yet (it presents \(RelayFingerprint.shown(advertised))); check with its host, then add --trust-new-relay or --fingerprint \(RelayFingerprint.shown(advertised))"
    )
  }
}
