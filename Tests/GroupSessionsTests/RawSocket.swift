import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A blocking TCP socket for writing raw bytes at the relay (garbage, oversized lines),
/// as a broken or hostile peer would. Reads time out so a test never hangs. Its blocking
/// calls run on a thread of their own (``exchange(_:)``): blocking one of the concurrency
/// pool's few threads would starve the relay under test, which runs on the same pool.
final class RawSocket: @unchecked Sendable {
  private let fd: Int32

  init?(port: Int) {
    fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return nil }
    var timeout = timeval(tv_sec: 3, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let ok = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
      }
    }
    if !ok {
      close(fd)
      return nil
    }
  }

  deinit { close(fd) }

  /// Writes `text`, then reads until the peer closes or the read times out — off the
  /// concurrency pool.
  func exchange(_ text: String) async -> String {
    await withCheckedContinuation { continuation in
      Thread.detachNewThread {
        self.write(text)
        continuation.resume(returning: self.readAll())
      }
    }
  }

  func write(_ text: String) {
    let bytes = Array(text.utf8)
    var sent = 0
    while sent < bytes.count {
      let n = bytes[sent...].withUnsafeBytes {
        send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
      }
      if n <= 0 { return }
      sent += n
    }
  }

  /// Everything received until the peer closes or the read times out.
  func readAll() -> String {
    var data: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
      let n = recv(fd, &buffer, buffer.count, 0)
      if n <= 0 { break }
      data += buffer[0..<n]
    }
    return String(decoding: data, as: UTF8.self)
  }
}
