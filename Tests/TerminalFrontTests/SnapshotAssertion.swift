import Foundation
import Testing

/// Compares `text` with the stored snapshot `__Snapshots__/<name>.txt`; with
/// `COWATCH_RECORD_SNAPSHOTS=1` in the environment, (re)writes it instead.
func assertSnapshot(
  _ text: String, named name: String, filePath: String = #filePath,
  sourceLocation: SourceLocation = #_sourceLocation
) {
  let directory = URL(fileURLWithPath: filePath).deletingLastPathComponent().appendingPathComponent(
    "__Snapshots__")
  let file = directory.appendingPathComponent("\(name).txt")
  let actual = text + "\n"
  if ProcessInfo.processInfo.environment["COWATCH_RECORD_SNAPSHOTS"] == "1" {
    do {
      try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
      try actual.write(to: file, atomically: true, encoding: .utf8)
    } catch {
      Issue.record("could not record snapshot \(name): \(error)", sourceLocation: sourceLocation)
    }
    return
  }
  guard let expected = try? String(contentsOf: file, encoding: .utf8) else {
    Issue.record(
      "no snapshot \(name).txt; run with COWATCH_RECORD_SNAPSHOTS=1 to record it",
      sourceLocation: sourceLocation)
    return
  }
  if expected != actual {
    Issue.record(
      "snapshot \(name) differs (- expected, + actual):\n\(lineDiff(expected, actual))",
      sourceLocation: sourceLocation)
  }
}

/// A plain line-by-line diff: enough to see what moved in a screen.
func lineDiff(_ a: String, _ b: String) -> String {
  let x = a.split(separator: "\n", omittingEmptySubsequences: false)
  let y = b.split(separator: "\n", omittingEmptySubsequences: false)
  var out: [String] = []
  for i in 0..<max(x.count, y.count) {
    let l = i < x.count ? String(x[i]) : nil
    let r = i < y.count ? String(y[i]) : nil
    if l == r {
      out.append("  \(l ?? "")")
    } else {
      if let l { out.append("- \(l)") }
      if let r { out.append("+ \(r)") }
    }
  }
  return out.joined(separator: "\n")
}
