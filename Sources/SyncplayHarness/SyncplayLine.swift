import Foundation

/// A raw connection to a Syncplay port on loopback, as a hostile or bare client would use
/// it: lines out, lines back (blocking, every read bounded).
// @unchecked: one caller at a time, as a socket is read in turn.
public final class SyncplayLine: @unchecked Sendable {
  struct Failure: Error, CustomStringConvertible {
    let description: String
  }

  private let fd: Int32
  private var received: [UInt8] = []

  /// Connects; reads wait at most `seconds`.
  public init(port: Int, within seconds: Int = 10) throws {
    fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw Failure(description: "no socket") }
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
    guard connected == 0 else {
      close(fd)
      throw Failure(description: "cannot connect to \(port)")
    }
  }

  deinit { close(fd) }

  public func send(_ line: String) throws {
    let bytes = Array((line + "\r\n").utf8)
    guard write(fd, bytes, bytes.count) == bytes.count else { throw Failure(description: "write") }
  }

  /// Sends `text` with no line end: a line the port must hold until it is finished.
  public func sendUnfinished(_ text: String) throws {
    let bytes = Array(text.utf8)
    guard write(fd, bytes, bytes.count) == bytes.count else { throw Failure(description: "write") }
  }

  /// The next line, or "" when the connection closed or nothing came in time.
  public func readLine() -> String {
    var buffer = [UInt8](repeating: 0, count: 4096)
    while !received.contains(10) {
      let n = read(fd, &buffer, buffer.count)
      guard n > 0 else { break }
      received += buffer[0..<n]
    }
    let end = received.firstIndex(of: 10).map { $0 + 1 } ?? received.count
    defer { received.removeFirst(end) }
    return String(decoding: received[..<end], as: UTF8.self)
  }

  /// Sends `line` on a new connection and returns the first line back.
  public static func exchange(port: Int, _ line: String) throws -> String {
    let connection = try SyncplayLine(port: port)
    try connection.send(line)
    return connection.readLine()
  }
}
