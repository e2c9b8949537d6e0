import Clocks
import Foundation
import Logging
import Media
import MpvPlayer
import PlaybackCoordination
import RelayTLS
import RouterPortMapping

/// Gathers ``MachineFacts`` from this machine, the slow questions (mpv playing a second,
/// the router) side by side, each bounded in time, changing nothing: no file is written,
/// no port mapped.
public struct MachineSurvey: Sendable {
  /// What to look at; the defaults are this process's.
  public struct Options: Sendable {
    /// mpv's executable (a name looked up on `PATH`, or a path).
    public var mpv = "mpv"
    public var ytdlp = "yt-dlp"
    /// A directory of the person's own files: its first video is what mpv is asked to play;
    /// nil: a picture mpv makes itself.
    public var media: String?
    /// The port `cowatch host` would listen on.
    public var port = 7700
    public var askRouter = true
    /// Where Cowatch keeps state and configuration (`$XDG_STATE_HOME/cowatch`, …).
    public var stateDirectory: String
    public var configDirectory: String
    public var knownRelays: String
    public var environment: [String: String]

    public init(
      environment: [String: String] = ProcessInfo.processInfo.environment,
      stateDirectory: String
    ) {
      self.environment = environment
      self.stateDirectory = stateDirectory
      let known = KnownRelays.defaultPath(environment: environment)
      knownRelays = known
      configDirectory = (known as NSString).deletingLastPathComponent
    }
  }

  public var options: Options

  public init(options: Options) { self.options = options }

  public func facts() async -> MachineFacts {
    let options = self.options
    async let mpv = Self.program(options.mpv, environment: options.environment)
    async let ytdlp = Self.program(options.ytdlp, environment: options.environment)
    async let router = Self.router(ask: options.askRouter)
    async let clock = Self.clockSynchronised(environment: options.environment)
    let foundMpv = await mpv
    async let playback = Self.playback(foundMpv, options: options)
    async let terminal = Self.terminal(environment: options.environment)
    let directories = [
      MachineFacts.Directory(
        role: "state", path: options.stateDirectory,
        problem: Self.writeProblem(options.stateDirectory)),
      MachineFacts.Directory(
        role: "config", path: options.configDirectory,
        problem: Self.writeProblem(options.configDirectory)),
    ]
    return MachineFacts(
      mpv: foundMpv, playback: await playback, ytdlp: await ytdlp,
      terminal: await terminal, directories: directories,
      knownRelays: Self.knownRelays(options.knownRelays), router: await router,
      listening: Self.listening(port: options.port), clockSynchronised: await clock)
  }

  // MARK: - Programs

  static func program(_ name: String, environment: [String: String]) async -> MachineFacts.Program {
    guard let path = find(name, environment: environment) else { return .missing }
    let printed = await run(path, ["--version"], seconds: 5)
    let first = printed?.split(whereSeparator: \.isNewline).first.map(String.init)
    return .found(path: path, version: first)
  }

  static func find(_ name: String, environment: [String: String]) -> String? {
    if name.contains("/") {
      return FileManager.default.isExecutableFile(atPath: name) ? name : nil
    }
    let path = environment["PATH"] ?? "/usr/bin:/bin"
    return path.split(separator: ":").map { "\($0)/\(name)" }
      .first { FileManager.default.isExecutableFile(atPath: $0) }
  }

  /// Runs `path` to its end (killed after `seconds`) and returns what it printed on
  /// standard output; nil if it could not be started or did not finish.
  static func run(
    _ path: String, _ arguments: [String], seconds: Double,
    clock: any SessionClock = MonotonicClock()
  ) async -> String? {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    process.standardInput = FileHandle.nullDevice
    let timer = Task {
      await clock.sleep(seconds: seconds)
      if !Task.isCancelled, process.isRunning { process.terminate() }
    }
    defer { timer.cancel() }
    // Read and waited for on a thread of its own, never on the cooperative pool.
    let result: String? = await withCheckedContinuation { continuation in
      Thread.detachNewThread {
        do { try process.run() } catch {
          continuation.resume(returning: nil)
          return
        }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        continuation.resume(
          returning: process.terminationReason == .exit
            ? String(decoding: data, as: UTF8.self) : nil)
      }
    }
    return result
  }

  // MARK: - Playback

  /// What mpv is asked to play without a media folder: a test picture it makes itself.
  static let generated = "av://lavfi:testsrc=size=160x120:rate=24:duration=5"

  /// mpv, started as Cowatch starts it, loads a file with the same commands, plays it, and
  /// its own clock says a second went by.
  static func playback(_ mpv: MachineFacts.Program, options: Options) async -> MachineFacts.Playback
  {
    guard case .found(let path, let line) = mpv else { return .notTried("mpv is not installed") }
    if let line, let version = MpvVersion(parsing: line), !version.isSupported {
      return .notTried("this mpv is too old")
    }
    let file: String
    let shown: String
    if let media = options.media {
      guard let first = firstVideo(in: media) else {
        return .notTried("no video file in \(media)")
      }
      file = first
      shown = (first as NSString).lastPathComponent
    } else {
      file = generated
      shown = "a test picture it makes itself"
    }
    let clock = MonotonicClock()
    let player: MpvPlayer
    do {
      player = try await MpvPlayer.launch(
        executable: path, arguments: ["--vo=null", "--ao=null"], resolver: { _ in file },
        clock: clock,
        logger: Logger(label: "cowatch.doctor", factory: { _ in SwiftLogNoOpLogHandler() }),
        timeout: 10)
    } catch {
      return .failed(what: shown, reason: error.description)
    }
    let outcome = await play(on: player, clock: clock, shown: shown)
    await player.stop()
    return outcome
  }

