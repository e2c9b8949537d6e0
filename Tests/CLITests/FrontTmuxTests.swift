import Foundation
import Testing

/// A tmux server on a private socket, for driving the interactive front as a person would:
/// type keys into a pane, read the screen back as text.
struct Tmux {
  let socket: String

  /// The tmux executable on PATH, if there is one.
  static let executable: URL? = {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    for dir in path.split(separator: ":") {
      let candidate = URL(fileURLWithPath: String(dir)).appendingPathComponent("tmux")
      if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
    }
    return nil
  }()

  init() {
    socket = "cowatch-test-\(UInt32.random(in: 0...UInt32.max))"
  }

  /// Runs `tmux -L socket ARGS…` and returns its exit status and, when asked for, its
  /// standard output. Spawned and reaped directly (posix_spawn + waitpid), not with
  /// Foundation's Process: the server a command forks inherits whatever the client had
  /// open and lives on, and Process would wait for it.
  @discardableResult
  func run(_ arguments: [String], readOutput: Bool = false) throws -> (
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
  func newSession(
    _ name: String, columns: Int, rows: Int, directory: URL, environment: [String: String],
    command: [String]
  ) throws {
    let env = environment.sorted { $0.key < $1.key }.flatMap { ["-e", "\($0.key)=\($0.value)"] }
    // Keep the pane after the program exits, so a failure's last screen can be read.
    let shell = command.map(Self.quote).joined(separator: " ") + "; echo \"[exited $?]\"; sleep 60"
    let result = try run(
      ["new-session", "-d", "-s", name, "-x", "\(columns)", "-y", "\(rows)", "-c", directory.path]
        + env + [shell])
    #expect(result.status == 0, "tmux new-session \(name) failed")
  }

  func sendKeys(_ target: String, _ keys: String...) throws {
    try run(["send-keys", "-t", target] + keys)
  }

  func capture(_ target: String) -> String {
    (try? run(["capture-pane", "-p", "-t", target], readOutput: true).output) ?? ""
  }

  /// Polls the pane every 100 ms until its text contains one of `fragments` (bounded).
  @discardableResult
  func waitForScreen(
    _ target: String, showing fragments: [String], within seconds: Double = 10,
    sourceLocation: SourceLocation = #_sourceLocation
  ) async -> Bool {
    await waitForScreen(
      target, within: seconds, describing: "any of \(fragments)", sourceLocation: sourceLocation
    ) { screen in fragments.contains(where: screen.contains) ? screen : nil } != nil
  }

  /// Polls the pane every 100 ms until `read` finds what it looks for in the text, and
  /// returns that (bounded). A pane captured while the front is drawing can hold half a
  /// line: reading from the same capture that matched never sees a half-drawn value.
  func waitForScreen<Found>(
    _ target: String, within seconds: Double = 10, describing what: String,
    sourceLocation: SourceLocation = #_sourceLocation, _ read: (String) -> Found?
  ) async -> Found? {
    let deadline = Date().addingTimeInterval(seconds)
    var screen = ""
    while Date() < deadline {
      screen = capture(target)
      if let found = read(screen) { return found }
      try? await Task.sleep(nanoseconds: 100_000_000)
    }
    Issue.record(
      "\(target)'s screen never showed \(what) within \(seconds) s; it shows:\n\(screen)",
      sourceLocation: sourceLocation)
    return nil
  }

  /// Ends the server, which hangs up on the programs in its panes.
  func kill() {
    _ = try? run(["kill-server"])
    let directory = ProcessInfo.processInfo.environment["TMUX_TMPDIR"] ?? "/tmp"
    unlink("\(directory)/tmux-\(getuid())/\(socket)")
  }

  static func quote(_ word: String) -> String {
    "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
  }
}

enum TmuxError: Error {
  case missing
  case spawn(Int32)
}

@Suite("The interactive front, driven through tmux", .serialized)
struct FrontTmuxTests {
  @Test(
    "a key pressed in ann's front changes what bob's front shows",
    .enabled(
      if: Tmux.executable != nil, "tmux is not installed; the front's end-to-end test needs it"),
    .timeLimit(.minutes(1)))
  func pauseReachesTheOtherFront() async throws {
    let relay = try CowatchProcess([
      "serve", "--host", "127.0.0.1", "--port", "0", "--store", "memory",
    ])
    defer { relay.terminate() }
    let listening = try #require(await relay.waitForLine(containing: ["listening on 127.0.0.1:"]))
    let port = try #require(listening.split(separator: ":").last.map(String.init))

    let tmux = Tmux()
    defer { tmux.kill() }
    let state = FileManager.default.temporaryDirectory.appendingPathComponent(tmux.socket)
    defer { try? FileManager.default.removeItem(at: state) }
    let environment = [
      "TERM": "xterm-256color", "XDG_STATE_HOME": state.path,
      "XDG_CONFIG_HOME": state.appendingPathComponent("config").path,
    ]
    for name in ["ann", "bob"] {
      try tmux.newSession(
        name, columns: 120, rows: 35, directory: CowatchProcess.repositoryRoot,
        environment: environment,
        command: [CowatchProcess.executable.path, "join", "127.0.0.1:\(port)", "--name", name])
      // A relay met for the first time: its fingerprint is shown and ann decides; it is
      // remembered (in the config both share here), so bob is not asked again.
      if name == "ann" {
        try #require(
          await tmux.waitForScreen(
            name, showing: ["The relay at 127.0.0.1:\(port) presents SHA256:"]))
        try #require(await tmux.waitForScreen(name, showing: ["trust it? [y/N]"]))
        try tmux.sendKeys(name, "y", "Enter")
        try #require(await tmux.waitForScreen(name, showing: ["People (1)"]))
      }
    }
    try #require(await tmux.waitForScreen("ann", showing: ["People (2)"]))
    try #require(await tmux.waitForScreen("bob", showing: ["People (2)"]))

