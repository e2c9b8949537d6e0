import ArgumentParser
import Foundation
import FrontSessions
import HeadlessFront
import Invites
import Logging
import NearbyDiscovery
import ParticipantRuntime
import Participation
import RelayTLS
import RoomCarrying
import Rooms
import RouterPortMapping
import Synchronization
import TCPRelayClient
import TCPRelayServer
import WireProtocol

struct HostCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "host",
    abstract: "Run a relay here and join it; prints the command others use to join.")

  @Option(help: "Address the embedded relay listens on (0.0.0.0: every interface).") var bind =
    "0.0.0.0"
  @Option(help: "TCP port of the embedded relay.") var port = 7700
  @Flag(help: "Do not advertise the room on the local network (see cowatch nearby).")
  var noAdvertise = false
  @Flag(
    help:
      "Do not ask the home router (UPnP-IGD, NAT-PMP) to forward the relay's port to this machine.")
  var noPortMapping = false
  @OptionGroup var options: ParticipantOptions
  @OptionGroup var tls: RelayTLSOptions

  func validate() throws {
    guard (0...65535).contains(port) else { throw ValidationError("--port must be 0–65535") }
  }

  func run() async throws {
    // Before the relay makes its logger: with the front, logs must not reach the screen.
    ParticipantRun.bootstrapLogs(options)
    // Before the relay starts: a front that cannot run here must not open a room.
    try ParticipantRun.checkTerminal(options)
    let identity = try tls.identity(command: "host")
    let context = try RelayTLSOptions.context(identity, command: "host")
    let server: RelayServer
    do {
      var configuration = RelayConfiguration()
      configuration.onlyRoom = options.room
      // Lent copies between members who cannot reach each other go through it.
      configuration.tunnels = .host
      // Resumes addressed to this relay name its certificate.
      configuration.certificateFingerprints = identity.map { [$0.fingerprint] } ?? []
      server = try await RelayServer.start(
        host: bind, port: port, configuration: configuration, tls: context,
        feedsSuccessors: true)
    } catch {
      throw CommandFailure("host", error.description)
    }
    // Every address this machine may be reached at (the LAN's, when listening on all of
    // them), in one link with the room and the certificate's fingerprint.
    let hosts = bind == "0.0.0.0" ? LocalAddress.nonLoopbackIPv4() : [bind]
    let link = InviteLink(
      room: options.room,
      addresses: (hosts.isEmpty ? ["127.0.0.1"] : hosts).map { "\($0):\(server.port)" },
      fingerprint: identity?.fingerprint, plain: identity == nil)
    let invite = "cowatch join \(link.text) --name NAME"
    if identity == nil, !RelayTLSOptions.isLoopback(bind) {
      Console.error(
        "WARNING: TLS is off (--no-tls): anyone on the network path can read and change everything, chat included."
      )
    }
    if options.headless {
      Console.line(
        OrderedJSON.object([
          ("event", "invite"), ("command", .string(invite)), ("link", .string(link.text)),
        ]).serialized)
    } else {
      Console.error("Others join with: \(invite)")
      // What someone who found the room nearby is asked to compare.
      if let identity {
        Console.error("The relay's certificate: \(RelayFingerprint.shown(identity.fingerprint))")
      }
    }
    // Others on the LAN find it with `cowatch nearby` (not when only this machine can reach
    // the relay).
    let advertiser =
      noAdvertise || RelayTLSOptions.isLoopback(bind)
      ? nil
      : await NearbyAdvertising.start(
        runtime: server.runtime, addresses: hosts, port: server.port,
        fingerprint: identity?.fingerprint, command: "host")
    // Friends elsewhere reach the room through the router, if it forwards the port: asked
    // meanwhile (the room starts at once); the link is given again once the answer is in.
    let (inviteChanges, inviteChange) = AsyncStream.makeStream(of: InviteChange.self)
    let forwarding =
      noPortMapping || RelayTLSOptions.isLoopback(bind) || hosts.isEmpty
      ? nil
      : RouterPortForwarding.start(port: server.port, lease: Self.portMappingLease) { outcome in
        let change = Self.inviteChange(outcome, link: link, port: server.port)
        if options.headless {
          Self.printHeadless(outcome, change: change)
        }
        inviteChange.yield(change)
      }
    let local = bind == "0.0.0.0" ? "127.0.0.1" : bind
    let transport = TCPTransport(
      host: local, port: server.port,
      tls: identity.map { RelayVerification(pinned: $0.fingerprint, knownRelays: nil) })
    // Were this machine to sleep past the others' patience, they would carry the room on
    // without it: awake again, its relay finds where, and sends this participant there.
    server.runtime.locateRooms { room, relay in
      await RoomLocating.locate(room, at: relay, over: transport)
    }
    let handedTo = Mutex<Successor?>(nil)
    do {
      try await ParticipantRun.run(
        command: "host",
        transport: transport,
        options: options, invite: link, hostsRoom: true,
        leave: RoomLeave.leave(
          relay: server, name: options.name, handedOver: { next in handedTo.withLock { $0 = next } }
        ),
        hostOffer: (
          CarryOffer(
            port: server.port, fingerprint: identity?.fingerprint, runsRelay: true,
            relayKey: server.runtime.ownerKey),
          server.runtime.epoch
        ),
        inviteChanges: options.headless ? nil : inviteChanges, lendsByDefault: true,
        lendHost: hosts.first ?? "127.0.0.1")
    } catch {
      inviteChange.finish()
      await advertiser?.stop()
      await forwarding?.stop()
      await server.close(because: "the room's host stopped")
      throw error
    }
    inviteChange.finish()
    // Left "only me": the room goes on on a successor's machine, and the link printed at
    // the start reaches nobody now. The one that reaches the room where it is, instead.
    if let next = handedTo.withLock({ $0 }) {
      let moved = link.moved(to: next.relay)
      let command = FrontSession.invite(for: moved)
      if options.headless {
        Console.line(
          OrderedJSON.object([
            ("event", "invite"), ("command", .string(command)), ("link", .string(moved.text)),
            ("moved_to", .string(next.name)),
          ]).serialized)
      } else {
        Console.error("The room goes on on \(next.name)'s machine. Others join with: \(command)")
      }
    }
    // The room is no longer offered nearby (at once), nor through the router (which may
    // take the seconds its question still has to run), before the relay closes: nothing
    // should point at a port nobody answers.
    await advertiser?.stop()
    await forwarding?.stop()
    // The participant has left and its client has stopped: now the relay, cleanly, and
    // for good — the others stop instead of reconnecting to nothing.
    await server.close(because: "\(options.name) closed the room (it ran on their machine)")
  }
}

