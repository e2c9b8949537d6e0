import Narration
import PlaybackCoordination

/// The help pages and the prompts (confirmations, questions) drawn over the screen.
extension ScreenRenderer {
  // MARK: - Overlays

  /// The key list, its lines wrapped to the screen and cut into pages when it does not
  /// fit: nothing is cut off, however small the terminal.
  static func helpPages(rows: Int, cols: Int) -> (
    pages: [[(key: String, text: String)]], width: Int
  ) {
    let entries = KeyBinding.helpEntries
    let keyWidth = entries.map { CharacterWidth.of($0.key) }.max() ?? 0
    let textWidth = entries.map { CharacterWidth.of($0.text) }.max() ?? 0
    let width = min(cols, keyWidth + textWidth + 7)
    let textRoom = max(1, width - 4 - keyWidth - 1)
    // Box top and bottom, a blank line and the footer.
    let perPage = max(1, min(rows, entries.count + 4) - 4)
    var pages: [[(key: String, text: String)]] = [[]]
    for entry in entries {
      let lines = TextLayout.wrap(entry.text, width: textRoom)
      let block = lines.enumerated().map { (i, line) in (key: i == 0 ? entry.key : "", text: line) }
      // An entry stays on one page when it fits on one.
      if pages[pages.count - 1].count + block.count > perPage, !pages[pages.count - 1].isEmpty {
        pages.append([])
      }
      for line in block {
        if pages[pages.count - 1].count == perPage { pages.append([]) }
        pages[pages.count - 1].append(line)
      }
    }
    return (pages, width)
  }

  static func drawHelp(page wanted: Int, into grid: inout CellGrid) {
    let (pages, width) = helpPages(rows: grid.rows, cols: grid.cols)
    let page = min(max(wanted, 0), pages.count - 1)
    let keyWidth = KeyBinding.helpEntries.map { CharacterWidth.of($0.key) }.max() ?? 0
    let longest = pages.map(\.count).max() ?? 0
    let height = min(grid.rows, longest + 4)
    let row = max(0, (grid.rows - height) / 2)
    let col = max(0, (grid.cols - width) / 2)
    grid.fill(row: row, col: col, height: height, width: width)
    let title = pages.count > 1 ? "Keys \(page + 1)/\(pages.count)" : "Keys"
    grid.box(
      row: row, col: col, height: height, width: width, title: title, style: CellStyle(.accent))
    let inner = width - 4
    for (i, line) in pages[page].enumerated() where row + 1 + i < row + height - 2 {
      let r = row + 1 + i
      grid.write(
        TextLayout.pad(line.key, to: keyWidth), row: r, col: col + 2,
        style: CellStyle(.accent, bold: true))
      grid.write(line.text, row: r, col: col + 3 + keyWidth, maxWidth: inner - keyWidth - 1)
    }
    if height >= 4 {
      let footer =
        pages.count == 1
        ? "any key closes this help"
        : page < pages.count - 1 ? "space: more · any other key closes" : "↑: back · space closes"
      grid.write(
        footer, row: row + height - 2, col: col + 2, style: CellStyle(.muted), maxWidth: inner)
    }
  }

  enum PromptLine {
    case text(String, CellStyle)
    case buttons(ButtonLine)
  }

