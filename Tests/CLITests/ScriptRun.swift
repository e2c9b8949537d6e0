import Foundation
import TestSupport
import Testing

/// A script of `scripts/` run as the CLI tests run them (from the repository, with `BIN`
/// the directory of the binaries this run built), its output collected; bounded in time.
enum ScriptRun {
  /// The script's exit status and everything it printed (stdout and stderr together).
  static func run(
    _ script: String, _ arguments: [String], bin: URL, within seconds: Double,
    sourceLocation: SourceLocation = #_sourceLocation
  ) async throws -> (status: Int32, text: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/bash")
    process.arguments = [script] + arguments
    var environment = ProcessInfo.processInfo.environment
    environment["BIN"] = bin.path
    process.environment = environment
    process.currentDirectoryURL = CowatchProcess.repositoryRoot
    let out = Pipe()
    process.standardOutput = out
    process.standardError = out
    try process.run()
    let reading = Task { out.fileHandleForReading.readDataToEndOfFile() }
    _ = await eventually(seconds, poll: .milliseconds(100)) { !process.isRunning }
    if process.isRunning {
      process.terminate()
      Issue.record("\(script) took more than \(Int(seconds)) s", sourceLocation: sourceLocation)
    }
    let text = String(decoding: await reading.value, as: UTF8.self)
    process.waitUntilExit()
    return (process.terminationStatus, text)
  }
}
