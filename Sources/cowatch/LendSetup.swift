import Foundation
import LendingEndpoint
import ParticipantRuntime
import RelayTLS
import TCPRelayClient
import Transports

#if canImport(Glibc)
  import Glibc
#endif

/// The command line's side of lending: with mpv, a participant borrows what it lacks; with
/// a library of its own it can lend, over TLS with this machine's certificate (the one its
/// relay and carrying use), at the address it reaches the room's relay from — from the
/// start (`host`, `join --lend`), or once the person says `lend on`.
enum LendSetup {
  /// nil unless the player is mpv (the simulated one plays no bytes).
  static func start(
    options: ParticipantOptions, media: LoadedMedia, lendsByDefault: Bool, lendHost: String,
    command: String
  ) async throws(CommandFailure) -> ItemLending? {
    guard options.player == "mpv" else { return nil }
    let lends = lendsByDefault ? !options.noLend : options.lend
    guard !media.paths.isEmpty else { return ItemLending(paths: media.paths, lender: nil) }
    do {
      let identity = try RelayIdentity.loadOrCreate(in: StatePaths.directory())
      let endpoint = try await LenderEndpoint.start(
        host: "0.0.0.0", tls: try identity.serverContext(), lends: lends)
      return ItemLending(
        paths: media.paths,
        lender: ItemLending.Lender(
          endpoint: endpoint, host: lendHost, fingerprint: identity.fingerprint))
    } catch {
      // Asked to lend: say it cannot. Otherwise borrowing still works; `lend on` will say
      // there is nothing to lend.
      guard !lends else {
        throw CommandFailure(
          command, "cannot lend your copies: \(error) (--no-lend does without)")
      }
      return ItemLending(paths: media.paths, lender: nil)
    }
  }

  /// The relayed path over a TCP relay's addresses (nil in memory): tunnels opened as
  /// ``TunnelDialer`` opens them, pinned to the certificate the member's connection checked.
  static func tunnels(over transport: any Transport) -> RelayTunnels? {
    let addresses: [TCPTransport]
    if let tcp = transport as? TCPTransport {
      addresses = [tcp]
    } else if let racing = transport as? RacingTransport {
      addresses = racing.addresses + racing.fallbacks
    } else {
      return nil
    }
    let dialer = TunnelDialer(transports: addresses)
    return RelayTunnels { secret, relay, fingerprint in
      let half = try await dialer.dial(secret: secret, relay: relay, fingerprint: fingerprint)
      return LenderRoute.Opened(channel: half.channel, release: half.release)
    }
  }

  /// The address of this machine that reaches `host` (the interface a packet to it would
  /// leave from; nothing is sent), or nil.
  static func address(toward host: String) -> String? {
    var hints = addrinfo()
    hints.ai_family = AF_INET
    hints.ai_socktype = Int32(SOCK_DGRAM.rawValue)
    var found: UnsafeMutablePointer<addrinfo>?
    guard getaddrinfo(host, "9", &hints, &found) == 0, let info = found else { return nil }
    defer { freeaddrinfo(found) }
    let socket = Glibc.socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
    guard socket >= 0 else { return nil }
    defer { close(socket) }
    guard connect(socket, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 else { return nil }
    var local = sockaddr_in()
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let named = withUnsafeMutablePointer(to: &local) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) }
    }
    guard named == 0 else { return nil }
    var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
    guard inet_ntop(AF_INET, &local.sin_addr, &text, socklen_t(INET_ADDRSTRLEN)) != nil else {
      return nil
    }
    return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }
}