  /// Loads the file, starts it a tenth of a second ahead, and waits (10 s at most) for mpv to
  /// say it played a second.
  private static func play(on player: MpvPlayer, clock: MonotonicClock, shown: String) async
    -> MachineFacts.Playback
  {
    let item = ItemID("doctor/probe")
    player.perform(.load(item: item, at: 0), at: clock.localNow())
    let deadline = clock.localNow().advanced(bySeconds: 10)
    var started: LocalInstant?
    while clock.localNow() < deadline {
      await clock.sleep(seconds: 0.05)
      let now = clock.localNow()
      let seen = player.observe(at: now)
      if let problem = seen.problem { return .failed(what: shown, reason: problem) }
      if started == nil, seen.item == item, !seen.isBusy {
        let start = now.advanced(bySeconds: 0.1)
        started = start
        player.perform(.play(itemTime: 0, startAt: start, rate: 1), at: now)
      }
      if let started, now > started, !seen.isBusy, seen.position >= 1 {
        return .played(what: shown)
      }
    }
    return .failed(
      what: shown,
      reason: started == nil
        ? "it did not load within 10 s" : "it did not play a second within 10 s")
  }

  static func firstVideo(in directory: String) -> String? {
    guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else {
      return nil
    }
    return names.sorted().first {
      MediaLibrary.videoExtensions.contains(($0 as NSString).pathExtension.lowercased())
    }.map { (directory as NSString).appendingPathComponent($0) }
  }

  // MARK: - This machine

  static func router(ask: Bool) async -> MachineFacts.Router {
    guard ask else { return .notAsked }
    switch await RouterPortForwarding.outsideAddress() {
    case .success(let answer):
      return .answered(method: answer.method.description, outside: answer.address)
    case .failure(let silence):
      return .silent(silence.reasons)
    }
  }

  static func terminal(environment: [String: String]) async -> MachineFacts.Terminal {
    let term = environment["TERM"]
    guard isatty(STDOUT_FILENO) == 1 else { return .init(isTerminal: false, term: term) }
    var size = winsize()
    let known = ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0 && size.ws_col > 0
    return .init(
      isTerminal: true, columns: known ? Int(size.ws_col) : nil,
      rows: known ? Int(size.ws_row) : nil, colors: await colors(term: term), term: term)
  }

  /// The colours terminfo gives `term` (`tput colors`, ncurses' own answer).
  static func colors(term: String?) async -> Int? {
    guard let term, !term.isEmpty, let tput = find("tput", environment: [:]),
      let printed = await run(tput, ["-T", term, "colors"], seconds: 2)
    else { return nil }
    return Int(printed.trimmingCharacters(in: .whitespacesAndNewlines))
  }

  /// Why `path` cannot be written to (it, or the nearest directory above it that exists,
  /// which Cowatch would create it in); nil if it can.
  static func writeProblem(_ path: String) -> String? {
    var candidate = URL(fileURLWithPath: path).standardizedFileURL
    var isDirectory: ObjCBool = false
    while !FileManager.default.fileExists(atPath: candidate.path, isDirectory: &isDirectory) {
      let parent = candidate.deletingLastPathComponent()
      if parent.path == candidate.path { return "nothing above it exists" }
      candidate = parent
    }
    guard isDirectory.boolValue else { return "\(candidate.path) is not a directory" }
    return access(candidate.path, W_OK | X_OK) == 0
      ? nil : "\(candidate.path): \(String(cString: strerror(errno)))"
  }

  static func knownRelays(_ path: String) -> MachineFacts.KnownRelays {
    guard FileManager.default.fileExists(atPath: path) else { return .init(path: path, count: 0) }
    do {
      let text = try String(contentsOfFile: path, encoding: .utf8)
      let count = text.split(separator: "\n").filter {
        $0.split(separator: " ").count == 2
      }.count
      return .init(path: path, count: count)
    } catch {
      return .init(path: path, count: 0, problem: error.localizedDescription)
    }
  }

  /// Whether a relay could listen on `port` on every address (as `cowatch host` does).
  static func listening(port: Int) -> MachineFacts.Listening {
    let addresses = LocalAddress.nonLoopbackIPv4()
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else {
      return .init(
        port: port, problem: String(cString: strerror(errno)), addresses: addresses)
    }
    defer { close(fd) }
    var yes: Int32 = 1
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr = in_addr(s_addr: INADDR_ANY)
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard bound == 0, listen(fd, 1) == 0 else {
      let reason = errno == EADDRINUSE ? "it is in use" : String(cString: strerror(errno))
      return .init(port: port, problem: reason, addresses: addresses)
    }
    return .init(port: port, addresses: addresses)
  }

  /// The system's word on its clock (systemd's `timedatectl`): nil when it does not say.
  static func clockSynchronised(environment: [String: String]) async -> Bool? {
    guard let timedatectl = find("timedatectl", environment: environment),
      let answer = await run(timedatectl, ["show", "-p", "NTPSynchronized", "--value"], seconds: 2)
    else { return nil }
    switch answer.trimmingCharacters(in: .whitespacesAndNewlines) {
    case "yes": return true
    case "no": return false
    default: return nil
    }
  }
}
