import Narration
import PlaybackCoordination

/// The simulated player: position, progress, what the group waits for, the picture.
extension ScreenRenderer {
  // MARK: - Player pane

  static func drawPlayer(
    _ model: FrontModel, row: Int, col: Int, height: Int, width: Int, into grid: inout CellGrid
  ) {
    grid.box(row: row, col: col, height: height, width: width, title: seriesShown(model))
    let inner = width - 4
    let left = col + 2
    var r = row + 1
    let bottom = row + height - 1
    let tall = height >= 14
    func skip() { if tall { r += 1 } }
    guard inner > 0, r < bottom else { return }

    guard let episode = episodeShown(model) else {
      drawNoSession(model, top: r, bottom: bottom, left: left, width: inner, into: &grid)
      return
    }
    // Episode line, with the auto-advance mark (or "alone") on the right.
    let auto =
      model.showsLocalPlayback
      ? "only you" : (model.local?.autoAdvance == true ? "↻ auto-advance" : "")
    let autoWidth = CharacterWidth.of(auto)
    grid.write(
      TextLayout.truncate(episode, to: inner - (autoWidth > 0 ? autoWidth + 2 : 0)), row: r,
      col: left,
      style: CellStyle(.title, bold: true))
    if autoWidth > 0, inner >= autoWidth + 10 {
      grid.write(auto, row: r, col: left + inner - autoWidth, style: CellStyle(.accent))
    }
    r += 1
    guard r < bottom else { return }
    // State line, with the rate on the right.
    let rate = RateFormat.text(rateShown(model))
    let rateWidth = CharacterWidth.of(rate)
    let state = stateLine(model, width: inner - rateWidth - 2)
    grid.write(
      TextLayout.truncate(state.text, to: inner - rateWidth - 2), row: r, col: left,
      style: state.style)
    grid.write(
      rate, row: r, col: left + inner - rateWidth,
      style: CellStyle(rateShown(model) == 1 ? .muted : .accent, bold: true))
    r += 1
    skip()
    // The clock.
    if r + BigDigits.height <= bottom {
      drawClock(model, top: r, left: left, width: inner, into: &grid)
      r += BigDigits.height
      skip()
    }
    guard r < bottom else { return }
    drawProgress(model, row: r, col: left, width: inner, into: &grid)
    r += 1
    skip()
    guard r < bottom else { return }
    if showsPicture(model), let subtitle = model.player.subtitle, !subtitle.isEmpty {
      let text = TextLayout.truncate(subtitle, to: inner)
      grid.write(
        text, row: r, col: left + (inner - CharacterWidth.of(text)) / 2,
        style: CellStyle(bold: true))
    }
    r += 1
    skip()
    // What the group watches next, on the pane's last line, while the queue holds any.
    let upNext = upNextLine(model.group.queue, width: inner)
    let patternEnd = upNext != nil ? bottom - 1 : bottom
    while r < patternEnd {
      drawPattern(model, row: r, col: left, width: inner, into: &grid)
      r += 1
    }
    if let upNext, r < bottom {
      grid.write(upNext, row: r, col: left, style: CellStyle(.muted))
    }
  }

  /// "up next: S1E3 · The Storm (bob) +2 · u", cut to `width`; nil for an empty queue.
  static func upNextLine(_ queue: [QueueEntry], width: Int) -> String? {
    guard let first = queue.first else { return nil }
    let item = first.info.map(EpisodeLabel.describe) ?? EpisodeLabel.code(first.item)
    let more = queue.count > 1 ? " +\(queue.count - 1)" : ""
    let tail = "\(more) · u"
    let head = TextLayout.truncate(
      "up next: \(item) (\(first.addedByName))", to: width - CharacterWidth.of(tail))
    return head + tail
  }