  static func drawPrompt(_ prompt: Prompt, into grid: inout CellGrid) {
    // 60 columns, or wider (up to 90, as the screen allows) for options that would be cut.
    let longest =
      prompt.options.map {
        CharacterWidth.of($0.label) + ($0.detail.map { CharacterWidth.of($0) + 1 } ?? 0) + 14
      }.max() ?? 0
    let wanted = min(90, max(60, longest))
    let width = min(grid.cols, max(24, min(wanted, grid.cols - 4)))
    let inner = width - 4
    guard inner > 0 else { return }
    var body: [PromptLine] = []
    if !prompt.message.isEmpty {
      for line in TextLayout.wrap(prompt.message, width: inner) { body.append(.text(line, .plain)) }
      body.append(.text("", .plain))
    }
    var stacked = false
    switch prompt.layout {
    case .buttons:
      let lines = buttonLines(prompt, width: inner)
      stacked = lines.count > 1
      for line in lines { body.append(.buttons(line)) }
    case .list:
      let maxRows = max(1, grid.rows - 4 - body.count - 2)
      let listRows = min(prompt.options.count, maxRows)
      let listStart = min(
        max(0, prompt.selection - listRows / 2), max(0, prompt.options.count - listRows))
      for i in listStart..<(listStart + listRows) {
        let o = prompt.options[i]
        let selected = i == prompt.selection
        let mark = selected ? "▸ " : "  "
        let now = o.isCurrent ? " (now)" : ""
        let detail = o.detail.map { " " + $0 } ?? ""
        let labelWidth =
          inner - CharacterWidth.of(mark) - CharacterWidth.of(detail) - CharacterWidth.of(now)
        let text = mark + TextLayout.pad(o.label, to: labelWidth) + now + detail
        body.append(.text(text, selected ? CellStyle(.accent, bold: true, reverse: true) : .plain))
      }
    case .input:
      break
    }
    body.append(.text("", .plain))
    body.append(.text(hint(for: prompt, stacked: stacked), CellStyle(.muted)))
    let height = min(grid.rows, body.count + 2)
    let row = max(0, (grid.rows - height) / 2)
    let col = max(0, (grid.cols - width) / 2)
    grid.fill(row: row, col: col, height: height, width: width)
    grid.box(
      row: row, col: col, height: height, width: width, title: prompt.title,
      style: CellStyle(.accent, bold: true))
    for (i, line) in body.enumerated() {
      let r = row + 1 + i
      guard r < row + height - 1 else { break }
      switch line {
      case .text(let text, let style):
        grid.write(text, row: r, col: col + 2, style: style, maxWidth: inner)
      case .buttons(let buttons):
        drawButtons(buttons, prompt: prompt, row: r, col: col + 2, into: &grid)
      }
    }
  }

  struct ButtonLine {
    var text: String
    /// (option index, column offset, width) of each button on the line.
    var spans: [(index: Int, offset: Int, width: Int)]
  }

  /// Buttons centred on one line when they fit, one per line otherwise.
  static func buttonLines(_ prompt: Prompt, width: Int) -> [ButtonLine] {
    let labels = prompt.options.enumerated().map { i, o in
      i == prompt.selection ? "[ \(o.label) ]" : "  \(o.label)  "
    }
    let total = labels.map { CharacterWidth.of($0) }.reduce(0, +) + 2 * max(0, labels.count - 1)
    if total <= width {
      var text = String(repeating: " ", count: (width - total) / 2)
      var spans: [(Int, Int, Int)] = []
      for (i, l) in labels.enumerated() {
        spans.append((i, CharacterWidth.of(text), CharacterWidth.of(l)))
        text += l + (i < labels.count - 1 ? "  " : "")
      }
      return [ButtonLine(text: text, spans: spans)]
    }
    return labels.enumerated().map { i, l in
      let t = TextLayout.truncate(l, to: width)
      return ButtonLine(text: t, spans: [(i, 0, CharacterWidth.of(t))])
    }
  }

  static func drawButtons(
    _ line: ButtonLine, prompt: Prompt, row: Int, col: Int, into grid: inout CellGrid
  ) {
    grid.write(line.text, row: row, col: col)
    for span in line.spans {
      let selected = span.index == prompt.selection
      grid.restyle(row: row, col: col + span.offset, width: span.width) {
        $0 = selected ? CellStyle(.accent, bold: true, reverse: true) : CellStyle(bold: true)
      }
    }
  }

  /// `stacked`: the buttons did not fit on one line and stand one under another.
  static func hint(for prompt: Prompt, stacked: Bool = false) -> String {
    switch prompt.layout {
    case .buttons:
      let keys = prompt.options.compactMap { $0.hotkey.map { String($0).lowercased() } }.joined(
        separator: "/")
      return "\(stacked ? "↑/↓" : "←/→") move · enter choose · \(keys) · esc cancel"
    case .list: return "↑/↓ move · enter choose · esc cancel"
    case .input: return "enter send · esc cancel"
    }
  }
}
