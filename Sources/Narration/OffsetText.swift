/// A personal offset in words: "200 ms ahead", "1.5 s behind".
public enum OffsetText {
  public static func describe(_ seconds: Double) -> String {
    "\(amount(seconds, separator: " ")) \(seconds > 0 ? "ahead" : "behind")"
  }

  /// "+200ms", "−1.5s" (the people pane's short form).
  public static func short(_ seconds: Double) -> String {
    (seconds > 0 ? "+" : "−") + amount(seconds, separator: "")
  }

  /// Milliseconds under a second, else seconds to a tenth (no ".0").
  static func amount(_ seconds: Double, separator: String) -> String {
    let magnitude = abs(seconds)
    if magnitude < 1 { return "\(Int((magnitude * 1000).rounded()))\(separator)ms" }
    let tenths = Int((magnitude * 10).rounded())
    let text = tenths % 10 == 0 ? "\(tenths / 10)" : "\(tenths / 10).\(tenths % 10)"
    return "\(text)\(separator)s"
  }
}
