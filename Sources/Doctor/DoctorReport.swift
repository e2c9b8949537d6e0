import Foundation

/// How `cowatch doctor` prints its findings: aligned lines for a person, or one JSON
/// object per check for a program.
public enum DoctorReport {
  public static func text(_ findings: [DoctorFinding]) -> String {
    let width = findings.map(\.check.count).max() ?? 0
    var lines = findings.map { finding -> String in
      let status = finding.status.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0)
      let check = finding.check.padding(toLength: width + 2, withPad: " ", startingAt: 0)
      var line = "\(status) \(check)\(finding.summary)"
      if let advice = finding.advice {
        line += "\n" + String(repeating: " ", count: 9 + width + 2) + "→ " + advice
      }
      return line
    }
    let problems = findings.filter { $0.status == .problem }.count
    let warnings = findings.filter { $0.status == .warning }.count
    lines.append(
      problems == 0 && warnings == 0
        ? "Ready for a watch night."
        : [
          problems == 0 ? nil : "\(problems) problem\(problems == 1 ? "" : "s")",
          warnings == 0 ? nil : "\(warnings) warning\(warnings == 1 ? "" : "s")",
        ].compactMap { $0 }.joined(separator: ", ")
          + (problems == 0 ? ": a watch night can go ahead." : ": fix the problems first."))
    return lines.joined(separator: "\n")
  }

  /// One JSON object per finding and line: `check`, `status`, `summary`, and `advice`
  /// when there is any.
  public static func jsonLines(_ findings: [DoctorFinding]) -> [String] {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return findings.map { String(decoding: (try? encoder.encode($0)) ?? Data(), as: UTF8.self) }
  }
}
