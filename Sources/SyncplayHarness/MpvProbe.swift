import Foundation

/// A second connection to an mpv's JSON IPC socket, for reading what a player does while
/// something else (Syncplay's client) drives it. Blocking, with a timeout on every read;
/// readings are stamped at the midpoint of request and reply, as the driver does.
// @unchecked: one caller at a time (a test or a bench loop), as a socket is read in turn.
public final class MpvProbe: @unchecked Sendable {
  private let fd: Int32
  private var pending = Data()
  private var nextID = 1_000_000
  /// `seek` events seen so far (mpv announces every seek, whoever asked for it).
  public private(set) var seeks = 0

  /// Connects to `path`, waiting up to `seconds` for mpv to create it, and no longer than
  /// `alive` says whatever starts it still runs.
  public init(
    path: String, within seconds: Double = 20, while alive: () -> Bool = { true }
  ) throws(HarnessError) {
    let deadline = monoNow() + Int64(seconds * 1e9)
    while true {
      let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
      var address = sockaddr_un()
      address.sun_family = sa_family_t(AF_UNIX)
      withUnsafeMutableBytes(of: &address.sun_path) { raw in
        let bytes = Array(path.utf8.prefix(raw.count - 1))
        raw.copyBytes(from: bytes + [0])
      }
      let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
        }
      }
      if connected == 0 {
        var timeout = timeval(tv_sec: 2, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        self.fd = fd
        return
      }
      close(fd)
      guard monoNow() < deadline, alive() else {
        throw HarnessError("no mpv IPC socket at \(path)")
      }
      usleep(100_000)
    }
  }

  deinit { close(fd) }

  /// One property as a number, with when it was true (monotonic ns, midpoint).
  public func number(_ property: String) -> (value: Double, at: Int64)? {
    guard let (reply, at) = request(["get_property", property]),
      let value = reply["data"] as? Double
    else { return nil }
    return (value, at)
  }

  public func bool(_ property: String) -> Bool? {
    request(["get_property", property])?.reply["data"] as? Bool
  }

  public func set(_ property: String, _ value: Any) {
    _ = request(["set_property", property, value])
  }

  private func request(_ command: [Any]) -> (reply: [String: Any], at: Int64)? {
    nextID += 1
    let id = nextID
    guard
      var line = try? JSONSerialization.data(
        withJSONObject: ["command": command, "request_id": id])
    else { return nil }
    line.append(0x0A)
    let sent = monoNow()
    let written = line.withUnsafeBytes { write(fd, $0.baseAddress!, $0.count) }
    guard written == line.count else { return nil }
    while true {
      while let newline = pending.firstIndex(of: 0x0A) {
        let message = pending[pending.startIndex..<newline]
        pending.removeSubrange(pending.startIndex...newline)
        guard let object = try? JSONSerialization.jsonObject(with: message) as? [String: Any]
        else { continue }
        if object["event"] as? String == "seek" { seeks += 1 }
        if object["request_id"] as? Int == id {
          let received = monoNow()
          return (object, sent + (received - sent) / 2)
        }
      }
      var buffer = [UInt8](repeating: 0, count: 65536)
      let n = read(fd, &buffer, buffer.count)
      guard n > 0 else { return nil }
      pending.append(contentsOf: buffer[0..<n])
    }
  }
}
