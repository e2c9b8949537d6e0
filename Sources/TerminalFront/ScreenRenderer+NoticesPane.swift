import Narration
import PlaybackCoordination

/// What happened, newest first, with its age and weight.
extension ScreenRenderer {
  // MARK: - Notices pane

  static func drawNotices(
    _ model: FrontModel, row: Int, col: Int, height: Int, width: Int, into grid: inout CellGrid
  ) {
    let scrolled = model.scrollback > 0
    grid.box(
      row: row, col: col, height: height, width: width,
      title: scrolled ? "Notices · earlier (PgDn: newer)" : "Notices")
    let inner = width - 4
    var r = row + 1
    let bottom = row + height - 1
    guard inner > 0 else { return }
    // Scrolled back: the whole history from there; else all of it, the older dimmed.
    let visible: [(notice: NoticeLine, visibility: NoticeVisibility)] =
      scrolled
      ? model.history.dropFirst(model.scrollback).map { ($0, .fresh) } : model.recentNotices
    if visible.isEmpty, r < bottom {
      grid.write(
        "Nothing yet. Press c to chat.", row: r, col: col + 2, style: CellStyle(.muted, dim: true),
        maxWidth: inner)
      return
    }
    var shown = 0
    defer {
      // More than the pane holds: say where the rest is, on its lower border.
      if shown < visible.count, !scrolled, width > 20 {
        let hint = " PgUp: older "
        grid.write(
          hint, row: bottom, col: col + width - 2 - CharacterWidth.of(hint),
          style: CellStyle(.muted, dim: true))
      }
    }
    for (notice, visibility) in visible {
      guard r < bottom else { break }
      shown += 1
      // When each line was written, for chat (and everything scrolled back to): "3m".
      let age =
        notice.kind == .chat || scrolled || visibility != .fresh
        ? ageText(since: notice.at, now: model.now) : ""
      let ageWidth = age.isEmpty ? 0 : CharacterWidth.of(age) + 1
      let style = noticeStyle(notice, visibility)
      // Every notice is wrapped over as many lines as it takes, to be read whole in a
      // narrow pane too (PgUp scrolls by notices, so each one is read from its start).
      let lines = TextLayout.wrap(notice.text, width: inner - ageWidth)
      for (index, text) in lines.enumerated() {
        guard r < bottom else { break }
        // The pane ends inside the line: say that there is more.
        let cut = r == bottom - 1 && index < lines.count - 1
        grid.write(
          cut ? TextLayout.truncate(text + " …", to: inner - ageWidth) : text, row: r,
          col: col + 2, style: style)
        if index == 0, !age.isEmpty {
          grid.write(
            age, row: r, col: col + 2 + inner - CharacterWidth.of(age),
            style: CellStyle(.muted, dim: true))
        }
        r += 1
      }
    }
  }

  /// "now", "5m", "2h": how long ago, to the minute (nothing under one).
  static func ageText(since at: GroupInstant, now: GroupInstant) -> String {
    let seconds = now.seconds(since: at)
    guard seconds >= 60 else { return "" }
    let minutes = Int(seconds / 60)
    return minutes < 60 ? "\(minutes)m" : "\(minutes / 60)h"
  }

  static func noticeStyle(_ notice: NoticeLine, _ visibility: NoticeVisibility) -> CellStyle {
    let role: ColorRole =
      switch notice.kind {
      case .event: .normal
      case .chat: .chat
      case .error: .warning
      }
    switch notice.emphasis {
    case .none: return CellStyle(role, dim: visibility == .fading)
    // Names this person: stands out until it fades.
    case .mention: return CellStyle(.accent, bold: true, reverse: visibility == .fresh)
    case .reaction: return CellStyle(.accent, dim: visibility == .fading)
    case .earlier: return CellStyle(.muted, dim: true)
    }
  }
}
