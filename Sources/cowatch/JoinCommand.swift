import ArgumentParser
import Invites
import Logging
import ParticipantRuntime
import Participation
import RelayTLS
import RoomCarrying
import TCPRelayClient
import TCPRelayServer
import Transports
import WireProtocol

struct JoinCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "join",
    abstract: "Join a room from its invite link, or a relay at HOST[:PORT], and watch with it.")

  @Argument(
    help: ArgumentHelp(
      "The invite link (cowatch://…), or the relay's address, HOST[:PORT] (default port 7700); with --nearby, the room's name (optional).",
      valueName: "LINK-OR-ADDRESS"))
  var address: String?
  @Flag(
    help:
      "Join a room advertised on the local network (see cowatch nearby): the one named, the only one, or one picked from a list."
  )
  var nearby = false
  @OptionGroup var options: ParticipantOptions
  @OptionGroup var trust: RelayTrustOptions

  func validate() throws {
    if !nearby, address == nil {
      throw ValidationError(
        "say where: an invite link (cowatch://…), a relay's HOST[:PORT], or --nearby")
    }
    if nearby, let address, !RoomName.isValid(address) {
      throw ValidationError(
        "with --nearby, \"\(address)\" must be a room's name (\(RoomName.rule))")
    }
  }

  func run() async throws {
    ParticipantRun.bootstrapLogs(options)
    try ParticipantRun.checkTerminal(options)
    var options = self.options
    let (transport, plain, link): (any Transport, Bool, InviteLink?)
    if nearby {
      let found = try await NearbyJoin.pick(
        room: address ?? options.roomOption, headless: options.headless)
      (transport, plain, link) = try NearbyJoin.transport(
        for: found, options: &options, trust: trust)
    } else {
      (transport, plain, link) = try Self.transport(
        for: address ?? "", options: &options, trust: trust)
    }
    let carrier = try await RoomCarrySetup.start(options: options, tls: !plain, command: "join")
    // Borrowers reach a lender at the address this machine reaches the relay from.
    let relayHost = (link?.addresses.first ?? address ?? "").split(separator: ":").first
    let lendHost = relayHost.flatMap { LendSetup.address(toward: String($0)) }
    do {
      try await ParticipantRun.run(
        command: "join", transport: transport, options: options, invite: link,
        leave: carrier.map { RoomLeave.leave(relay: $0.server, name: options.name) },
        carrier: carrier, lendHost: lendHost ?? "127.0.0.1")
    } catch {
      await carrier?.stop()
      throw error
    }
    await carrier?.stop()
  }

  /// Where to connect, whether without TLS, and the link (which this person can pass on):
  /// an invite link's addresses, raced, with its room and fingerprint (options that say
  /// otherwise are a mistake, said so); or one address as the options say.
  static func transport(
    for argument: String, options: inout ParticipantOptions, trust: RelayTrustOptions
  ) throws(CommandFailure) -> (any Transport, plain: Bool, link: InviteLink?) {
    guard InviteLink.looksLikeLink(argument) else {
      do {
        let single = try TCPTransport(
          address: argument, tls: trust.verification(headless: options.headless))
        return (single, trust.noTls, nil)
      } catch {
        throw CommandFailure("join", error.description)
      }
    }
    let link: InviteLink
    do {
      link = try InviteLink.parse(argument)
    } catch {
      throw CommandFailure("join", error.description)
    }
    if let room = options.roomOption, room != link.room {
      throw CommandFailure(
        "join",
        "the link is for room \(link.room), not \(room) (leave --room out to use the link's)")
    }
    options.roomOption = link.room
    if let given = trust.fingerprint.flatMap(RelayFingerprint.parse), let named = link.fingerprint,
      given != named
    {
      throw CommandFailure(
        "join", "--fingerprint differs from the link's: which relay is meant? (leave it out)")
    }
    // A link without TLS needs no --no-tls; one with a fingerprint cannot do without; and
    // a fingerprint cannot be checked over plain TCP (as --no-tls --fingerprint is refused).
    if link.plain, trust.fingerprint != nil {
      throw CommandFailure(
        "join",
        "the link's relay runs without TLS, so --fingerprint cannot be checked: leave it out, or ask its host for a link with TLS"
      )
    }
    if trust.noTls, !link.plain {
      throw CommandFailure("join", "the link's relay speaks TLS: leave --no-tls out")
    }
    var verification = link.plain ? nil : trust.verification(headless: options.headless)
    if let fingerprint = link.fingerprint { verification?.pinned = fingerprint }
    let addresses = try transports(to: link.addresses, tls: verification)
    let fallbacks = link.successors.compactMap { relay -> TCPTransport? in
      var pinned = verification
      if pinned != nil {
        // Each successor's own certificate, as the link names it; none named: not tried.
        guard let fingerprint = relay.fingerprint else { return nil }
        pinned?.pinned = fingerprint
        pinned?.ask = nil
      }
      return try? TCPTransport(address: relay.address, tls: pinned)
    }
    return (RacingTransport(addresses: addresses, fallbacks: fallbacks), link.plain, link)
  }

  /// One transport per address of a link, all checked the same way; an address that is
  /// not one is the one line said.
  static func transports(to addresses: [String], tls verification: RelayVerification?)
    throws(CommandFailure) -> [TCPTransport]
  {
    var transports: [TCPTransport] = []
    for address in addresses {
      do {
        transports.append(try TCPTransport(address: address, tls: verification))
      } catch {
        throw CommandFailure("join", error.description)
      }
    }
    return transports
  }
}
