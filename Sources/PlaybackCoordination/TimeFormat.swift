/// Formats and parses item times as people write them (`12:34`, `1:02:03`, `75.5`).
public enum TimeFormat {
  /// `m:ss` or `h:mm:ss`, truncating fractions.
  public static func clock(_ seconds: Double) -> String {
    let s = Int(max(0, seconds.isFinite ? seconds : 0))
    let h = s / 3600
    let m = (s % 3600) / 60
    let sec = s % 60
    func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
    return h > 0 ? "\(h):\(two(m)):\(two(sec))" : "\(m):\(two(sec))"
  }

  /// Parses `SS`, `SS.f`, `M:SS`, `H:MM:SS` (fractions allowed on the last field).
  public static func parse(_ text: String) -> Double? {
    let parts = text.split(separator: ":", omittingEmptySubsequences: false)
    guard (1...3).contains(parts.count) else { return nil }
    var total = 0.0
    for (i, part) in parts.enumerated() {
      let isLast = i == parts.count - 1
      guard !part.isEmpty, let v = Double(part), v >= 0, v.isFinite else { return nil }
      if !isLast && v != v.rounded() { return nil }
      if i > 0 && v >= 60 { return nil }
      total = total * 60 + v
    }
    return total
  }
}
