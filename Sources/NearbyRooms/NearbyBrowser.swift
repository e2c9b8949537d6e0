import Invites
import WireProtocol

/// Finds rooms advertised on the local network: asks for `_cowatch._tcp`, keeps what the
/// answers say for as long as their time to live, and tells which rooms appeared, changed or
/// left. Pure: the edge sends its queries, feeds it every datagram and the time.
///
/// Whatever arrives on port 5353 comes from anyone on the network: records that do not
/// make a valid room are ignored, and what is kept is bounded.
public struct NearbyBrowser: Sendable {
  public enum Event: Hashable, Sendable {
    case appeared(NearbyRoom)
    case changed(NearbyRoom)
    case left(NearbyRoom)
  }

  struct Instance {
    /// The instance's own label (`room @ machine:port`).
    var label = ""
    var pointerExpiry: UInt64?
    var service: (port: UInt16, target: DNSName, expiry: UInt64)?
    var text: (entries: [[UInt8]], expiry: UInt64)?
    var sender: String?
    var shown: NearbyRoom?
  }

  private var instances: [String: Instance] = [:]
  /// Addresses by host name (lowercased), each with when it expires.
  private var hosts: [String: [String: UInt64]] = [:]

  /// Instances kept at most (a network that offers more is not a living room).
  public static let maximumInstances = 256
  /// Rooms kept from one sender (a `serve` relay advertises each of its rooms): a flood
  /// from one machine cannot crowd out the others' rooms.
  public static let maximumInstancesPerSender = 32
  /// Seconds any record is kept at most, whatever its time to live says (RFC 6762 §10
  /// recommends 75 minutes for the longest-lived).
  static let longestLife: UInt32 = 4500
  static let maximumAddresses = 16

  public init() {}

  /// The rooms known now.
  public var rooms: [NearbyRoom] {
    instances.values.compactMap(\.shown).sorted { ($0.room, $0.machine) < ($1.room, $1.machine) }
  }

  /// The question to multicast (at start, then less and less often: RFC 6762 §5.2).
  public static var query: DNSMessage {
    DNSMessage(
      isResponse: false, questions: [DNSQuestion(name: NearbyRoom.serviceType, type: .ptr)])
  }

  /// A datagram from `sender` (its IPv4 address) arrived at `now` (nanoseconds).
  public mutating func receive(_ message: DNSMessage, from sender: String, at now: UInt64)
    -> [Event]
  {
    guard message.isResponse else { return [] }
    let records = message.answers + message.additionals
    var touched: Set<String> = []
    // The instances this message says speak TLS: a room held by a sender that said "no
    // TLS" goes to one that says TLS (the join checks that fingerprint anyway), never the
    // other way: nobody can take a room found with TLS down to plain.
    let withTLS = Set(
      records.compactMap { record -> String? in
        guard case .txt(let entries) = record.data,
          entries.contains(where: { $0.starts(with: Array("fp=".utf8)) })
        else { return nil }
        return record.name.description.lowercased()
      })
    // Pointers and the instances' own records first: they say which host names matter.
    for record in records {
      let expiry = now + UInt64(min(record.ttl, Self.longestLife)) * 1_000_000_000
      switch record.data {
      case .ptr(let instance) where record.name.matches(NearbyRoom.serviceType):
        guard instance.ends(with: NearbyRoom.serviceType), instance.labels.count == 4 else {
          continue
        }
        let key = instance.description.lowercased()
        if instances[key] == nil {
          guard sent(by: sender) < Self.maximumInstancesPerSender, makeRoom() else { continue }
        } else if !owned(key, by: sender, at: now) {
          guard takesOver(key, from: sender, withTLS: withTLS.contains(key)) else { continue }
        }
        instances[key, default: Instance(label: instance.labels[0])].pointerExpiry =
          record.ttl == 0 ? now : expiry
        instances[key]?.sender = sender
        touched.insert(key)
      case .srv(_, _, let port, let target) where record.name.ends(with: NearbyRoom.serviceType):
        let key = record.name.description.lowercased()
        guard instances[key] != nil, owned(key, by: sender, at: now) else { continue }
        instances[key]?.service = (port, target, record.ttl == 0 ? now : expiry)
        touched.insert(key)
      case .txt(let entries) where record.name.ends(with: NearbyRoom.serviceType):
        let key = record.name.description.lowercased()
        guard instances[key] != nil, owned(key, by: sender, at: now) else { continue }
        instances[key]?.text = (entries, record.ttl == 0 ? now : expiry)
        touched.insert(key)
      default:
        continue
      }
    }
    // A host's addresses only from the sender of a room that names that host.
    let targets = Set(
      instances.values.filter { $0.sender == sender }.compactMap {
        $0.service?.target.description.lowercased()
      })
    for record in records {
      guard case .a(let bytes) = record.data else { continue }
      let host = record.name.description.lowercased()
      guard targets.contains(host) else { continue }
      var addresses = hosts[host, default: [:]]
      let address = NearbyRoom.ipv4Text(bytes)
      if record.ttl == 0 {
        addresses[address] = nil
      } else if addresses[address] != nil || addresses.count < Self.maximumAddresses {
        addresses[address] = now + UInt64(record.ttl) * 1_000_000_000
      }
      hosts[host] = addresses
      for (key, instance) in instances
      where instance.service?.target.description.lowercased() == host {
        touched.insert(key)
      }
    }
    return touched.sorted().flatMap { refresh($0, at: now) }
  }