  static func drawNoSession(
    _ model: FrontModel, top: Int, bottom: Int, left: Int, width: Int, into grid: inout CellGrid
  ) {
    var lines: [(String, CellStyle)] = []
    let state = stateLine(model)
    // Whole, over as many lines as it takes: why the session ended is the point of it.
    for part in TextLayout.wrap(state.text, width: width) { lines.append((part, state.style)) }
    lines.append(("", .plain))
    // Out of the room for good (it closed, this person was removed, the relay was given
    // up on): nothing here reaches the others any more, the invite included.
    let gone = if case .disconnected = model.connection { true } else { false }
    switch model.membership {
    case _ where gone:
      lines.append(("You are no longer in room \(model.roomName).", .plain))
      lines.append(("Press q to quit, or e to play an episode on your own.", CellStyle(.muted)))
    case .invalidated:
      lines.append(("Press e to pick an episode, or q to quit.", CellStyle(.muted)))
    default:
      lines.append(("Nothing is being watched in room \(model.roomName).", .plain))
      lines.append(("Press e to pick an episode.", CellStyle(.muted)))
    }
    if let invite = model.invite, !gone {
      // Whole, over as many lines as it takes: people copy it, fingerprint and all. Where
      // the pane is short, the lines around it give way first (blank ones, then what the
      // state line already says), and a link that still does not fit says where it is whole.
      let link = TextLayout.wrap(invite, width: width).map { ($0, CellStyle(.accent, bold: true)) }
      var head = lines + [("", .plain), ("Others join with:", CellStyle(.muted))]
      let room = bottom - top
      while head.count + link.count > room,
        let spare = head.lastIndex(where: { $0.0.isEmpty }) ?? (head.count > 2 ? 0 : nil)
      {
        head.remove(at: spare)
      }
      lines = head + link
      if lines.count > room, room >= 2 {
        lines = Array(lines.prefix(room - 1)) + [("… i shows the whole invite", CellStyle(.muted))]
      }
    }
    let startRow = top + max(0, (bottom - top - lines.count) / 2)
    for (i, (text, style)) in lines.enumerated() where startRow + i < bottom {
      let t = TextLayout.truncate(text, to: width)
      grid.write(
        t, row: startRow + i, col: left + max(0, (width - CharacterWidth.of(t)) / 2), style: style)
    }
  }

  static func drawClock(
    _ model: FrontModel, top: Int, left: Int, width: Int, into grid: inout CellGrid
  ) {
    let position = TimeFormat.clock(model.displayPosition)
    let duration = TimeFormat.clock(model.displayDuration)
    let both = "\(position) / \(duration)"
    let bigStyle = CellStyle(.accent, bold: true)
    if BigDigits.width(of: both) <= width {
      let rows = BigDigits.render(both)
      let x = left + (width - BigDigits.width(of: both)) / 2
      let posWidth = BigDigits.width(of: position)
      for (i, line) in rows.enumerated() {
        grid.write(line, row: top + i, col: x, style: bigStyle)
        // The duration half is quieter than the position.
        grid.restyle(row: top + i, col: x + posWidth + 1, width: line.count - posWidth - 1) {
          $0 = CellStyle(.muted)
        }
      }
    } else if BigDigits.width(of: position) + 2 + CharacterWidth.of("/ \(duration)") <= width {
      let rows = BigDigits.render(position)
      let w = BigDigits.width(of: position) + 2 + CharacterWidth.of("/ \(duration)")
      let x = left + (width - w) / 2
      for (i, line) in rows.enumerated() { grid.write(line, row: top + i, col: x, style: bigStyle) }
      grid.write(
        "/ \(duration)", row: top + 2, col: x + BigDigits.width(of: position) + 2,
        style: CellStyle(.muted))
    } else {
      let text = TextLayout.truncate("\(position) / \(duration)", to: width)
      grid.write(
        text, row: top + 1, col: left + (width - CharacterWidth.of(text)) / 2, style: bigStyle)
    }
  }

  static func drawProgress(
    _ model: FrontModel, row: Int, col: Int, width: Int, into grid: inout CellGrid
  ) {
    guard width > 0 else { return }
    let duration = model.displayDuration
    let fraction = duration > 0 ? min(max(model.displayPosition / duration, 0), 1) : 0
    let filled = Int((Double(width) * fraction).rounded(.down))
    for x in 0..<width {
      if x < filled {
        grid.put("━", row: row, col: col + x, style: CellStyle(.progress, bold: true))
      } else if x == filled && fraction > 0 && fraction < 1 {
        grid.put("╸", row: row, col: col + x, style: CellStyle(.progress, bold: true))
      } else {
        grid.put("─", row: row, col: col + x, style: CellStyle(.muted))
      }
    }
  }

  static let bars: [ColorRole] = [
    .barWhite, .barYellow, .barCyan, .barGreen, .barMagenta, .barRed, .barBlue,
  ]

  /// The test-pattern strip: the player's frame text over colour bars.
  static func drawPattern(
    _ model: FrontModel, row: Int, col: Int, width: Int, into grid: inout CellGrid
  ) {
    guard width > 0 else { return }
    let showing = showsPicture(model) && model.player.item != nil
    guard showing, let frame = model.player.testPattern, !frame.isEmpty else {
      let text = TextLayout.truncate(
        model.isJoined ? "· loading picture ·" : "· not joined ·", to: width)
      grid.write(
        text, row: row, col: col + (width - CharacterWidth.of(text)) / 2,
        style: CellStyle(.muted, dim: true))
      return
    }
    var x = 0
    for ch in frame {
      guard x < width else { break }
      let bar = bars[min(bars.count - 1, x * bars.count / width)]
      x += grid.put(ch, row: row, col: col + x, style: CellStyle(bar), limit: col + width)
    }
  }
}
