import HeadlessFront
import PlaybackCoordination

/// Script times and durations as people write and read them.
public enum ScriptTime {
  /// `m:ss` with tenths when they matter (`1:05`, `1:05.5`), as the headless words write it.
  public static func format(_ seconds: Double) -> String { LineTime.format(seconds) }

  /// `[m:ss]`, the transcript's timestamp.
  public static func stamp(_ seconds: Double) -> String { "[\(TimeFormat.clock(max(0, seconds)))]" }

  /// Seconds without trailing zeros (`0.5`, `3`).
  public static func seconds(_ value: Double) -> String { LineTime.seconds(value) }

  /// Parses a duration: `3s`, `1.5s`, `500ms`, `0:03`, or plain seconds.
  public static func parseDuration(_ text: String) -> Double? {
    let t = text.lowercased()
    let value: Double?
    if t.hasSuffix("ms") {
      value = Double(t.dropLast(2)).map { $0 / 1000 }
    } else if t.hasSuffix("s") {
      value = Double(t.dropLast())
    } else {
      value = TimeFormat.parse(t)
    }
    guard let value, value.isFinite, value >= 0 else { return nil }
    return value
  }
}