    // ann picks the first episode and starts watching together with bob.
    try tmux.sendKeys("ann", "e")
    try #require(await tmux.waitForScreen("ann", showing: ["enter choose"]))
    try tmux.sendKeys("ann", "1")
    try #require(await tmux.waitForScreen("ann", showing: ["Watch together ]"]))
    try tmux.sendKeys("ann", "w")
    try #require(await tmux.waitForScreen("ann", showing: ["▶ playing"]))

    // bob is offered the session and joins it.
    try #require(await tmux.waitForScreen("bob", showing: ["Watch together?"]))
    try tmux.sendKeys("bob", "j")
    try #require(await tmux.waitForScreen("bob", showing: ["you joined"]))
    try #require(await tmux.waitForScreen("ann", showing: ["bob joined"]))

    // ann pauses with the space bar; bob's screen says who paused.
    try tmux.sendKeys("ann", "Space")
    // Both on one capture: the header's state and the notice naming the time.
    _ = try #require(
      await tmux.waitForScreen("bob", describing: "ann's pause in the header and a notice") {
        screen in
        screen.contains("⏸ paused by ann") && screen.contains("ann paused at 0:0") ? screen : nil
      })

    // bob pastes text full of escape sequences into the chat line: it is sent as text and
    // runs nothing (before bracketed paste, this set the group's speed to 0.75× twice).
    try tmux.sendKeys("bob", "c")
    try #require(await tmux.waitForScreen("bob", showing: ["enter send · esc cancel"]))
    try tmux.run(["set-buffer", "-b", "pasted", "x\u{1b}[31mRED\u{1b}[2Jzz[["])
    try tmux.run(["paste-buffer", "-p", "-b", "pasted", "-t", "bob"])
    try tmux.sendKeys("bob", "Enter")
    try #require(await tmux.waitForScreen("ann", showing: ["bob: x[31mRED[2Jzz[["]))
    #expect(!tmux.capture("ann").contains("0.75×"), "nothing pasted ran as a key")

