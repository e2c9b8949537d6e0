#if canImport(Glibc)
  import Glibc
#endif

/// A loopback port that takes connections into its backlog and never answers them: what a
/// sleeping machine, or an address behind a NAT that swallows packets, looks like to a
/// peer (held for as long as a test needs it: a port merely closed could be another
/// test's relay a moment later).
public struct SilentListener: Sendable {
  let descriptor: Int32
  public let port: Int

  public init?() {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return nil }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
      pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
        bind(fd, generic, length) == 0 && listen(fd, 16) == 0
          && getsockname(fd, generic, &length) == 0
      }
    }
    guard bound else {
      Glibc.close(fd)
      return nil
    }
    descriptor = fd
    port = Int(UInt16(bigEndian: address.sin_port))
  }

  public func close() { Glibc.close(descriptor) }
}
