#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Where a link leads, as far as its host (or the addresses it resolves to) tells: a
/// site on the internet, or a place only this machine or its own network reaches. A link
/// someone else starts is fetched by every member's player, so a link to the second kind
/// (a router's page, a cloud machine's metadata at 169.254.169.254, a NAS) would have
/// their players knock on doors behind their own firewall.
public enum LinkDestination {
  /// Why `host` (as ``LinkItem/host(of:)`` gives it) names this machine or its network,
  /// in words; nil when it may be a site on the internet (its addresses may still tell
  /// otherwise: see ``localReason(address:)``).
  public static func localReason(host: String) -> String? {
    var name = host.lowercased()
    while name.hasSuffix(".") { name.removeLast() }
    if let address = literalAddress(name) { return localReason(address: address) }
    if name.isEmpty { return "the link names no machine" }
    if name == "localhost" || name.hasSuffix(".localhost") {
      return "\(name) is this machine"
    }
    for suffix in ["local", "lan", "home", "internal", "intranet", "corp", "home.arpa"]
    where name.hasSuffix("." + suffix) {
      return "\(name) is a name on your own network (.\(suffix))"
    }
    if !name.contains(".") {
      return "\(name) is a name on your own network (it has no domain)"
    }
    return nil
  }

  /// Why an address (4 or 16 bytes) is this machine's or its network's, or nil for an
  /// address on the internet.
  public static func localReason(address bytes: [UInt8]) -> String? {
    if bytes.count == 16 {
      // An IPv4 address in IPv6 clothing is judged as itself.
      if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xff, bytes[11] == 0xff {
        return localReason(address: Array(bytes[12..<16]))
      }
      let shown = text(of: bytes)
      if bytes[0..<15].allSatisfy({ $0 == 0 }) {
        return bytes[15] == 1 ? "\(shown) is this machine" : "\(shown) names no machine"
      }
      if bytes[0] == 0xfe, bytes[1] & 0xc0 == 0x80 {
        return "\(shown) is a link-local address (only your own network segment)"
      }
      if bytes[0] & 0xfe == 0xfc { return "\(shown) is a private address (your own network)" }
      if bytes[0] == 0xff { return "\(shown) is a multicast address" }
      return nil
    }
    guard bytes.count == 4 else { return "the link's address is not an address" }
    let shown = text(of: bytes)
    switch (bytes[0], bytes[1]) {
    case (0, _): return "\(shown) names no machine"
    case (127, _): return "\(shown) is this machine"
    case (10, _), (172, 16...31), (192, 168):
      return "\(shown) is a private address (your own network)"
    case (169, 254):
      return "\(shown) is a link-local address (routers, and a cloud machine's own metadata)"
    case (100, 64...127): return "\(shown) is your provider's own network (shared address space)"
    case (224...239, _): return "\(shown) is a multicast address"
    case (240...255, _): return "\(shown) is a reserved address"
    default: return nil
    }
  }

  /// The address `host` spells, if it is one: IPv4 as the C library reads it (curl and
  /// ffmpeg read "127.1", "0x7f000001" and "2130706433" as 127.0.0.1 too, so they are
  /// judged as what they reach), IPv6 with or without a zone.
  public static func literalAddress(_ host: String) -> [UInt8]? {
    let name = host.split(separator: "%", maxSplits: 1).first.map(String.init) ?? host
    if name.contains(":") {
      var address = in6_addr()
      guard inet_pton(AF_INET6, name, &address) == 1 else { return nil }
      return withUnsafeBytes(of: &address) { Array($0) }
    }
    guard !name.isEmpty, name.allSatisfy({ $0.isHexDigit || $0 == "." || $0 == "x" || $0 == "X" })
    else { return nil }
    var address = in_addr()
    guard inet_aton(name, &address) != 0 else { return nil }
    return withUnsafeBytes(of: &address) { Array($0) }
  }

  /// An address as people write it.
  public static func text(of bytes: [UInt8]) -> String {
    if bytes.count == 4 { return bytes.map(String.init).joined(separator: ".") }
    var copy = bytes
    var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
    guard bytes.count == 16, inet_ntop(AF_INET6, &copy, &buffer, socklen_t(buffer.count)) != nil
    else { return "?" }
    return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }
}
