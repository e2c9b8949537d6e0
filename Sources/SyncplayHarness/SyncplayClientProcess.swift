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
