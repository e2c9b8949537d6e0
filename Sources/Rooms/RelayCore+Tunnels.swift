import PlaybackCoordination
import WireProtocol

/// Tunnels for lent copies: a member asks for one to another member of its room, the relay
/// gives both a ticket (a secret from its CSPRNG), and the two connections that come with
/// it are spliced by the edge, byte for byte. The relay carries the members' own TLS
/// between them: it never reads the film nor the grant. Every rule is here; the edge only
/// carries bytes (and paces them, see ``TunnelRates``).
extension RelayCore {
  /// Tunnels open or waiting, and how many were refused since the start.
  public var tunnelCounts: (open: Int, waiting: Int, refused: Int) {
    let open = tunnels.count { $0.spliced }
    return (open, tunnels.tunnels.count - open, tunnels.refused)
  }

  /// A member asks for a tunnel to `lender`: answered with a ticket (and the lender called)
  /// or a refusal in words; a refusal changes nothing.
  mutating func openTunnel(
    ref: UInt64, to lender: ParticipantID, from borrower: ParticipantID, in roomName: String,
    via id: ConnectionID, at now: GroupInstant
  ) -> [RelayAction] {
    func refuse(_ reason: String) -> [RelayAction] {
      tunnels.refused += 1
      return [.send(.tunnelRefused(ref: ref, reason: reason), to: id)]
    }
    guard let policy = configuration.tunnels else {
      return refuse(
        "this relay does not carry lent copies (a cowatch serve relay does only with --lend-relay-rate)"
      )
    }
    guard lender != borrower else { return refuse("you cannot borrow from yourself") }
    guard let room = rooms[roomName], room.members[borrower] != nil else { return [] }
    guard let member = room.members[lender] else {
      return refuse("\(lender.rawValue.prefix(32)) is not in this room")
    }
    guard let lenderConnection = member.connection else {
      return refuse("\(member.name) is away from the room")
    }
    if tunnels.count(where: { $0.room == roomName && $0.borrower == borrower })
      >= policy.maximumPerBorrower
    {
      return refuse(
        "you have \(policy.maximumPerBorrower) tunnels open or waiting already, the most allowed")
    }
    if tunnels.count(where: { $0.room == roomName }) >= policy.maximumPerRoom {
      return refuse("this room has \(policy.maximumPerRoom) tunnels already, the most allowed")
    }
    if tunnels.tunnels.count >= policy.maximumTotal {
      return refuse("the relay carries \(policy.maximumTotal) tunnels already, the most it allows")
    }
    let ticket = freshTunnelSecret()
    let call = freshTunnelSecret(besides: ticket)
    let tunnel = tunnels.add(
      secrets: [.borrower: ticket, .lender: call], room: roomName, borrower: borrower,
      lender: lender, at: now)
    return [
      .send(.tunnelTicket(ref: ref, secret: ticket), to: id),
      .send(.tunnelCall(secret: call, borrower: borrower), to: lenderConnection),
      .log(.info, "\(roomName): tunnel \(tunnel) from \(borrower) to \(lender) asked for"),
    ]
  }

  /// A secret no tunnel has (a collision would pair strangers' halves; 128 random bits make
  /// the check a formality).
  private func freshTunnelSecret(besides other: String? = nil) -> String {
    var secret = makeSecret()
    while tunnels.bySecret[secret] != nil || secret == other || !TunnelSecret.isPlausible(secret) {
      secret = makeSecret()
    }
    return secret
  }

  /// A connection's first line names a side's secret: it becomes that half of the tunnel
  /// (it is no longer a line connection of the core's); the other side's splices them.
  mutating func attachTunnel(secret: String, on id: ConnectionID, at now: GroupInstant)
    -> [RelayAction]
  {
    guard configuration.tunnels != nil else {
      return fatal(id, .tunnelRefused, "this relay does not carry lent copies", at: now)
    }
    // A secret pairs one connection: once used it is forgotten, so a second connection
    // with it is as unknown as a forged one.
    guard let (tunnelID, side) = tunnels.bySecret.removeValue(forKey: secret),
      var tunnel = tunnels.tunnels[tunnelID], tunnel.halves[side] == nil
    else {
      return fatal(
        id, .tunnelRefused, "no tunnel has that ticket (it expired, or was never given)", at: now)
    }
    connections[id] = nil
    tunnel.halves[side] = id
    tunnels.byHalf[id] = tunnelID
    guard let borrowerHalf = tunnel.halves[.borrower], let lenderHalf = tunnel.halves[.lender]
    else {
      tunnels.tunnels[tunnelID] = tunnel
      return []
    }
    tunnel.spliced = true
    tunnels.tunnels[tunnelID] = tunnel
    return [
      .splice(tunnelID, borrowerHalf, lenderHalf, room: tunnel.room),
      .log(.info, "\(tunnel.room): tunnel \(tunnelID) spliced"),
    ]
  }

  /// The edge closed a spliced tunnel (either side ended it): it no longer counts.
  public mutating func tunnelEnded(_ id: TunnelID, at now: GroupInstant) -> [RelayAction] {
    guard let tunnel = tunnels.remove(id) else { return [] }
    return [.log(.info, "\(tunnel.room): tunnel \(id) closed")]
  }

  /// A half that waits for the other closed its connection: the tunnel goes, and the other
  /// half with it (its member asks again if it still wants one).
  mutating func tunnelHalfClosed(_ id: ConnectionID) -> [RelayAction] {
    guard let tunnelID = tunnels.byHalf[id], let tunnel = tunnels.remove(tunnelID) else {
      return []
    }
    if tunnel.spliced { return [.closeTunnel(tunnelID)] }
    return tunnel.connections.filter { $0 != id }.map { .close($0) }
  }

  /// `participant` left `roomName` (nil: everyone, the room goes): its tunnels close.
  mutating func closeTunnels(of participant: ParticipantID?, in roomName: String)
    -> [RelayAction]
  {
    let gone = tunnels.tunnels.values.filter {
      $0.room == roomName
        && (participant == nil || $0.borrower == participant || $0.lender == participant)
    }.sorted { $0.id < $1.id }
    var actions: [RelayAction] = []
    for tunnel in gone {
      tunnels.remove(tunnel.id)
      if tunnel.spliced {
        actions.append(.closeTunnel(tunnel.id))
      } else {
        for half in tunnel.connections {
          actions.append(
            .send(
              .error(
                code: .tunnelRefused, message: "a member of the tunnel left the room", fatal: true),
              to: half))
          actions.append(.close(half))
        }
      }
    }
    return actions
  }

  /// Tickets whose halves did not both come within the ticket's lifetime.
  mutating func expireTunnels(at now: GroupInstant) -> [RelayAction] {
    guard let lifetime = configuration.tunnels?.ticketLifetime else { return [] }
    let expired = tunnels.tunnels.values.filter {
      !$0.spliced && now.seconds(since: $0.issued) > lifetime
    }.sorted { $0.id < $1.id }
    var actions: [RelayAction] = []
    for tunnel in expired {
      tunnels.remove(tunnel.id)
      for half in tunnel.connections {
        let text = "the other side of the tunnel did not come within \(Self.seconds(lifetime))"
        actions.append(.send(.error(code: .tunnelRefused, message: text, fatal: true), to: half))
        actions.append(.close(half))
      }
      actions.append(.log(.info, "\(tunnel.room): tunnel \(tunnel.id) expired"))
    }
    return actions
  }
}
