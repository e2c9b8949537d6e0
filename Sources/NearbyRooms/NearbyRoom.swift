import Invites
import PlaybackCoordination
import WireProtocol

/// A room as it is advertised on the local network (DNS-SD over multicast DNS): what the
/// `_cowatch._tcp` records of one service instance say. Discovery is not trust: the
/// fingerprint here is a claim that the person confirms before it is pinned.
public struct NearbyRoom: Hashable, Sendable {
  public var room: String
  /// The participant who hosts it (`cowatch host`), or nil for a relay (`cowatch serve`).
  public var host: String?
  /// The advertising machine's name, which keeps two machines' rooms of one name apart.
  public var machine: String
  public var port: UInt16
  /// IPv4 addresses, dotted; a room found nearby lists the one its answer came from first.
  public var addresses: [String]
  /// `SHA256:…`, or nil for a relay without TLS.
  public var fingerprint: String?
  public var password: Bool
  public var people: Int
  public var protocolVersion: Int

  public init(
    room: String, host: String?, machine: String, port: UInt16, addresses: [String],
    fingerprint: String?, password: Bool, people: Int,
    protocolVersion: Int = ProtocolVersion.current
  ) {
    self.room = room
    self.host = host
    self.machine = machine
    self.port = port
    self.addresses = addresses
    self.fingerprint = fingerprint
    self.password = password
    self.people = people
    self.protocolVersion = protocolVersion
  }

  /// The service type every Cowatch room is advertised under.
  public static let serviceType = DNSName(labels: ["_cowatch", "_tcp", "local"])
  /// The DNS-SD meta-query's name, under which service types are listed (RFC 6763 §9).
  public static let serviceTypes = DNSName(labels: ["_services", "_dns-sd", "_udp", "local"])
  /// How long others may keep these records: two minutes, so that a room whose machine
  /// vanished without a goodbye does not linger in a browser that keeps running.
  public static let timeToLive: UInt32 = 120

  /// The invite link this advertisement amounts to (nothing in it is trusted yet).
  public var link: InviteLink {
    InviteLink(
      room: room, addresses: addresses.map { "\($0):\(port)" }, fingerprint: fingerprint,
      plain: fingerprint == nil)
  }

  /// `movie-night @ annslaptop:7700`: unique per machine and port, at most 63 bytes.
  public var instance: DNSName {
    let tail = ":\(port)"
    let head = "\(room) @ "
    let room = DisplayText.prefix(machine, maximumBytes: 63 - head.utf8.count - tail.utf8.count)
    return DNSName(labels: [head + room + tail] + Self.serviceType.labels)
  }

  /// Where the SRV record points: a name of its own, so as not to contend with the host
  /// name an mDNS daemon (Avahi) on the same machine already answers for.
  var target: DNSName {
    let label = DisplayText.prefix(
      "cowatch-" + String(machine.map { $0.isLetter || $0.isNumber ? $0 : "-" }), maximumBytes: 56)
    return DNSName(labels: ["\(label)-\(port)", "local"])
  }

  var txt: [[UInt8]] {
    var entries = [
      "txtvers=1", "v=\(protocolVersion)", "room=\(room)", "pw=\(password ? 1 : 0)",
      "people=\(people)",
    ]
    if let host { entries.append("host=" + DisplayText.prefix(host, maximumBytes: 200)) }
    if let fingerprint, let url = InviteLink.urlSafe(fingerprint) {
      entries.append("fp=" + url)
    } else {
      entries.append("tls=0")
    }
    return entries.map { Array($0.utf8) }
  }

  /// The records that advertise it, with `ttl` (0: the goodbye).
  public func records(ttl: UInt32 = NearbyRoom.timeToLive) -> (
    pointer: DNSRecord, details: [DNSRecord]
  ) {
    let instance = self.instance
    let target = self.target
    var details = [
      DNSRecord(
        name: instance, ttl: ttl, cacheFlush: true,
        data: .srv(priority: 0, weight: 0, port: port, target: target)),
      DNSRecord(name: instance, ttl: ttl, cacheFlush: true, data: .txt(txt)),
    ]
    for address in addresses {
      if let bytes = Self.ipv4Bytes(address) {
        details.append(DNSRecord(name: target, ttl: ttl, cacheFlush: true, data: .a(bytes)))
      }
    }
    return (DNSRecord(name: Self.serviceType, ttl: ttl, data: .ptr(instance)), details)
  }

  /// `a.b.c.d` → its four bytes; nil for anything else.
  public static func ipv4Bytes(_ text: String) -> [UInt8]? {
    let parts = text.split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count == 4 else { return nil }
    var bytes: [UInt8] = []
    for part in parts {
      guard (1...3).contains(part.count), part.allSatisfy(\.isASCII),
        let value = UInt8(part)
      else { return nil }
      bytes.append(value)
    }
    return bytes
  }

  static func ipv4Text(_ bytes: [UInt8]) -> String {
    bytes.map(String.init).joined(separator: ".")
  }
}
