import Narration
import PlaybackCoordination

/// Draws a ``FrontModel`` into a ``CellGrid`` of any size. Pure: the same model and size
/// always give the same grid, which is what the snapshot tests compare.
///
/// Layout (80×24 and up): a header row; the player pane with the participants pane beside
/// it; the notices pane below; the help line at the bottom. Narrower terminals put the
/// participants beside the notices; tiny ones get a compact list of lines.
public enum ScreenRenderer {
  public static func render(_ model: FrontModel, rows: Int, cols: Int) -> CellGrid {
    var grid = CellGrid(rows: rows, cols: cols)
    guard rows > 0, cols > 0 else { return grid }
    if cols < 40 || rows < 14 {
      drawCompact(model, into: &grid)
    } else {
      drawFull(model, into: &grid)
    }
    if model.showsHelp { drawHelp(page: model.helpPage, into: &grid) }
    if let prompt = model.prompt, prompt.layout != .input { drawPrompt(prompt, into: &grid) }
    return grid
  }

  // MARK: - Layout

  static func drawFull(_ model: FrontModel, into grid: inout CellGrid) {
    let rows = grid.rows
    let cols = grid.cols
    drawHeader(model, into: &grid)
    drawFooter(model, row: rows - 1, into: &grid)
    let bodyTop = 1
    let bodyHeight = rows - 2
    let tall = rows >= 30
    // On a short terminal the people and the notices keep three rows each (at 60×15 they
    // had one: a single person listed, every chat line cut); the player gives way, down
    // to seven rows.
    let playerHeight = max(min(7, bodyHeight), min(bodyHeight - 5, tall ? 14 : 10))
    let lowerTop = bodyTop + playerHeight
    let lowerHeight = bodyHeight - playerHeight
    if cols >= 72 {
      let partsWidth = cols >= 110 ? 40 : 32
      drawPlayer(
        model, row: bodyTop, col: 0, height: playerHeight, width: cols - partsWidth, into: &grid)
      drawParticipants(
        model, row: bodyTop, col: cols - partsWidth, height: playerHeight, width: partsWidth,
        into: &grid)
      if lowerHeight >= 3 {
        drawNotices(model, row: lowerTop, col: 0, height: lowerHeight, width: cols, into: &grid)
      }
    } else {
      drawPlayer(model, row: bodyTop, col: 0, height: playerHeight, width: cols, into: &grid)
      if lowerHeight >= 3 {
        let left = cols / 2
        drawParticipants(
          model, row: lowerTop, col: 0, height: lowerHeight, width: left, into: &grid)
        drawNotices(
          model, row: lowerTop, col: left, height: lowerHeight, width: cols - left, into: &grid)
      }
    }
  }

  /// A line-per-fact view for terminals too small for panes.
  static func drawCompact(_ model: FrontModel, into grid: inout CellGrid) {
    let cols = grid.cols
    drawHeader(model, into: &grid)
    var row = 1
    func line(_ text: String, _ style: CellStyle = .plain) {
      guard row < grid.rows - 1 else { return }
      grid.write(TextLayout.truncate(text, to: cols), row: row, col: 0, style: style)
      row += 1
    }
    if let episode = episodeShown(model) {
      line(
        "\(seriesShown(model)) · \(episode)",
        CellStyle(.title, bold: true))
      let state = stateLine(model)
      line(state.text, state.style)
      let clock =
        "\(TimeFormat.clock(model.displayPosition)) / \(TimeFormat.clock(model.displayDuration))"
      line("\(clock)  \(RateFormat.text(rateShown(model)))", CellStyle(.accent, bold: true))
      if row < grid.rows - 1 {
        drawProgress(model, row: row, col: 0, width: cols, into: &grid)
        row += 1
      }
      if let subtitle = model.player.subtitle, showsPicture(model) { line(subtitle) }
    } else {
      let state = stateLine(model)
      line(state.text, state.style)
    }
    for p in model.group.participants {
      let s = participantState(p, model: model)
      line("\(p.name)\(p.id == model.localParticipant ? " (you)" : ""): \(s.text)", s.style)
    }
    for (notice, visibility) in model.visibleNotices {
      line(notice.text, noticeStyle(notice, visibility))
    }
    if grid.rows >= 2 { drawFooter(model, row: grid.rows - 1, into: &grid) }
  }

}
