import ArgumentParser
import Foundation

/// Runs a benchmark inside a fresh network namespace that has only loopback, so that the
/// servers it starts (Syncplay's listens on every interface) reach nothing else: the
/// bench re-executes itself there under `unshare -n`.
enum NetworkNamespace {
  /// Whether this process is the re-executed one, inside the namespace.
  static var isInside: Bool {
    ProcessInfo.processInfo.environment["COWATCH_BENCH_NETNS"] == "1"
  }

  /// Runs this very command again inside a new namespace and waits for it.
  static func rerunInside() throws {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
    let me = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().path
    p.arguments =
      ["-n", "--", "/bin/sh", "-c", "ip link set lo up && exec \"$@\"", "sh", me]
      + Array(CommandLine.arguments.dropFirst())
    var env = ProcessInfo.processInfo.environment
    env["COWATCH_BENCH_NETNS"] = "1"
    env["COWATCH_BENCH_COMMAND"] = Report.commandLine
    p.environment = env
    try p.run()
    p.waitUntilExit()
    if p.terminationStatus != 0 { throw ExitCode(p.terminationStatus) }
  }

  /// Runs `cowatch-bench ARGUMENTS` as a process of its own and waits for it.
  static func runSubcommand(_ arguments: [String]) throws {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
    p.arguments = arguments
    try p.run()
    p.waitUntilExit()
    if p.terminationStatus != 0 { throw ExitCode(p.terminationStatus) }
  }

  /// Installs a Debian package if `executable` is missing (the bench machine has apt).
  static func ensureInstalled(_ executable: String, package: String) throws {
    if Machine.which(executable) != nil { return }
    progress("\(executable) is missing; installing Debian's \(package)")
    let policy = Machine.run("/usr/bin/apt-cache", ["policy", package])
    if !policy.contains("Candidate:") || policy.contains("Candidate: (none)") {
      _ = Machine.run("/usr/bin/apt-get", ["update"])
    }
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/apt-get")
    p.arguments = ["install", "-y", package]
    p.environment = ["DEBIAN_FRONTEND": "noninteractive", "PATH": "/usr/sbin:/usr/bin:/sbin:/bin"]
    try p.run()
    p.waitUntilExit()
    guard Machine.which(executable) != nil else {
      throw BenchError("could not install \(package) (apt-get install -y \(package))")
    }
  }
}
