import Foundation

/// Why a harness could not do what a test or benchmark asked.
public struct HarnessError: Error, CustomStringConvertible, Sendable {
  public let description: String
  public init(_ description: String) { self.description = description }

  /// Runs a tool to its end, quietly; its failure is one of these.
  static func run(_ tool: String, _ arguments: [String]) throws(HarnessError) {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: tool)
    p.arguments = arguments
    p.standardInput = FileHandle.nullDevice
    p.standardOutput = FileHandle.nullDevice
    p.standardError = FileHandle.nullDevice
    do {
      try p.run()
    } catch {
      throw HarnessError("cannot run \(tool): \(error.localizedDescription)")
    }
    p.waitUntilExit()
    guard p.terminationStatus == 0 else {
      throw HarnessError("\(tool) \(arguments.prefix(2).joined(separator: " ")) failed")
    }
  }
}

/// The monotonic clock, nanoseconds (what mpv readings and Cowatch samples are stamped with).
@inline(__always) func monoNow() -> Int64 {
  var ts = timespec()
  clock_gettime(CLOCK_MONOTONIC, &ts)
  return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
}
