import Foundation

/// A tmux server on a private socket, for driving the interactive front as a person would:
/// type keys into a pane, read the screen back as text.
public struct Tmux: Sendable {
  public let socket: String

  /// The tmux executable on PATH, if there is one.
  public static let executable: URL? = {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    for dir in path.split(separator: ":") {
      let candidate = URL(fileURLWithPath: String(dir)).appendingPathComponent("tmux")
      if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
    }
    return nil
  }()

  /// A server of its own, on a socket named `prefix` and a random number.
  public init(prefix: String = "cowatch-test") {
    socket = "\(prefix)-\(UInt32.random(in: 0...UInt32.max))"
  }

  /// Runs `tmux -L socket ARGS…` and returns its exit status and, when asked for, its
  /// standard output. Spawned and reaped directly (posix_spawn + waitpid), not with
  /// Foundation's Process: the server a command forks inherits whatever the client had
  /// open and lives on, and Process would wait for it.
  @discardableResult
  public func run(_ arguments: [String], readOutput: Bool = false) throws -> (
    status: Int32, output: String
  ) {
    guard let executable = Self.executable else { throw TmuxError.missing }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    var fds: [Int32] = [-1, -1]
    if readOutput {
      guard pipe(&fds) == 0 else { throw TmuxError.spawn(errno) }
      for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
      posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
    } else {
      posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    let argv = ([executable.path, "-L", socket, "-f", "/dev/null"] + arguments).map { strdup($0) }
    defer { for a in argv { free(a) } }
    // The test's threads block signals; tmux (and what it runs) must not inherit that, or
    // the server never sees its panes exit and kill-server never finishes.
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var none = sigset_t()
    sigemptyset(&none)
    posix_spawnattr_setsigmask(&attributes, &none)
    var defaults = sigset_t()
    sigemptyset(&defaults)
    for signal in [SIGHUP, SIGINT, SIGTERM, SIGPIPE, SIGCHLD] { sigaddset(&defaults, signal) }
    posix_spawnattr_setsigdefault(&attributes, &defaults)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
    var pid: pid_t = 0
    let rc = posix_spawn(&pid, executable.path, &actions, &attributes, argv + [nil], environ)
    if readOutput { close(fds[1]) }
    guard rc == 0 else {
      if readOutput { close(fds[0]) }
      throw TmuxError.spawn(rc)
    }
    var output = [UInt8]()
    if readOutput {
      var buffer = [UInt8](repeating: 0, count: 4096)
      while true {
        let n = read(fds[0], &buffer, buffer.count)
        if n > 0 {
          output += buffer[0..<n]
        } else if n < 0 && errno == EINTR {
          continue
        } else {
          break
        }
      }
      close(fds[0])
    }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    return ((status >> 8) & 0xff, String(decoding: output, as: UTF8.self))
  }

  /// A detached session of the given size running `command` in `directory`.
  public func newSession(
    _ name: String, columns: Int, rows: Int, directory: URL, environment: [String: String],
    command: [String]
  ) throws {
    let env = environment.sorted { $0.key < $1.key }.flatMap { ["-e", "\($0.key)=\($0.value)"] }
    // Keep the pane after the program exits, so a failure's last screen can be read.
    let shell = command.map(Self.quote).joined(separator: " ") + "; echo \"[exited $?]\"; sleep 60"
    let result = try run(
      ["new-session", "-d", "-s", name, "-x", "\(columns)", "-y", "\(rows)", "-c", directory.path]
        + env + [shell])
    guard result.status == 0 else { throw TmuxError.failed("new-session \(name)") }
  }

  public func sendKeys(_ target: String, _ keys: String...) throws {
    try run(["send-keys", "-t", target] + keys)
  }

  public func capture(_ target: String) -> String {
    (try? run(["capture-pane", "-p", "-t", target], readOutput: true).output) ?? ""
  }

  /// Ends the server, which hangs up on the programs in its panes.
  public func kill() {
    _ = try? run(["kill-server"])
    let directory = ProcessInfo.processInfo.environment["TMUX_TMPDIR"] ?? "/tmp"
    unlink("\(directory)/tmux-\(getuid())/\(socket)")
  }

  public static func quote(_ word: String) -> String {
    "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
  }
}

public enum TmuxError: Error, CustomStringConvertible {
  case missing
  case spawn(Int32)
  case failed(String)

  public var description: String {
    switch self {
    case .missing: "tmux is not installed"
    case .spawn(let code): "cannot start tmux: error \(code)"
    case .failed(let what): "tmux \(what) failed"
    }
  }
}
