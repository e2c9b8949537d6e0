/// Which IPv4 senders are on this machine's own links. RFC 6762 §11 asks a responder's
/// answers to come from the link they are about: one that arrives from an address on no
/// local subnet was routed here, so it is not from anyone nearby (a stranger elsewhere
/// sending unicast to port 5353) and is dropped. The TTL of 255 the RFC also names is not
/// readable through the sockets we use; the source's subnet is.
public struct OnLink: Sendable, Hashable {
  struct Subnet: Sendable, Hashable {
    var network: UInt32
    var mask: UInt32
  }
  var subnets: [Subnet]

  /// The subnets of `interfaces` (address and netmask, dotted quads), and this machine
  /// itself (127.0.0.0/8). An interface whose address or netmask does not read is left out.
  public init(interfaces: [(address: String, netmask: String)]) {
    subnets = [Subnet(network: 0x7F00_0000, mask: 0xFF00_0000)]
    for interface in interfaces {
      guard let address = Self.parse(interface.address), let mask = Self.parse(interface.netmask)
      else { continue }
      subnets.append(Subnet(network: address & mask, mask: mask))
    }
  }

  /// Whether `address` (a dotted quad) is on one of the subnets.
  public func contains(_ address: String) -> Bool {
    guard let value = Self.parse(address) else { return false }
    return subnets.contains { value & $0.mask == $0.network }
  }

  static func parse(_ text: String) -> UInt32? {
    let parts = text.split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count == 4 else { return nil }
    var value: UInt32 = 0
    for part in parts {
      guard part.count <= 3, let byte = UInt8(part) else { return nil }
      value = value << 8 | UInt32(byte)
    }
    return value
  }
}