extension HostCommand {
  /// The lifetime asked of the router: an hour, or COWATCH_PORT_MAPPING_LEASE seconds
  /// (4–86400; the router test uses a few, to see the mapping renewed).
  static var portMappingLease: Int {
    ProcessInfo.processInfo.environment["COWATCH_PORT_MAPPING_LEASE"].flatMap { Int($0) }
      .flatMap { (4...86_400).contains($0) ? $0 : nil } ?? RouterPortForwarding.defaultLease
  }

  /// The link with the router's public address first, or the warning alone.
  static func inviteChange(_ outcome: PortMappingOutcome, link: InviteLink, port: Int)
    -> InviteChange
  {
    guard case .mapped(let mapped) = outcome else {
      return InviteChange(link: nil, note: outcome.description(port: port), warning: true)
    }
    var reachable = link
    let outside = "\(mapped.publicAddress):\(mapped.publicPort)"
    reachable.addresses = Array(
      ([outside] + link.addresses.filter { $0 != outside }).prefix(InviteLink.maximumAddresses))
    return InviteChange(link: reachable, note: outcome.description(port: port), warning: false)
  }

  /// Headless: the invite again as a new line with the public address first, or a line
  /// that says friends outside cannot reach the room.
  static func printHeadless(_ outcome: PortMappingOutcome, change: InviteChange) {
    if let link = change.link, case .mapped(let mapped) = outcome {
      Console.line(
        OrderedJSON.object([
          ("event", "invite"), ("command", .string(FrontSession.invite(for: link))),
          ("link", .string(link.text)),
          ("public", .string("\(mapped.publicAddress):\(mapped.publicPort)")),
          ("via", .string(mapped.method.rawValue)),
        ]).serialized)
    } else {
      Console.line(
        OrderedJSON.object([
          ("event", "reach"), ("outside", false), ("message", .string(change.note)),
        ]).serialized)
    }
  }
}
