import Clocks
import Foundation
import Logging

/// Percentiles of a sample of durations (or distances), in the unit they were recorded in.
struct Summary: Sendable {
  var count: Int
  var p50: Double
  var p99: Double
  var max: Double

  init(_ values: [Double]) {
    let sorted = values.sorted()
    count = sorted.count
    func pick(_ q: Double) -> Double {
      guard !sorted.isEmpty else { return .nan }
      let i = Int((q * Double(sorted.count - 1)).rounded(.up))
      return sorted[min(sorted.count - 1, Swift.max(0, i))]
    }
    p50 = pick(0.5)
    p99 = pick(0.99)
    self.max = sorted.last ?? .nan
  }

  /// `p50 / p99 / max` with `digits` decimals.
  func text(_ digits: Int = 2) -> String {
    guard count > 0 else { return "no samples" }
    return "\(fmt(p50, digits)) / \(fmt(p99, digits)) / \(fmt(max, digits))"
  }
}

func fmt(_ value: Double, _ digits: Int = 2) -> String {
  guard value.isFinite else { return "–" }
  return String(format: "%.\(digits)f", value)
}

/// A plain-text and Markdown table.
struct Table {
  var header: [String]
  var rows: [[String]] = []

  init(_ header: String...) { self.header = header }

  mutating func add(_ cells: String...) { rows.append(cells) }

  var markdown: String {
    var s = "| " + header.joined(separator: " | ") + " |\n"
    s += "|" + header.map { _ in "---" }.joined(separator: "|") + "|\n"
    for r in rows { s += "| " + r.joined(separator: " | ") + " |\n" }
    return s
  }

  var plain: String {
    let all = [header] + rows
    let widths = header.indices.map { i in all.map { i < $0.count ? $0[i].count : 0 }.max() ?? 0 }
    func line(_ r: [String]) -> String {
      r.enumerated().map { i, c in c.padding(toLength: widths[i], withPad: " ", startingAt: 0) }
        .joined(separator: "  ")
    }
    return
      ([line(header), widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")]
      + rows.map(line)).joined(separator: "\n")
  }
}

/// Nanoseconds of CLOCK_MONOTONIC.
@inline(__always) func monoNow() -> Int64 {
  var ts = timespec()
  clock_gettime(CLOCK_MONOTONIC, &ts)
  return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
}

/// The benches measure real time, and wait on it: the monotonic clock the product uses.
func sleepSeconds(_ s: Double) async {
  await MonotonicClock().sleep(seconds: s)
}

/// Polls `condition` every `interval` for up to `seconds`: whether it came to hold.
func pollUntil(_ seconds: Double, every interval: Double = 0.02, _ condition: () -> Bool) async
  -> Bool
{
  let end = monoNow() + Int64(seconds * 1e9)
  while monoNow() < end {
    if condition() { return true }
    await sleepSeconds(interval)
  }
  return false
}

/// Thread-safe collection of samples.
final class Samples: @unchecked Sendable {
  private let lock = NSLock()
  private var values: [Double] = []
  func add(_ v: Double) {
    lock.lock()
    values.append(v)
    lock.unlock()
  }
  func take() -> [Double] {
    lock.lock()
    defer {
      values = []
      lock.unlock()
    }
    return values
  }
  var count: Int {
    lock.lock()
    defer { lock.unlock() }
    return values.count
  }
}

/// Prints to stderr (progress) so stdout stays the table.
func progress(_ text: String) {
  FileHandle.standardError.write(Data(("· " + text + "\n").utf8))
}

/// Raises the open-file limit to the hard limit (children inherit it).
@discardableResult
func raiseFileLimit() -> Int {
  var limit = rlimit()
  getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
  limit.rlim_cur = limit.rlim_max
  setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
  getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
  return Int(limit.rlim_cur)
}

/// Logs at warning and above only, so that tables stay readable.
enum BenchLogging {
  nonisolated(unsafe) private static var done = false
  static func setup() {
    guard !done else { return }
    done = true
    LoggingSystem.bootstrap { label in
      var h = StreamLogHandler.standardError(label: label)
      h.logLevel = .warning
      return h
    }
  }
}
