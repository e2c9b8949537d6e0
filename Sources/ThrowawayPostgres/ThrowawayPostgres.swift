import Foundation

/// A throwaway PostgreSQL server for tests and benchmarks: `initdb` in a temporary directory, `pg_ctl`
/// on a free loopback port, trust authentication, stopped and removed afterwards. Needs
/// Debian's postgresql (its binaries under /usr/lib/postgresql/*/bin; `.ci/run` installs
/// it). As root, the server runs as the `postgres` user, which it insists on.
public final class ThrowawayPostgres: Sendable {
  public let directory: String
  public let port: Int
  public var url: String { "postgres://cowatch@127.0.0.1:\(port)/postgres" }

  public static let binaries: String? = {
    guard
      let versions = try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")
    else { return nil }
    return versions.sorted().reversed().map { "/usr/lib/postgresql/\($0)/bin" }
      .first { FileManager.default.isExecutableFile(atPath: "\($0)/initdb") }
  }()

  public static var available: Bool { binaries != nil }

  /// Makes and starts a server on a thread of its own: `initdb` takes a second or more (many
  /// on a loaded machine), and waiting for it on one of Swift concurrency's cooperative
  /// threads (one per core) stalls every task beside it — two such waits at once on a
  /// 2-core machine froze a whole test run for seconds.
  public static func start() async throws -> ThrowawayPostgres {
    try await withCheckedThrowingContinuation { continuation in
      Thread.detachNewThread {
        do {
          continuation.resume(returning: try ThrowawayPostgres())
        } catch {
          continuation.resume(throwing: error)
        }
      }
    }
  }

  /// Blocks until the server runs: from synchronous code only (see ``start()``).
  public init() throws {
    guard let bin = Self.binaries else { throw ClusterError("PostgreSQL is not installed") }
    let directory = NSTemporaryDirectory() + "cowatch-pg-\(UUID().uuidString)"
    self.directory = directory
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    do {
      if getuid() == 0 {
        try Self.run("/bin/chown", ["postgres:postgres", directory])
      }
      try Self.run(
        "\(bin)/initdb",
        ["-D", "\(directory)/data", "-A", "trust", "-U", "cowatch", "--no-sync", "-E", "UTF8"])
      port = try Self.start(bin, directory)
    } catch {
      try? FileManager.default.removeItem(atPath: directory)
      throw error
    }
  }

  /// Starts the server on a free port. A port found free can be taken before the server
  /// binds it (by any of the connections a test run opens meanwhile): then another port.
  private static func start(_ bin: String, _ directory: String) throws -> Int {
    var attempt = 1
    while true {
      let port = freePort()
      do {
        try run(
          "\(bin)/pg_ctl",
          [
            "-D", "\(directory)/data", "-l", "\(directory)/log", "-w", "-t", "60", "-o",
            "-p \(port) -k \(directory) -c listen_addresses=127.0.0.1 -c fsync=off",
            "start",
          ])
        return port
      } catch {
        let log = (try? String(contentsOfFile: "\(directory)/log", encoding: .utf8)) ?? ""
        guard attempt < 5, log.contains("Address already in use") else {
          throw ClusterError("\(error) \(log.suffix(600))")
        }
        try? FileManager.default.removeItem(atPath: "\(directory)/log")
        attempt += 1
      }
    }
  }

  public func stop() {
    if let bin = Self.binaries {
      try? Self.run("\(bin)/pg_ctl", ["-D", "\(directory)/data", "-m", "immediate", "-w", "stop"])
    }
    try? FileManager.default.removeItem(atPath: directory)
  }

  /// Runs a PostgreSQL tool (as `postgres` when this process is root); throws with its
  /// output when it fails.
  ///
  /// With posix_spawn and waitpid rather than Foundation's Process: the server `pg_ctl`
  /// starts outlives it, and Foundation then never saw the tool end. Output goes to a file,
  /// not a pipe, for the same reason.
  private static func run(_ tool: String, _ arguments: [String]) throws {
    let asPostgres = getuid() == 0 && !tool.hasPrefix("/bin/")
    let argv =
      asPostgres
      ? ["/usr/sbin/runuser", "-u", "postgres", "--", tool] + arguments : [tool] + arguments
    let outputPath = NSTemporaryDirectory() + "cowatch-pg-tool-\(UUID().uuidString).txt"
    defer { try? FileManager.default.removeItem(atPath: outputPath) }
    var actions: posix_spawn_file_actions_t = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    posix_spawn_file_actions_adddup2(&actions, 1, 2)
    var cArguments = argv.map { strdup($0) } + [nil]
    defer { for a in cArguments { free(a) } }
    var pid: pid_t = 0
    let spawned = posix_spawn(&pid, argv[0], &actions, nil, &cArguments, environ)
    guard spawned == 0 else { throw ClusterError("cannot run \(argv[0]): error \(spawned)") }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) == -1, errno == EINTR {}
    let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
    // Exited normally with status 0.
    guard status & 0x7f == 0, (status >> 8) & 0xff == 0 else {
      throw ClusterError("\((tool as NSString).lastPathComponent) failed: \(text)")
    }
  }

  private static func freePort() -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = 0
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
    }
    _ = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    return Int(UInt16(bigEndian: address.sin_port))
  }

  public struct ClusterError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
  }
}
