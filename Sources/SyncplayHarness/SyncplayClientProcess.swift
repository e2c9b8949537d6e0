import Foundation

/// Debian's Syncplay client run headless (`syncplay --no-gui`), driving its own mpv
/// (`--vo=null --ao=null` unless told otherwise) with an IPC socket a ``MpvProbe`` can
/// read. Commands go to its console on stdin ("p" to pause or play, "s 1:30" to seek,
/// "ch TEXT" to chat); what it prints goes to a log file.
public final class SyncplayClientProcess: @unchecked Sendable {
  // @unchecked: the process and the pipe are used from one task at a time.
  public let name: String
  public let socketPath: String
  public let logPath: String
  private let process: Process
  private let input: Pipe

  public static var syncplayPath: String? { executable("syncplay") }
  public static var mpvPath: String? { executable("mpv") }

  /// Starts a client for `server` ("127.0.0.1:8999") as `name` in `room`, opening `file`.
  public init(
    server: String, name: String, room: String, file: String, directory: URL,
    password: String? = nil, mpvArguments: [String] = ["--vo=null", "--ao=null"],
    debug: Bool = false, environment: [String: String] = [:]
  ) throws(HarnessError) {
    guard let syncplay = Self.syncplayPath, let mpv = Self.mpvPath else {
      throw HarnessError(
        "Syncplay's client and mpv are needed (apt-get install syncplay mpv; .ci/run installs them)"
      )
    }
    self.name = name
    // Each run its own socket: a killed mpv leaves its socket file behind.
    let run = UInt32.random(in: 0...UInt32.max)
    socketPath = directory.appendingPathComponent("\(name)-\(run)-mpv.sock").path
    logPath = directory.appendingPathComponent("\(name)-\(run)-syncplay.log").path
    process = Process()
    process.executableURL = URL(fileURLWithPath: syncplay)
    var arguments = ["--no-gui", "--no-store", "-a", server, "-n", name, "-r", room]
    if let password { arguments += ["--password", password] }
    if debug { arguments.append("--debug") }
    arguments += ["--player-path", mpv, file, "--"] + mpvArguments
    arguments.append("--input-ipc-server=\(socketPath)")
    process.arguments = arguments
    if !environment.isEmpty {
      process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    }
    input = Pipe()
    process.standardInput = input
    _ = FileManager.default.createFile(atPath: logPath, contents: nil)
    let log = FileHandle(forWritingAtPath: logPath)
    process.standardOutput = log
    process.standardError = log
    do {
      try process.run()
    } catch {
      throw HarnessError("cannot start syncplay: \(error.localizedDescription)")
    }
  }

  /// One console command, as typed.
  public func tell(_ command: String) {
    input.fileHandleForWriting.write(Data((command + "\n").utf8))
  }

  /// What the client printed so far.
  public var log: String {
    (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
  }

  public var isRunning: Bool { process.isRunning }

  /// Starts a client with `make` and opens a probe on its mpv, starting it again (up to
  /// `attempts` times in all) when the client gave up on its mpv at start.
  ///
  /// Syncplay's vendored python-mpv-jsonipc connects as soon as mpv's socket file exists,
  /// a moment before mpv listens on it; on a loaded machine that connection is refused and
  /// the client exits ("Media player error … Connection refused"). That is Syncplay's race,
  /// not the group's: starting it again is what a person would do.
  public static func launch(
    attempts: Int = 3, _ make: () throws -> SyncplayClientProcess
  ) throws -> (SyncplayClientProcess, MpvProbe) {
    var attempt = 1
    while true {
      let client = try make()
      let failure: HarnessError
      do {
        let probe = try client.probe()
        // The client connects to the same socket around now: give its failure, if it
        // comes, the time to show.
        let settle = monoNow() + 500_000_000
        while monoNow() < settle, client.isRunning, !client.gaveUpOnPlayer { usleep(20_000) }
        if client.isRunning, !client.gaveUpOnPlayer { return (client, probe) }
        failure = HarnessError("Syncplay's client gave up on its mpv: \(client.log.suffix(1500))")
      } catch {
        failure = error
      }
      let retry = client.gaveUpOnPlayer && attempt < attempts
      client.stop()
      guard retry else { throw failure }
      attempt += 1
    }
  }

  /// Whether the client said it could not drive its mpv.
  var gaveUpOnPlayer: Bool {
    let text = log
    return text.contains("Media player error") || text.contains("Could not load mpv")
  }

  /// A probe on the mpv this client starts. Python's start-up and then mpv's can take many
  /// seconds on a loaded machine (a full test run starts dozens of players at once), so it
  /// waits up to `seconds` while the client runs; if mpv never comes, the error carries
  /// what the client printed.
  public func probe(within seconds: Double = 60) throws(HarnessError) -> MpvProbe {
    do {
      return try MpvProbe(path: socketPath, within: seconds) { self.process.isRunning }
    } catch {
      let state = process.isRunning ? "still runs" : "exited (status \(process.terminationStatus))"
      throw HarnessError(
        "\(error.description); Syncplay's client \(state) and printed: \(log.suffix(1500))")
    }
  }

  /// Ends the client (it does not always end on SIGTERM: a second, then SIGKILL) and the
  /// mpv it started (which a killed client leaves behind).
  public func stop() {
    if process.isRunning { kill(process.processIdentifier, SIGTERM) }
    let grace = monoNow() + 1_000_000_000
    while process.isRunning && monoNow() < grace { usleep(20_000) }
    if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    let pkill = Process()
    pkill.executableURL = URL(fileURLWithPath: "/usr/bin/pkill")
    // Syncplay's mpv runs with --terminal=no and outlives SIGTERM: SIGKILL.
    pkill.arguments = ["-KILL", "-f", socketPath]
    pkill.standardOutput = FileHandle.nullDevice
    pkill.standardError = FileHandle.nullDevice
    try? pkill.run()
    pkill.waitUntilExit()
  }

  static func executable(_ name: String) -> String? {
    for directory in ["/usr/bin", "/usr/local/bin", "/bin"] {
      let path = "\(directory)/\(name)"
      if FileManager.default.isExecutableFile(atPath: path) { return path }
    }
    return nil
  }
}
