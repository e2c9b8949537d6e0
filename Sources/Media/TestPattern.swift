/// The picture of the simulated player: a row of block characters that encodes the position
/// at 10 frames a second. Two terminals showing the same frame are within 100 ms of each
/// other; side by side, a difference is visible at a glance.
///
/// A frame is a sweep (a cursor crossing `sweepWidth` cells, one cell per frame) followed by
/// the frame number in binary, most significant bit first:
/// `▁▁▁█▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁ □□□□□□■□□■■■`.
public enum TestPattern {
  public static let framesPerSecond = 10
  public static let sweepWidth = 20
  public static let bits = 14

  /// The frame shown at `position` seconds (frames start on tenths of a second).
  public static func frameIndex(at position: Double) -> Int {
    guard position.isFinite, position > 0 else { return 0 }
    // The small epsilon keeps 0.3 s in frame 3 despite binary rounding (0.3 × 10 = 2.999…).
    return Int((position * Double(framesPerSecond) + 1e-6).rounded(.down))
  }

  public static func frame(at position: Double) -> String { frame(index: frameIndex(at: position)) }

  public static func frame(index: Int) -> String {
    let cursor = index % sweepWidth
    var text = ""
    text.reserveCapacity(sweepWidth + bits + 1)
    for cell in 0..<sweepWidth { text.append(cell == cursor ? "█" : "▁") }
    text.append(" ")
    for bit in stride(from: bits - 1, through: 0, by: -1) {
      text.append((index >> bit) & 1 == 1 ? "■" : "□")
    }
    return text
  }
}
