/// What a cell's colour means; the terminal layer maps roles to colours (or to nothing,
/// under `NO_COLOR`), so the screen model never names a colour.
public enum ColorRole: UInt8, Hashable, Sendable, CaseIterable {
  case normal
  /// Pane titles and the series title.
  case title
  /// Highlights: the big clock, the selected option.
  case accent
  case playing
  case paused
  case waiting
  case warning
  case error
  /// Secondary text: hints, durations.
  case muted
  case chat
  /// The local participant.
  case you
  /// Box borders.
  case frame
  case progress
  // The colour bars of the test-pattern strip.
  case barWhite, barYellow, barCyan, barGreen, barMagenta, barRed, barBlue
}

/// How a cell is drawn.
public struct CellStyle: Hashable, Sendable {
  public var role: ColorRole
  public var bold: Bool
  public var dim: Bool
  public var reverse: Bool

  public init(
    _ role: ColorRole = .normal, bold: Bool = false, dim: Bool = false, reverse: Bool = false
  ) {
    self.role = role
    self.bold = bold
    self.dim = dim
    self.reverse = reverse
  }

  public static let plain = CellStyle()
}

/// One terminal cell. A wide character occupies its cell (``width`` 2) and the cell to its
/// right, a continuation (``width`` 0) that is never drawn on its own.
public struct Cell: Hashable, Sendable {
  public var character: Character
  /// 1 for an ordinary cell, 2 for the first half of a wide character, 0 for its second half.
  public var width: UInt8
  public var style: CellStyle

  public init(_ character: Character = " ", width: UInt8 = 1, style: CellStyle = .plain) {
    self.character = character
    self.width = width
    self.style = style
  }

  public static let blank = Cell()
  public var isContinuation: Bool { width == 0 }
}

/// A rows × cols grid of cells the renderer draws into and the terminal blits. Every write
/// is clipped to the grid (and to an optional width), and never leaves half of a wide
/// character behind: a wide character that does not fit becomes a space, and overwriting
/// either half of one blanks the other.
public struct CellGrid: Hashable, Sendable {
  public let rows: Int
  public let cols: Int
  public private(set) var cells: [Cell]

  public init(rows: Int, cols: Int) {
    self.rows = max(0, rows)
    self.cols = max(0, cols)
    cells = Array(repeating: .blank, count: self.rows * self.cols)
  }

  public subscript(row: Int, col: Int) -> Cell {
    guard contains(row: row, col: col) else { return .blank }
    return cells[row * cols + col]
  }

  public func contains(row: Int, col: Int) -> Bool {
    row >= 0 && row < rows && col >= 0 && col < cols
  }

  /// Puts one character at (row, col); returns the columns it takes (its width), even when
  /// clipped, so that callers can keep counting. Zero-width characters are dropped.
  @discardableResult
  public mutating func put(
    _ character: Character, row: Int, col: Int, style: CellStyle = .plain, limit: Int? = nil
  )
    -> Int
  {
    let ch: Character =
      character == "\t" || character == "\n" || character == "\r\n" ? " " : character
    let width = CharacterWidth.of(ch)
    guard width > 0 else { return 0 }
    let end = min(cols, limit ?? cols)
    guard row >= 0, row < rows, col + width > 0, col < end else { return width }
    if col < 0 || col + width > end {
      // Part of a wide character is outside: draw spaces in the visible part.
      for x in max(0, col)..<min(col + width, end) {
        set(Cell(" ", style: style), row: row, col: x)
      }
      return width
    }
    set(Cell(ch, width: UInt8(width), style: style), row: row, col: col)
    if width == 2 { set(Cell(" ", width: 0, style: style), row: row, col: col + 1) }
    return width
  }

  /// Writes `text` from (row, col), clipped to the grid and to `maxWidth` columns; returns
  /// the column after the text (as if unclipped).
  @discardableResult
  public mutating func write(
    _ text: some StringProtocol, row: Int, col: Int, style: CellStyle = .plain, maxWidth: Int? = nil
  ) -> Int {
    let limit = maxWidth.map { col + max(0, $0) }
    var x = col
    for ch in text {
      x += put(ch, row: row, col: x, style: style, limit: limit)
      if let limit, x >= limit { break }
      if x >= cols { break }
    }
    return x
  }

  /// Fills a rectangle with a character (by default, blanks it).
  public mutating func fill(
    row: Int, col: Int, height: Int, width: Int, with character: Character = " ",
    style: CellStyle = .plain
  ) {
    let w = max(1, CharacterWidth.of(character))
    for r in max(0, row)..<max(max(0, row), min(rows, row + height)) {
      var x = col
      while x < col + width {
        put(character, row: r, col: x, style: style, limit: col + width)
        x += w
      }
    }
  }

  /// Changes the style of a rectangle without changing its characters.
  public mutating func restyle(
    row: Int, col: Int, height: Int = 1, width: Int, _ change: (inout CellStyle) -> Void
  ) {
    for r in max(0, row)..<max(max(0, row), min(rows, row + height)) {
      for c in max(0, col)..<max(max(0, col), min(cols, col + width)) {
        change(&cells[r * cols + c].style)
      }
    }
  }

