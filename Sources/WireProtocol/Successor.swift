import PlaybackCoordination

/// A member whose machine is ready to carry the room when its relay goes (a host that
/// leaves, or dies): who it is, and where its own relay listens, with that relay's
/// certificate. The relay names its successors to every member; a participant trusts the
/// fingerprint because the relay it already trusts named it, as it trusts a `redirect`.
public struct Successor: Hashable, Sendable, Codable {
  public var participant: ParticipantID
  public var name: String
  public var relay: RelayEndpoint
  /// False when the relay could not reach that address (behind a NAT, a firewall): the
  /// member offered but cannot carry the room, and is named so that people know why.
  public var reachable: Bool
  /// False when the relay could not feed it the room (its connection went each time it
  /// was sent the room's copy): passed over for a while, and named so.
  public var feedable: Bool

  /// Whether it may be fed and handed the room.
  public var canCarry: Bool { reachable && feedable }

  public init(
    participant: ParticipantID, name: String, relay: RelayEndpoint, reachable: Bool = true,
    feedable: Bool = true
  ) {
    self.participant = participant
    self.name = name
    self.relay = relay
    self.reachable = reachable
    self.feedable = feedable
  }

  /// Successors a relay names at most (it keeps at least two when it can).
  public static let maximumCount = 8

  private enum Keys: String, CodingKey { case participant, name, relay, reachable, feedable }

  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: Keys.self)
    try c.encode(participant, forKey: .participant)
    try c.encode(name, forKey: .name)
    try c.encode(relay, forKey: .relay)
    if !reachable { try c.encode(false, forKey: .reachable) }
    if !feedable { try c.encode(false, forKey: .feedable) }
  }

  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: Keys.self)
    let name = try c.decode(String.self, forKey: .name)
    guard name.count <= ParticipantName.maximumCharacters,
      name.utf8.count <= ParticipantName.maximumBytes
    else {
      throw DecodingError.dataCorruptedError(
        forKey: .name, in: c, debugDescription: "a name of at most 32 characters")
    }
    self.init(
      participant: try c.decode(ParticipantID.self, forKey: .participant), name: name,
      relay: try c.decode(RelayEndpoint.self, forKey: .relay),
      reachable: try c.decodeIfPresent(Bool.self, forKey: .reachable) ?? true,
      feedable: try c.decodeIfPresent(Bool.self, forKey: .feedable) ?? true)
  }
}

/// Where a participant offers to carry the room: the port its relay listens on (at the
/// address the relay sees the participant's connection come from) and the fingerprint of
/// that relay's certificate (nil in a room without TLS). `runsRelay`: that relay is the
/// one this participant is talking to (a host's own participant, or a successor's that
/// took the room over): not a successor, but the member whose vote does not count if the
/// relay goes (see ``RoomChange/host``). `relayKey`: the secret by which that relay knows
/// its own machine's participant (see ``RelayKey``), sent to that relay only, and only
/// with `runsRelay`: an address proves nothing (a successor's participant reaches its own
/// relay at its LAN address, as anyone on the LAN can).
public struct CarryOffer: Hashable, Sendable {
  public var port: Int
  public var fingerprint: String?
  public var runsRelay: Bool
  public var relayKey: String?

  public init(port: Int, fingerprint: String?, runsRelay: Bool = false, relayKey: String? = nil) {
    self.port = port
    self.fingerprint = fingerprint
    self.runsRelay = runsRelay
    self.relayKey = relayKey
  }

  /// What is said to a relay that is not this participant's own: that it can carry the
  /// room, and nothing of its own relay's key.
  public var toAnotherRelay: CarryOffer {
    CarryOffer(port: port, fingerprint: fingerprint)
  }

  /// The endpoint at `host` (an IP address as a connection shows it).
  public func endpoint(host: String) -> RelayEndpoint {
    RelayEndpoint(
      address: host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)",
      fingerprint: fingerprint)
  }
}
