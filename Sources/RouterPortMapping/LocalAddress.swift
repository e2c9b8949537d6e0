import Foundation

/// The machine's own addresses: what friends on the network dial (the invite, the doctor),
/// and what the router forwards to.
public enum LocalAddress {
  /// The machine's IPv4 addresses on interfaces that are up, loopback left out, in the
  /// order the system lists them (each once).
  public static func nonLoopbackIPv4() -> [String] {
    var found: [String] = []
    var list: UnsafeMutablePointer<ifaddrs>?
    guard getifaddrs(&list) == 0, let first = list else { return [] }
    defer { freeifaddrs(list) }
    var cursor: UnsafeMutablePointer<ifaddrs>? = first
    while let entry = cursor {
      defer { cursor = entry.pointee.ifa_next }
      guard let addr = entry.pointee.ifa_addr, addr.pointee.sa_family == sa_family_t(AF_INET) else {
        continue
      }
      let flags = Int32(entry.pointee.ifa_flags)
      guard flags & Int32(IFF_UP) != 0, flags & Int32(IFF_LOOPBACK) == 0 else { continue }
      var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
      if getnameinfo(
        addr, socklen_t(MemoryLayout<sockaddr_in>.size), &host, socklen_t(host.count), nil, 0,
        NI_NUMERICHOST) == 0
      {
        let text = String(
          decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        if !found.contains(text) { found.append(text) }
      }
    }
    return found
  }
}
