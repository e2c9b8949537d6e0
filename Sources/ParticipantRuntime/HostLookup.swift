import Clocks
import Foundation

/// Looks a host name up as the player will (the C library's resolver), so that a name
/// that leads to this machine or its network is judged by where it leads. On a thread of
/// its own (the resolver blocks), and given up after `timeout` of `clock`: a resolver
/// that does not answer leaves the link unjudged, which refuses nothing the player could
/// reach (its own lookup would fail the same way).
public enum HostLookup {
  public static func addresses(
    of host: String, clock: any SessionClock, timeout: Double = 3
  ) async -> [[UInt8]]? {
    await withTaskGroup(of: [[UInt8]]??.self) { group in
      group.addTask { .some(await resolve(host)) }
      group.addTask {
        await clock.sleep(seconds: timeout)
        return .none
      }
      let first = await group.next() ?? .none
      group.cancelAll()
      return first ?? nil
    }
  }

  /// Every address `host` resolves to (4 or 16 bytes each), nil when it resolves to none.
  static func resolve(_ host: String) async -> [[UInt8]]? {
    await withCheckedContinuation { continuation in
      Thread.detachNewThread {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &list) == 0, let first = list else {
          continuation.resume(returning: nil)
          return
        }
        defer { freeaddrinfo(first) }
        var addresses: [[UInt8]] = []
        var next: UnsafeMutablePointer<addrinfo>? = first
        while let entry = next {
          if let address = entry.pointee.ai_addr {
            switch Int32(address.pointee.sa_family) {
            case AF_INET:
              address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                var raw = $0.pointee.sin_addr
                addresses.append(withUnsafeBytes(of: &raw) { Array($0) })
              }
            case AF_INET6:
              address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                var raw = $0.pointee.sin6_addr
                addresses.append(withUnsafeBytes(of: &raw) { Array($0) })
              }
            default: break
            }
          }
          next = entry.pointee.ai_next
        }
        continuation.resume(returning: addresses.isEmpty ? nil : addresses)
      }
    }
  }
}
