import PlaybackCoordination

/// The relay's tunnels between members (for lent copies): each ticket given, the halves
/// that came with its secrets, and whether it is spliced. Part of ``RelayCore``'s state.
///
/// Each side has a secret of its own, given to that member alone: the borrower's in its
/// ticket, the lender's in the call. So a borrower cannot open the lender's half itself
/// (nor hand it to someone outside the room, to use the relay as a pipe of its own): the
/// other end of a borrower's tunnel is always the lender's process.
struct TunnelBook: Sendable {
  enum Side: Sendable, Hashable {
    case borrower, lender
  }

  struct Tunnel: Sendable {
    var id: TunnelID
    var secrets: [Side: String]
    var room: String
    var borrower: ParticipantID
    var lender: ParticipantID
    var issued: GroupInstant
    /// The connection that came with each side's secret.
    var halves: [Side: ConnectionID] = [:]
    var spliced = false

    var connections: [ConnectionID] { [halves[.borrower], halves[.lender]].compactMap { $0 } }
  }

  var tunnels: [TunnelID: Tunnel] = [:]
  var bySecret: [String: (TunnelID, Side)] = [:]
  var byHalf: [ConnectionID: TunnelID] = [:]
  var next: UInt64 = 1
  /// Tunnels asked for and refused, since the relay started (for the metrics).
  var refused = 0

  func count(where included: (Tunnel) -> Bool) -> Int { tunnels.values.count(where: included) }

  mutating func add(
    secrets: [Side: String], room: String, borrower: ParticipantID, lender: ParticipantID,
    at now: GroupInstant
  ) -> TunnelID {
    let id = TunnelID(next)
    next += 1
    tunnels[id] = Tunnel(
      id: id, secrets: secrets, room: room, borrower: borrower, lender: lender, issued: now)
    for (side, secret) in secrets { bySecret[secret] = (id, side) }
    return id
  }

  @discardableResult
  mutating func remove(_ id: TunnelID) -> Tunnel? {
    guard let tunnel = tunnels.removeValue(forKey: id) else { return nil }
    for secret in tunnel.secrets.values { bySecret[secret] = nil }
    for half in tunnel.connections { byHalf[half] = nil }
    return tunnel
  }
}
