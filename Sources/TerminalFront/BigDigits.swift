/// A 3-row font for the clock, drawn with box-drawing characters (one column each, so it
/// lines up in every terminal):
///
///     ╶┐  ╶─┐ ┌─┐ :  ┌─┐ ┌─┐
///      │  ┌─┘ ├─┤    │ │  ─┤
///     ╶┴╴ └─╴ └─┘ :  └─┘ ╶─┘
public enum BigDigits {
  public static let height = 3

  static let glyphs: [Character: [String]] = [
    "0": ["┌─┐", "│ │", "└─┘"],
    "1": ["╶┐ ", " │ ", "╶┴╴"],
    "2": ["╶─┐", "┌─┘", "└─╴"],
    "3": ["╶─┐", " ─┤", "╶─┘"],
    "4": ["╷ ╷", "└─┤", "  ╵"],
    "5": ["┌─╴", "└─┐", "╶─┘"],
    "6": ["┌─╴", "├─┐", "└─┘"],
    "7": ["╶─┐", "  │", "  ╵"],
    "8": ["┌─┐", "├─┤", "└─┘"],
    "9": ["┌─┐", "└─┤", "╶─┘"],
    ":": ["╻", " ", "╹"],
    "/": ["  ╱", " ╱ ", "╱  "],
    "-": ["   ", "╶─╴", "   "],
    " ": [" ", " ", " "],
  ]

  /// The three rows of `text` (characters without a glyph are skipped), glyphs one column
  /// apart.
  public static func render(_ text: String) -> [String] {
    var rows = ["", "", ""]
    var first = true
    for ch in text {
      guard let glyph = glyphs[ch] else { continue }
      for r in 0..<3 { rows[r] += (first ? "" : " ") + glyph[r] }
      first = false
    }
    return rows
  }

  /// Columns `text` takes in the big font.
  public static func width(of text: String) -> Int {
    render(text)[0].count
  }
}