    // bob steps away and says why; ann reads it in words.
    try tmux.sendKeys("bob", "s")
    try #require(await tmux.waitForScreen("bob", showing: ["Step away", "My player needs me"]))
    try tmux.sendKeys("bob", "1")
    try #require(await tmux.waitForScreen("ann", showing: ["bob stepped away — a call"]))
    try #require(await tmux.waitForScreen("bob", showing: ["you stepped away — a call"]))
  }

  @Test(
    "a terminal the front cannot use (TERM=dumb) is refused before connecting: nobody sees eve come and go",
    .enabled(
      if: Tmux.executable != nil, "tmux is not installed; the front's end-to-end test needs it"),
    .timeLimit(.minutes(1)))
  func dumbTerminalRefusedFirst() async throws {
    let relay = try CowatchProcess([
      "serve", "--host", "127.0.0.1", "--port", "0", "--store", "memory", "--no-tls",
    ])
    defer { relay.terminate() }
    let listening = try #require(await relay.waitForLine(containing: ["listening on 127.0.0.1:"]))
    let port = try #require(listening.split(separator: ":").last.map(String.init))
    let ann = try CowatchProcess([
      "join", "127.0.0.1:\(port)", "--name", "ann", "--headless", "--no-tls",
    ])
    defer { ann.terminate() }
    await ann.waitForLine(containing: [#""event":"welcome""#])
    let tmux = Tmux()
    defer { tmux.kill() }
    try tmux.newSession(
      "eve", columns: 120, rows: 35, directory: CowatchProcess.repositoryRoot,
      // tmux sets TERM for its panes itself: set it for the command.
      environment: [:],
      command: [
        "/usr/bin/env", "TERM=dumb", CowatchProcess.executable.path, "join",
        "127.0.0.1:\(port)", "--name", "eve", "--no-tls",
      ])
    try #require(await tmux.waitForScreen("eve", showing: ["[exited 1]"]))
    #expect(tmux.capture("eve").contains("--headless"), "the one line suggests headless mode")
    try await Task.sleep(nanoseconds: 500_000_000)
    #expect(
      !ann.output.contains { $0.contains("\"eve\"") },
      "eve never entered the room: \(ann.output.filter { $0.contains("eve") })")
  }

  @Test(
    "the host's quit asks before ending the room; yes stops its relay cleanly and exits 0",
    .enabled(
      if: Tmux.executable != nil, "tmux is not installed; the front's end-to-end test needs it"),
    .timeLimit(.minutes(1)))
  func hostLeaves() async throws {
    let tmux = Tmux()
    defer { tmux.kill() }
    let state = FileManager.default.temporaryDirectory.appendingPathComponent(tmux.socket)
    defer { try? FileManager.default.removeItem(at: state) }
    let environment = [
      "TERM": "xterm-256color", "XDG_STATE_HOME": state.path,
      "XDG_CONFIG_HOME": state.appendingPathComponent("config").path,
    ]
    try tmux.newSession(
      "ann", columns: 120, rows: 35, directory: CowatchProcess.repositoryRoot,
      environment: environment,
      command: [
        CowatchProcess.executable.path, "host", "--bind", "127.0.0.1", "--port", "0", "--name",
        "ann",
      ])
    // The invite carries the relay's fingerprint: whoever uses it reaches this relay only.
    let (port, fingerprint) = try #require(
      await tmux.waitForScreen("ann", describing: "the invite with its port and fingerprint") {
        screen in
        screen.firstMatch(
          of:
            #/cowatch join 127\.0\.0\.1:(\d+) --name NAME --fingerprint[\s│]+(SHA256:[A-Za-z0-9+\/]{43})/#
        )
        .map { (String($0.1), String($0.2)) }
      })
    try tmux.newSession(
      "bob", columns: 120, rows: 35, directory: CowatchProcess.repositoryRoot,
      environment: environment,
      command: [
        CowatchProcess.executable.path, "join", "127.0.0.1:\(port)", "--name", "bob",
        "--fingerprint", fingerprint,
      ])
    try #require(await tmux.waitForScreen("ann", showing: ["People (2)"]))

    try tmux.sendKeys("ann", "q")
    try #require(await tmux.waitForScreen("ann", showing: ["leaving ends it for bob"]))
    try tmux.sendKeys("ann", "y")
    // The client, then the embedded relay, stopped; the process ended normally.
    try #require(await tmux.waitForScreen("ann", showing: ["[exited 0]"]))
    try #require(await tmux.waitForScreen("bob", showing: ["reconnecting"]))
  }
}
