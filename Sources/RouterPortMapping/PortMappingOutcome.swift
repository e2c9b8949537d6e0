/// What asking the home router to forward the relay's port came to, said so that the
/// person hosting knows whether friends elsewhere can reach the room, and what to do if not.
public enum PortMappingOutcome: Hashable, Sendable {
  /// The router forwards `publicAddress:publicPort` to this machine.
  case mapped(MappedPort)
  /// The router answers, but its own outside address is private (or it has none): another
  /// NAT (a carrier's, a second router) stands between it and the internet.
  case privateOutside(address: String?, method: PortMappingMethod)
  /// No router forwarded the port (none answered, or none would, or one whose word was not
  /// taken); why, per method.
  case noRouter([String])

  /// One or two sentences for the person hosting.
  public func description(port: Int) -> String {
    switch self {
    case .mapped(let mapped):
      return
        "The router forwards \(mapped.publicAddress):\(mapped.publicPort) to this machine (\(mapped.method)): friends anywhere can join with the new link."
    case .privateOutside(let address, _):
      let what =
        address.map { "the router's own outside address, \($0), is private" }
        ?? "the router has no public address of its own"
      return
        "Friends outside this network cannot reach this room: \(what) (carrier-grade NAT, or a second router in front of it). \(Self.advice(port: port))"
    case .noRouter(let reasons):
      return
        "Friends outside this network cannot reach this room: no router forwarded its port (\(reasons.joined(separator: "; "))). \(Self.advice(port: port))"
    }
  }

  /// Whether friends would read the same from both: the same public address and port, or
  /// the same failure (a renewal's lifetime may differ: not news).
  public func reachesTheSame(as other: PortMappingOutcome) -> Bool {
    switch (self, other) {
    case (.mapped(let a), .mapped(let b)):
      a.publicAddress == b.publicAddress && a.publicPort == b.publicPort
    case (.mapped, _), (_, .mapped): false
    default: true
    }
  }

  static func advice(port: Int) -> String {
    "Friends on this network can still join. For the others, forward TCP port \(port) to this machine in the router's settings, or meet on a relay with a public address (cowatch serve: see docs/DEPLOY.md)."
  }
}

/// How a router was asked.
public enum PortMappingMethod: String, Hashable, Sendable, CustomStringConvertible {
  case upnp = "UPnP-IGD"
  case natpmp = "NAT-PMP"
  public var description: String { rawValue }
}

/// A port the router forwards.
public struct MappedPort: Hashable, Sendable {
  public var method: PortMappingMethod
  public var publicAddress: String
  public var publicPort: Int
  /// Seconds the router keeps it without a renewal (0: until removed).
  public var lifetime: Int

  public init(method: PortMappingMethod, publicAddress: String, publicPort: Int, lifetime: Int) {
    self.method = method
    self.publicAddress = publicAddress
    self.publicPort = publicPort
    self.lifetime = lifetime
  }

  /// When to ask again: halfway through the lifetime (RFC 6886 §3.3 suggests renewing then),
  /// at least 2 s from now; an hour for a mapping that does not expire (a router that
  /// restarts forgets it).
  public var renewalDelay: Duration {
    lifetime <= 0 ? .seconds(3600) : .seconds(max(2, lifetime / 2))
  }
}

/// Addresses the internet cannot route to: what a router's outside address must not be for
/// its forwarded port to be reachable from anywhere.
public enum OutsideAddress {
  /// What a router's word about its outside address is worth, judged before any port is
  /// forwarded: a mapping whose address cannot go into a link would open a port for nothing.
  public enum Judgement: Hashable, Sendable {
    /// A public address, written the one plain way: it may go into a link.
    case usable
    /// Private (or none: "0.0.0.0"): another NAT stands in front of the router.
    case privateOutside(String?)
    /// Not an address friends could use; why, in words.
    case unusable(String)
  }

  public static func judge(_ answer: String?, method: PortMappingMethod) -> Judgement {
    guard let answer, answer != "0.0.0.0" else { return .privateOutside(nil) }
    guard isAddress(answer), !isUnreachable(answer) else {
      let shown = String(answer.prefix(40).filter { $0.isASCII && !$0.isNewline && $0 != "\"" })
      return .unusable(
        "\(method): the router's outside address is not one friends could use (\(shown)): not taken, and nothing forwarded"
      )
    }
    return isPrivate(answer) ? .privateOutside(answer) : .usable
  }

  /// Whether `text` is an IPv4 address written the one plain way (four numbers 0–255, no
  /// sign, no leading zero, nothing else): the router's answer goes into an invite link
  /// people paste into a shell, so anything else is not taken.
  public static func isAddress(_ text: String) -> Bool {
    let parts = text.split(separator: ".", omittingEmptySubsequences: false)
    return parts.count == 4
      && parts.allSatisfy { part in
        (1...3).contains(part.count) && part.allSatisfy { $0.isASCII && $0.isNumber }
          && (part.count == 1 || part.first != "0") && (Int(part) ?? 256) <= 255
      }
  }

  /// Multicast, reserved and broadcast addresses: not where anyone can be reached.
  public static func isUnreachable(_ address: String) -> Bool {
    guard let first = address.split(separator: ".").first.flatMap({ Int($0) }) else { return true }
    return first >= 224
  }

  /// RFC 1918, carrier-grade NAT (RFC 6598), loopback, link-local, "this network".
  public static func isPrivate(_ address: String) -> Bool {
    let parts = address.split(separator: ".").compactMap { UInt8($0) }
    guard parts.count == 4 else { return true }
    switch (parts[0], parts[1]) {
    case (10, _), (127, _), (0, _): return true
    case (172, 16...31), (192, 168), (169, 254): return true
    case (100, 64...127): return true
    default: return false
    }
  }
}
