import Foundation
import Synchronization
import TestSupport
import Testing

/// A running `cowatch` process with its output collected line by line, for tests that
/// drive the real executable as a person or a program would.
final class CowatchProcess: Sendable {
  private let process: Process
  private let input: Pipe
  private let lines = Mutex<[String]>([])
  private let errorText = Mutex<String>("")
  /// How many of the two output readers have seen the end of their pipe.
  private let drainedReaders = Mutex<Int>(0)

  /// The `cowatch` executable built next to the test bundle.
  static var executable: URL {
    let here = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
    var dir = here.deletingLastPathComponent()
    for _ in 0..<4 {
      let candidate = dir.appendingPathComponent("cowatch")
      if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
      dir = dir.deletingLastPathComponent()
    }
    return URL(fileURLWithPath: ".build/debug/cowatch")
  }

  /// A directory of this test run's own, for what `cowatch` keeps between runs (a relay's
  /// certificate, the relays a participant trusts): one per run, so that every relay the
  /// run starts presents one certificate, and nothing reaches the real home directory.
  static let runDirectory: String = {
    let path = FileManager.default.temporaryDirectory
      .appendingPathComponent("cowatch-cli-tests-\(getpid())").path
    try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
  }()

  static var repositoryRoot: URL {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent()
  }

  /// `environment`: variables set (or, with nil, removed) on top of this process's own.
  init(_ arguments: [String], environment: [String: String?] = [:]) throws {
    process = Process()
    process.executableURL = Self.executable
    process.arguments = arguments
    // Certificates, known relays and stores of the run stay out of the home directory.
    var merged = ProcessInfo.processInfo.environment
    merged["XDG_STATE_HOME"] = Self.runDirectory + "/state"
    merged["XDG_CONFIG_HOME"] = Self.runDirectory + "/config"
    for (key, value) in environment { merged[key] = value }
    process.environment = merged
    process.currentDirectoryURL = Self.repositoryRoot
    input = Pipe()
    let output = Pipe()
    let errors = Pipe()
    process.standardInput = input
    process.standardOutput = output
    process.standardError = errors
    try process.run()
    Thread.detachNewThread { [self] in
      var pending = Data()
      while true {
        let chunk = output.fileHandleForReading.availableData
        if chunk.isEmpty { break }
        pending.append(chunk)
        while let newline = pending.firstIndex(of: 0x0A) {
          let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
          pending.removeSubrange(pending.startIndex...newline)
          lines.withLock { $0.append(line) }
        }
      }
      drainedReaders.withLock { $0 += 1 }
    }
    Thread.detachNewThread { [self] in
      while true {
        let chunk = errors.fileHandleForReading.availableData
        if chunk.isEmpty { break }
        errorText.withLock { $0 += String(decoding: chunk, as: UTF8.self) }
      }
      drainedReaders.withLock { $0 += 1 }
    }
  }

  /// A loopback address of this test's own (127.0.0.0/8 is all this machine's): a relay
  /// restarted on the port it had can rebind it, which no other test holds on this
  /// address (on 127.0.0.1 another test's relay or connection may take it meanwhile).
  static func ownLoopbackHost() -> String {
    "127.\(Int.random(in: 10...250)).\(Int.random(in: 0...255)).\(Int.random(in: 1...254))"
  }

  /// Starts `cowatch serve` on a free loopback port, with `arguments` added, and waits
  /// (bounded) until it listens; returns it with that port.
  static func relay(
    _ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation
  ) async throws -> (relay: CowatchProcess, port: String) {
    let relay = try CowatchProcess(
      ["serve", "--host", "127.0.0.1", "--port", "0"] + arguments)
    guard
      let listening = await relay.waitForLine(
        containing: ["listening on 127.0.0.1:"], sourceLocation: sourceLocation),
      let port = listening.split(separator: ":").last.map(String.init)
    else {
      relay.terminate()
      throw CancellationError()
    }
    return (relay, port)
  }

  var output: [String] { lines.withLock { $0 } }
  var standardError: String { errorText.withLock { $0 } }

  func send(_ line: String) {
    input.fileHandleForWriting.write(Data((line + "\n").utf8))
  }

  func closeInput() { try? input.fileHandleForWriting.close() }

  /// Waits (bounded) for an output line containing every fragment.
  @discardableResult
  func waitForLine(
    containing fragments: [String], within seconds: Double = 10,
    sourceLocation: SourceLocation = #_sourceLocation
  ) async -> String? {
    var found: String?
    let came = await eventually(seconds, poll: .milliseconds(20)) {
      found = output.first { line in fragments.allSatisfy { line.contains($0) } }
      return found != nil
    }
    if came, let found { return found }
    Issue.record(
      "no line with \(fragments) within \(seconds) s; got:\n\(output.suffix(15).joined(separator: "\n"))\nstderr: \(standardError)",
      sourceLocation: sourceLocation)
    return nil
  }

  /// Waits (bounded) for the process to exit and for what it wrote to be read (an exit
  /// can be seen before the last bytes of its output are); kills it if it does not exit.
  func exitStatus(within seconds: Double = 10) async -> Int32? {
    _ = await eventually(seconds, poll: .milliseconds(20)) { !process.isRunning }
    if process.isRunning {
      process.terminate()
      return nil
    }
    // A child it left behind (an mpv) may hold the pipes open: the wait is bounded.
    _ = await eventually(2) { drainedReaders.withLock { $0 } >= 2 }
    return process.terminationStatus
  }

  func terminate() {
    if process.isRunning { process.terminate() }
  }

  var processIdentifier: Int32 { process.processIdentifier }

  /// SIGKILL: the process gets no chance to write or close anything, as in a crash.
  func killNow() async {
    guard process.isRunning else { return }
    kill(process.processIdentifier, SIGKILL)
    _ = await exitStatus(within: 5)
  }

  /// Waits (bounded) for an output line after the first `start` lines containing every
  /// fragment; returns its index and text.
  @discardableResult
  func waitForLine(
    after start: Int, containing fragments: [String], within seconds: Double = 10,
    sourceLocation: SourceLocation = #_sourceLocation
  ) async -> (index: Int, line: String)? {
    var found: (index: Int, line: String)?
    let came = await eventually(seconds, poll: .milliseconds(20)) {
      let lines = output
      guard start < lines.count,
        let index = lines[start...].firstIndex(where: { line in
          fragments.allSatisfy { line.contains($0) }
        })
      else { return false }
      found = (index, lines[index])
      return true
    }
    if came, let found { return found }
    Issue.record(
      "no line with \(fragments) after line \(start) within \(seconds) s; got:\n\(output.suffix(15).joined(separator: "\n"))\nstderr: \(standardError)",
      sourceLocation: sourceLocation)
    return nil
  }
}

/// A value shared between the reader threads and the test.
