import Foundation

/// One line to a Syncplay port on loopback and the first line back (blocking, bounded).
enum SyncplayLine {
  struct Failure: Error, CustomStringConvertible {
    let description: String
  }

  static func exchange(port: Int, _ line: String, within seconds: Int = 10) throws -> String {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw Failure(description: "no socket") }
    defer { close(fd) }
    var timeout = timeval(tv_sec: seconds, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard connected == 0 else { throw Failure(description: "cannot connect to \(port)") }
    let bytes = Array((line + "\r\n").utf8)
    guard write(fd, bytes, bytes.count) == bytes.count else { throw Failure(description: "write") }
    var received: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while !received.contains(10) {
      let n = read(fd, &buffer, buffer.count)
      guard n > 0 else { break }
      received += buffer[0..<n]
    }
    return String(decoding: received, as: UTF8.self)
  }
}
