import Foundation

/// A relay run as its own process, so that its CPU time and resident memory can be read
/// from /proc.
final class ServerProcess: @unchecked Sendable {
  let process: Process
  let port: Int
  private let output: Pipe

  private init(process: Process, port: Int, output: Pipe) {
    self.process = process
    self.port = port
    self.output = output
  }

  var pid: Int32 { process.processIdentifier }

  /// `cowatch serve` from beside this executable, on a port the system picks.
  /// `defaultLimits` keeps the relay's own limits (for the attacks); otherwise the
  /// per-address ones are lifted, since every load client comes from 127.0.0.1.
  /// `store` is what `--store` gets (`memory`, or an SQLite file's path).
  /// `tls`: serve with a self-signed certificate (made in a temporary state directory; its
  /// fingerprint in ``fingerprint``) instead of `--no-tls`.
  static func cowatch(
    host: String = "127.0.0.1", port: Int = 0, defaultLimits: Bool = false,
    store: String = "memory", tls: Bool = false
  ) throws -> ServerProcess {
    let exe = try HeadlessProcess.cowatch()
    let p = Process()
    p.executableURL = URL(fileURLWithPath: exe)
    p.arguments =
      [
        "serve", "--host", host, "--port", "\(port)", "--store", store, "--log-level",
        defaultLimits ? "notice" : "warning",
      ] + (tls ? [] : ["--no-tls"])
      + (defaultLimits
        ? []
        : [
          "--max-connections", "30000", "--max-connections-per-address", "30000",
          "--max-rooms-per-address", "30000",
        ])
    if tls {
      var environment = ProcessInfo.processInfo.environment
      environment["XDG_STATE_HOME"] = NSTemporaryDirectory() + "cowatch-bench-\(UUID().uuidString)"
      p.environment = environment
    }
    let pipe = Pipe()
    p.standardOutput = pipe
    // The relay logs to stderr: into a file, so that its size can be read afterwards.
    let logPath = NSTemporaryDirectory() + "cowatch-serve-\(UUID().uuidString).log"
    _ = FileManager.default.createFile(atPath: logPath, contents: nil)
    p.standardError = FileHandle(forWritingAtPath: logPath)
    try p.run()
    // "cowatch relay listening on 127.0.0.1:PORT"
    var text = ""
    let deadline = monoNow() + 10_000_000_000
    // With TLS, the certificate's line follows the first.
    let lines = tls ? 2 : 1
    while monoNow() < deadline, text.filter({ $0 == "\n" }).count < lines {
      let data = pipe.fileHandleForReading.availableData
      if data.isEmpty { break }
      text += String(decoding: data, as: UTF8.self)
    }
    guard
      let port = text.split(separator: "\n").first?.split(separator: ":").last.flatMap({
        Int($0.trimmingCharacters(in: .whitespacesAndNewlines))
      })
    else {
      p.terminate()
      throw BenchError("cowatch serve did not start: \(text)")
    }
    let server = ServerProcess(process: p, port: port, output: pipe)
    server.logPath = logPath
    server.fingerprint = text.split(separator: " ").first { $0.hasPrefix("SHA256:") }.map(
      String.init)
    return server
  }

  /// Where its log goes (`cowatch serve` only).
  var logPath: String?
  /// Its certificate's fingerprint, when it serves TLS.
  var fingerprint: String?

  /// Bytes of log written so far.
  var logBytes: Int {
    guard let logPath, let attributes = try? FileManager.default.attributesOfItem(atPath: logPath)
    else { return 0 }
    return (attributes[.size] as? Int) ?? 0
  }

  /// `syncplay-server --port PORT`; waits until it accepts connections.
  static func syncplay(port: Int) async throws -> ServerProcess {
    guard let exe = Machine.which("syncplay-server") else {
      throw BenchError("syncplay-server is not installed")
    }
    let p = Process()
    p.executableURL = URL(fileURLWithPath: exe)
    p.arguments = ["--port", "\(port)", "--disable-chat", "--disable-ready"]
    let pipe = Pipe()
    p.standardOutput = pipe
    p.standardError = FileHandle.nullDevice
    try p.run()
    // Drain its output so that it never blocks on a full pipe.
    Thread.detachNewThread { while !pipe.fileHandleForReading.availableData.isEmpty {} }
    let deadline = monoNow() + 15_000_000_000
    while monoNow() < deadline {
      if canConnect(port: port) { return ServerProcess(process: p, port: port, output: pipe) }
      await sleepSeconds(0.1)
    }
    p.terminate()
    throw BenchError("syncplay-server did not start listening on \(port)")
  }

  static func canConnect(port: Int) -> Bool {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    var addr = sockaddr_in()
    addr.sin_family = sa_family_t(AF_INET)
    addr.sin_port = in_port_t(UInt16(port).bigEndian)
    addr.sin_addr.s_addr = inet_addr("127.0.0.1")
    return withUnsafePointer(to: &addr) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
      }
    }
  }

  /// User + system CPU seconds so far.
  var cpuSeconds: Double { Self.cpuSeconds(of: pid) }

  /// User + system CPU seconds a process has used so far (from /proc), NaN if unreadable.
  static func cpuSeconds(of pid: Int32) -> Double {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
      let close = stat.lastIndex(of: ")")
    else { return .nan }
    let fields = stat[stat.index(after: close)...].split(separator: " ")
    // After the command name: state is field 3, utime 14, stime 15 (1-based overall).
    guard fields.count > 13, let u = Double(fields[11]), let s = Double(fields[12]) else {
      return .nan
    }
    return (u + s) / Double(sysconf(Int32(_SC_CLK_TCK)))
  }

  /// Resident memory, KiB (VmRSS).
  var residentKB: Double {
    guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else {
      return .nan
    }
    let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") }
    return line.flatMap { Double($0.split(separator: " ").dropFirst().first ?? "") } ?? .nan
  }

  /// A relay the bench forgot (a run that threw half way) does not outlive it.
  deinit {
    if process.isRunning { kill(pid, SIGKILL) }
  }

  /// SIGKILL, as a crash: nothing is flushed or closed by the relay itself.
  func killNow() {
    guard process.isRunning else { return }
    kill(pid, SIGKILL)
    process.waitUntilExit()
  }

  func stop() {
    if process.isRunning {
      process.terminate()
      let deadline = monoNow() + 3_000_000_000
      while process.isRunning, monoNow() < deadline { usleep(10_000) }
      if process.isRunning { kill(pid, SIGKILL) }
    }
    process.waitUntilExit()
    if let logPath { try? FileManager.default.removeItem(atPath: logPath) }
  }
}
