import Foundation
import Invites
import NearbyDiscovery
import NearbyRooms
import RelayTLS
import Synchronization
import TCPRelayClient
import Transports

/// `cowatch join --nearby [ROOM]`: finds the room on the local network, and trusts its
/// relay only as a person confirms (an advertisement is anyone's claim).
enum NearbyJoin {
  /// How long to look for a named room before saying it is not there; without a name,
  /// how long to gather what there is.
  static let lookForNamed: Duration = .seconds(5)
  static let gather: Duration = .milliseconds(1500)

  /// The room to join: the one named (once it appears), the only one there is, or one the
  /// person picks from a numbered list (headless: a list and a way to name one).
  static func pick(room: String?, headless: Bool) async throws(CommandFailure) -> NearbyRoom {
    let rooms = Mutex<[NearbyRoom]>([])
    do {
      try await NearbyBrowsing.browse(for: room == nil ? gather : lookForNamed) { event in
        switch event {
        case .appeared(let found), .changed(let found):
          rooms.withLock { list in
            list.removeAll { $0.instance == found.instance }
            list.append(found)
          }
          // Found what was named: no need to look further — unless it says no TLS, which
          // anyone can say for any room: the real one, with TLS, may take its place yet.
          return room == nil || found.room != room || found.fingerprint == nil
        case .left(let gone):
          rooms.withLock { $0.removeAll { $0.instance == gone.instance } }
          return true
        }
      }
    } catch {
      throw CommandFailure("join", error.description)
    }
    var candidates = rooms.withLock { $0 }.sorted { ($0.room, $0.machine) < ($1.room, $1.machine) }
    if let room { candidates.removeAll { $0.room != room } }
    switch candidates.count {
    case 0:
      throw CommandFailure(
        "join",
        room.map {
          "no room \($0) nearby (see cowatch nearby; a host on another network needs its invite link)"
        }
          ?? "no rooms nearby (a host on another network needs its invite link)")
    case 1:
      return candidates[0]
    default:
      let list = candidates.enumerated().map { "  \($0.offset + 1)) \(describe($0.element))" }
      guard !headless, isatty(STDIN_FILENO) == 1 else {
        throw CommandFailure(
          "join",
          "\(candidates.count) rooms nearby; name one (cowatch join --nearby ROOM):\n"
            + candidates.map { room in
              // A link only for a relay already trusted here: anyone can advertise one.
              let known = NearbyCommand.isVerified(room, known: KnownRelays())
              return "  \(describe(room))\(known ? ": \(room.link.text)" : "")"
            }.joined(separator: "\n"))
      }
      Console.error("Rooms nearby:\n" + list.joined(separator: "\n"))
      Console.errorWithoutNewline("Which one? [1–\(candidates.count)] ")
      guard let line = readLine(), let choice = Int(line.trimmingCharacters(in: .whitespaces)),
        candidates.indices.contains(choice - 1)
      else {
        throw CommandFailure("join", "no room picked")
      }
      return candidates[choice - 1]
    }
  }

  static func describe(_ room: NearbyRoom) -> String {
    let who = room.host.map { "hosted by \($0) on \(room.machine)" } ?? "on \(room.machine)'s relay"
    return "\(room.room), \(who) (\(room.addresses.first ?? "?"):\(room.port))"
      + (room.fingerprint == nil ? ", plain TCP (no TLS)" : ", TLS")
      + (room.password ? ", password" : "")
  }

  /// The transport to the room found: its addresses raced, its relay's certificate pinned
  /// only once trusted — already known, named with --fingerprint, confirmed at the terminal,
  /// or (headless) taken with --trust-new-relay.
  static func transport(
    for found: NearbyRoom, options: inout ParticipantOptions, trust: RelayTrustOptions
  ) throws(CommandFailure) -> (any Transport, plain: Bool, link: InviteLink?) {
    options.roomOption = found.room
    let link = found.link
    let known = KnownRelays()
    let endpoints = link.addresses
    var remembered: [String: String] = [:]
    for endpoint in endpoints { remembered[endpoint] = known.fingerprint(for: endpoint) }
    let decision = NearbyTrust.decide(
      room: found.room, advertised: found.fingerprint,
      given: trust.fingerprint.flatMap(RelayFingerprint.parse), noTls: trust.noTls,
      trustNew: trust.trustNewRelay, canAsk: !options.headless && isatty(STDIN_FILENO) == 1,
      endpoints: endpoints, known: remembered, knownRelaysPath: known.path)
    var verification: RelayVerification?
    switch decision {
    case .refuse(let why):
      throw CommandFailure("join", why)
    case .askPlain(let question):
      guard SecretPrompt.confirm(question) else {
        throw CommandFailure("join", "you did not join room \(found.room) in plain TCP")
      }
    case .plain:
      Console.error(
        "cowatch join: room \(found.room) nearby runs without TLS: anyone on this network can read and change what you send"
      )
    case .trust(let remember), .ask(let remember):
      let advertised = found.fingerprint ?? ""
      if case .ask = decision {
        let question =
          "Room \(describe(found)) presents \(RelayFingerprint.shown(advertised)).\nAsk its host whether that is theirs: their invite link ends in it (i in their front shows the link). Trust it? [y/N] "
        guard SecretPrompt.confirm(question) else {
          throw CommandFailure("join", "you did not trust room \(found.room)'s relay")
        }
      }
      for endpoint in remember { try? known.remember(advertised, for: endpoint) }
      verification = trust.verification(headless: options.headless)
      verification?.ask = nil
      // Whatever made it trusted, only that certificate is accepted now.
      verification?.pinned = advertised
    }
    let addresses = try JoinCommand.transports(to: link.addresses, tls: verification)
    return (RacingTransport(addresses: addresses, fallbacks: []), found.fingerprint == nil, link)
  }
}
