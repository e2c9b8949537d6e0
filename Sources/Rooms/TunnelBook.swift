import PlaybackCoordination

/// The relay's tunnels between members (for lent copies): each ticket given, the halves
/// that came with its secret, and whether it is spliced. Part of ``RelayCore``'s state.
struct TunnelBook: Sendable {
  struct Tunnel: Sendable {
    var id: TunnelID
    var secret: String
    var room: String
    var borrower: ParticipantID
    var lender: ParticipantID
    var issued: GroupInstant
    /// Connections that came with the secret (at most two).
    var halves: [ConnectionID] = []
    var spliced = false
  }

  var tunnels: [TunnelID: Tunnel] = [:]
  var bySecret: [String: TunnelID] = [:]
  var byHalf: [ConnectionID: TunnelID] = [:]
  var next: UInt64 = 1
  /// Tunnels asked for and refused, since the relay started (for the metrics).
  var refused = 0

  func count(where included: (Tunnel) -> Bool) -> Int { tunnels.values.count(where: included) }

  mutating func add(
    secret: String, room: String, borrower: ParticipantID, lender: ParticipantID,
    at now: GroupInstant
  ) -> TunnelID {
    let id = TunnelID(next)
    next += 1
    tunnels[id] = Tunnel(
      id: id, secret: secret, room: room, borrower: borrower, lender: lender, issued: now)
    bySecret[secret] = id
    return id
  }

  @discardableResult
  mutating func remove(_ id: TunnelID) -> Tunnel? {
    guard let tunnel = tunnels.removeValue(forKey: id) else { return nil }
    bySecret[tunnel.secret] = nil
    for half in tunnel.halves { byHalf[half] = nil }
    return tunnel
  }
}
