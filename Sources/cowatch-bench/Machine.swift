import Foundation

/// Facts about the machine a run happened on, for the benchmark document.
enum Machine {
  static func run(_ path: String, _ args: [String]) -> String {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: path)
    p.arguments = args
    let pipe = Pipe()
    p.standardOutput = pipe
    p.standardError = pipe
    do { try p.run() } catch { return "?" }
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
  }

  static func which(_ name: String) -> String? {
    for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(
      separator: ":")
    {
      let path = "\(dir)/\(name)"
      if FileManager.default.isExecutableFile(atPath: path) { return path }
    }
    return nil
  }

  static var facts: [(String, String)] {
    let cpuinfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
    let model =
      cpuinfo.split(separator: "\n").first { $0.hasPrefix("model name") }
      .map {
        String($0.split(separator: ":", maxSplits: 1).last ?? "").trimmingCharacters(
          in: .whitespaces)
      }
      ?? "?"
    let meminfo = (try? String(contentsOfFile: "/proc/meminfo", encoding: .utf8)) ?? ""
    let memKB =
      meminfo.split(separator: "\n").first { $0.hasPrefix("MemTotal") }
      .flatMap { Int($0.split(separator: " ").dropFirst().first ?? "") } ?? 0
    let kernel = run("/bin/uname", ["-sr"])
    let swift =
      which("swift").map {
        run($0, ["--version"]).split(separator: "\n").first.map(String.init) ?? "?"
      } ?? "?"
    let date = ISO8601DateFormatter().string(from: Date())
    return [
      ("date", date), ("cpus (nproc)", "\(ProcessInfo.processInfo.activeProcessorCount)"),
      ("cpu model", model), ("memory", String(format: "%.1f GiB", Double(memKB) / 1_048_576)),
      ("kernel", kernel), ("swift", swift),
    ]
  }

  static var factsLine: String { facts.map { "\($0.0): \($0.1)" }.joined(separator: "; ") }
}
