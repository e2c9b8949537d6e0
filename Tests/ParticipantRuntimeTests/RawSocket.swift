import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A TCP socket for writing raw bytes at the relay (garbage, oversized lines), as a
/// broken or hostile peer would. Non-blocking: ``exchange(_:)`` polls it from the calling
/// task, so it neither blocks one of the concurrency pool's few threads (which would starve
/// the relay under test) nor needs a thread of its own, and its read ends after 3 s of
/// silence so that a test never hangs.
final class RawSocket: @unchecked Sendable {
  private let fd: Int32

  init?(port: Int) {
    fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return nil }
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
    _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
  }

  deinit { close(fd) }

  /// Writes `text`, then reads until the peer closes or stays silent for 3 s.
  func exchange(_ text: String) async -> String {
    await write(text)
    return await readAll()
  }

  func write(_ text: String) async {
    let bytes = Array(text.utf8)
    var sent = 0
    while sent < bytes.count {
      let n = bytes[sent...].withUnsafeBytes {
        send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
      }
      if n > 0 {
        sent += n
      } else if n < 0, errno == EAGAIN || errno == EWOULDBLOCK {
        try? await Task.sleep(nanoseconds: 1_000_000)
      } else {
        return
      }
    }
  }

  /// Everything received until the peer closes or stays silent for 3 s.
  func readAll() async -> String {
    var data: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    var quietSince = ContinuousClock.now
    while ContinuousClock.now - quietSince < .seconds(3) {
      let n = recv(fd, &buffer, buffer.count, 0)
      if n > 0 {
        data += buffer[0..<n]
        quietSince = .now
      } else if n < 0, errno == EAGAIN || errno == EWOULDBLOCK {
        try? await Task.sleep(nanoseconds: 2_000_000)
      } else {
        break
      }
    }
    return String(decoding: data, as: UTF8.self)
  }
}