  /// Draws a single-line box border, with an optional title in the top edge.
  public mutating func box(
    row: Int, col: Int, height: Int, width: Int, title: String? = nil,
    style: CellStyle = CellStyle(.frame),
    titleStyle: CellStyle = CellStyle(.title, bold: true)
  ) {
    guard height >= 2, width >= 2 else { return }
    let bottom = row + height - 1
    let right = col + width - 1
    put("┌", row: row, col: col, style: style)
    put("┐", row: row, col: right, style: style)
    put("└", row: bottom, col: col, style: style)
    put("┘", row: bottom, col: right, style: style)
    for x in (col + 1)..<right {
      put("─", row: row, col: x, style: style)
      put("─", row: bottom, col: x, style: style)
    }
    for y in (row + 1)..<bottom {
      put("│", row: y, col: col, style: style)
      put("│", row: y, col: right, style: style)
    }
    if let title, width > 6 {
      let text = TextLayout.truncate(title, to: width - 4)
      put(" ", row: row, col: col + 1, style: style)
      let end = write(text, row: row, col: col + 2, style: titleStyle, maxWidth: width - 4)
      put(" ", row: row, col: end, style: style, limit: right)
    }
  }

  /// One row as text: each character once (wide ones included), trailing spaces removed.
  /// Copies `other` into this grid with its top-left corner at (row, col), clipped, so that
  /// several screens can be shown side by side.
  public mutating func paste(_ other: CellGrid, row: Int, col: Int) {
    for r in 0..<other.rows where row + r >= 0 && row + r < rows {
      for c in 0..<other.cols where col + c >= 0 && col + c < cols {
        let cell = other[r, c]
        // A wide character cut by the right edge would leave half a glyph: blank it.
        if cell.width == 2 && col + c + 1 >= cols {
          set(Cell(" ", style: cell.style), row: row + r, col: col + c)
        } else {
          set(cell, row: row + r, col: col + c)
        }
      }
    }
  }

  public func line(_ row: Int) -> String {
    guard row >= 0, row < rows else { return "" }
    var s = ""
    for c in 0..<cols {
      let cell = cells[row * cols + c]
      if !cell.isContinuation { s.append(cell.character) }
    }
    while s.last == " " { s.removeLast() }
    return s
  }

  /// The whole grid as lines, for tests and snapshots.
  public var lines: [String] { (0..<rows).map(line) }

  /// The whole grid as text, one line per row.
  public var text: String { lines.joined(separator: "\n") }

  private mutating func set(_ cell: Cell, row: Int, col: Int) {
    let i = row * cols + col
    let old = cells[i]
    if old.width == 2, col + 1 < cols, cells[i + 1].isContinuation {
      cells[i + 1] = Cell(" ", style: cells[i + 1].style)
    } else if old.isContinuation, col > 0, cells[i - 1].width == 2 {
      cells[i - 1] = Cell(" ", style: cells[i - 1].style)
    }
    cells[i] = cell
  }
}

/// Measuring, truncating, padding and wrapping text by terminal columns.
public enum TextLayout {
  /// `text` cut to at most `width` columns, ending with `…` when cut.
  public static func truncate(_ text: String, to width: Int) -> String {
    guard width > 0 else { return "" }
    if CharacterWidth.of(text) <= width { return text }
    var out = ""
    var used = 0
    for ch in text {
      let w = CharacterWidth.of(ch)
      if used + w > width - 1 { break }
      out.append(ch)
      used += w
    }
    return out + "…"
  }

  /// `text` truncated or padded with spaces to exactly `width` columns.
  public static func pad(_ text: String, to width: Int) -> String {
    let t = truncate(text, to: width)
    return t + String(repeating: " ", count: max(0, width - CharacterWidth.of(t)))
  }

  /// `text` right-aligned in `width` columns.
  public static func padLeft(_ text: String, to width: Int) -> String {
    let t = truncate(text, to: width)
    return String(repeating: " ", count: max(0, width - CharacterWidth.of(t))) + t
  }

  /// Word-wraps `text` to lines of at most `width` columns (long words are cut, after a
  /// '/' or ',' when they have one).
  public static func wrap(_ text: String, width: Int) -> [String] {
    guard width > 0 else { return [] }
    var lines: [String] = []
    for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
      var line = ""
      var used = 0
      for word in paragraph.split(separator: " ") {
        var w = String(word)
        var ww = CharacterWidth.of(w)
        if used > 0 && used + 1 + ww <= width {
          line += " " + w
          used += 1 + ww
          continue
        }
        if used > 0 {
          lines.append(line)
          line = ""
          used = 0
        }
        while ww > width {
          var head = ""
          var hw = 0
          var rest = Substring(w)
          while let ch = rest.first, hw + CharacterWidth.of(ch) <= width {
            head.append(ch)
            hw += CharacterWidth.of(ch)
            rest = rest.dropFirst()
          }
          if head.isEmpty { break }
          // A link or a path breaks after a '/' or ',' when one is far enough in, so that
          // its parts stay whole.
          if let cut = head.lastIndex(where: { $0 == "/" || $0 == "," }),
            head.distance(from: head.startIndex, to: cut) >= head.count / 3
          {
            let after = head.index(after: cut)
            rest = head[after...] + rest
            head = String(head[..<after])
          }
          lines.append(head)
          w = String(rest)
          ww = CharacterWidth.of(w)
        }
        line = w
        used = ww
      }
      lines.append(line)
    }
    return lines
  }
}