  /// Whether the instance `key` is `sender`'s to change: it advertised it, or what it had
  /// advertised has expired. Another machine cannot rewrite a room, nor say its goodbye.
  private func owned(_ key: String, by sender: String, at now: UInt64) -> Bool {
    guard let instance = instances[key], let owner = instance.sender, owner != sender else {
      return true
    }
    return (instance.pointerExpiry ?? 0) <= now
  }

  /// `sender` says TLS for an instance another sender holds without it: the instance
  /// starts over as `sender`'s (its records and its host's addresses forgotten).
  private mutating func takesOver(_ key: String, from sender: String, withTLS: Bool) -> Bool {
    guard withTLS, let instance = instances[key], let text = instance.text,
      !text.entries.contains(where: { $0.starts(with: Array("fp=".utf8)) })
    else { return false }
    if let target = instance.service?.target.description.lowercased() { hosts[target] = nil }
    instances[key] = Instance(label: instance.label, shown: instance.shown)
    return true
  }

  /// How many instances `sender` holds.
  private func sent(by sender: String) -> Int {
    instances.values.reduce(0) { $0 + ($1.sender == sender ? 1 : 0) }
  }

  /// Whether there is room for one more instance: when full, one that never made a whole
  /// room (a pointer with nothing behind it, as a flood of junk would be) is forgotten.
  private mutating func makeRoom() -> Bool {
    guard instances.count >= Self.maximumInstances else { return true }
    guard let junk = instances.first(where: { $0.value.shown == nil })?.key else { return false }
    instances[junk] = nil
    return true
  }

  /// Forgets what expired by `now`.
  public mutating func tick(at now: UInt64) -> [Event] {
    for (host, addresses) in hosts {
      let alive = addresses.filter { $0.value > now }
      hosts[host] = alive.isEmpty ? nil : alive
    }
    return instances.keys.sorted().flatMap { refresh($0, at: now) }
  }

  /// What one instance amounts to now, compared with what was shown of it.
  private mutating func refresh(_ key: String, at now: UInt64) -> [Event] {
    guard var instance = instances[key] else { return [] }
    let room = Self.room(from: instance, hosts: hosts, at: now)
    let shown = instance.shown
    instance.shown = room
    let expired = (instance.pointerExpiry ?? 0) <= now
    if expired { instances[key] = nil } else { instances[key] = instance }
    switch (shown, room) {
    case (nil, let room?): return [.appeared(room)]
    case (let before?, nil): return [.left(before)]
    case (let before?, let room?) where before != room: return [.changed(room)]
    default: return []
    }
  }

  static func room(from instance: Instance, hosts: [String: [String: UInt64]], at now: UInt64)
    -> NearbyRoom?
  {
    guard let pointer = instance.pointerExpiry, pointer > now,
      let service = instance.service, service.expiry > now, service.port != 0,
      let text = instance.text, text.expiry > now
    else { return nil }
    var fields: [String: String] = [:]
    for entry in text.entries {
      let string = String(decoding: entry, as: UTF8.self)
      guard let equals = string.firstIndex(of: "=") else { continue }
      let key = string[..<equals].lowercased()
      // The first occurrence of a key counts (RFC 6763 §6.4).
      if fields[key] == nil { fields[key] = String(string[string.index(after: equals)...]) }
    }
    guard let room = fields["room"], RoomName.isValid(room),
      let version = fields["v"].flatMap({ Int($0) }), (1...1000).contains(version)
    else { return nil }
    let fingerprint: String?
    if let url = fields["fp"] {
      guard let parsed = InviteLink.fingerprint(fromURLSafe: url) else { return nil }
      fingerprint = parsed
    } else if fields["tls"] == "0" {
      fingerprint = nil
    } else {
      return nil
    }
    let people = fields["people"].flatMap { Int($0) }.map { min(max($0, 0), 100_000) } ?? 0
    let host = fields["host"].map(Self.printable).flatMap { $0.isEmpty ? nil : $0 }
    let target = service.target.description.lowercased()
    var addresses = (hosts[target] ?? [:]).filter { $0.value > now }.keys.sorted()
    if let sender = instance.sender, NearbyRoom.ipv4Bytes(sender) != nil {
      addresses.removeAll { $0 == sender }
      addresses.insert(sender, at: 0)
    }
    guard !addresses.isEmpty else { return nil }
    let machine = Self.machine(fromLabel: instance.label, room: room, port: service.port)
    return NearbyRoom(
      room: room, host: host, machine: machine, port: service.port,
      addresses: Array(addresses.prefix(InviteLink.maximumAddresses)),
      fingerprint: fingerprint, password: fields["pw"] == "1", people: people,
      protocolVersion: version)
  }

  /// The machine's name as the instance label gives it (`room @ machine:port`).
  static func machine(fromLabel label: String, room: String, port: UInt16) -> String {
    var middle = Substring(label)
    if middle.hasPrefix(room + " @ ") { middle = middle.dropFirst(room.count + 3) }
    if middle.hasSuffix(":\(port)") { middle = middle.dropLast(":\(port)".count) }
    return printable(String(middle))
  }

  /// A name from the network, shown to a person: control characters dropped, 64 at most.
  static func printable(_ text: String) -> String {
    let kept = text.unicodeScalars.filter {
      $0.value >= 0x20 && !(0x7F...0x9F).contains($0.value)
        && !$0.properties.isDefaultIgnorableCodePoint
    }
    return String(String(String.UnicodeScalarView(kept)).prefix(64))
  }
}
