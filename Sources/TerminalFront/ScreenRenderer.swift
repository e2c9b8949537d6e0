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

  private static func drawFull(_ model: FrontModel, into grid: inout CellGrid) {
    let rows = grid.rows
    let cols = grid.cols
    drawHeader(model, into: &grid)
    drawFooter(model, row: rows - 1, into: &grid)
    let bodyTop = 1
    let bodyHeight = rows - 2
    let tall = rows >= 30
    let playerHeight = min(bodyHeight, tall ? 14 : 10)
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
  private static func drawCompact(_ model: FrontModel, into grid: inout CellGrid) {
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

  // MARK: - Header and footer

  private static func drawHeader(_ model: FrontModel, into grid: inout CellGrid) {
    let bar = CellStyle(.title, reverse: true)
    grid.fill(row: 0, col: 0, height: 1, width: grid.cols, style: bar)
    let right: String
    switch model.connection {
    case .connected: right = "● connected"
    case .reconnecting: right = "⟳ reconnecting…"
    case .disconnected: right = "✕ disconnected"
    }
    let who = model.local.map { "\($0.name) · " } ?? ""
    let rightText = " \(who)\(right) "
    let rightWidth = CharacterWidth.of(rightText)
    let control = model.group.control
    var marks = ""
    if model.messagesSealed { marks += " 🔒" }
    if control.locked { marks += " · locked" }
    if control.playback == .owner, let owner = model.group.owner {
      marks +=
        " · \(owner.id == model.localParticipant ? "you control" : "\(owner.name) controls") playback"
    }
    let leftText = " Cowatch · room \(model.roomName)\(marks)"
    let room = max(0, grid.cols - rightWidth - 1)
    grid.write(
      TextLayout.truncate(leftText, to: room), row: 0, col: 0,
      style: CellStyle(.title, bold: true, reverse: true))
    if grid.cols >= rightWidth + 8 {
      grid.write(rightText, row: 0, col: grid.cols - rightWidth, style: bar)
    }
  }

  private static func drawFooter(_ model: FrontModel, row: Int, into grid: inout CellGrid) {
    guard row > 0 else { return }
    if let input = model.inputLine {
      let label = input.label
      let style = CellStyle(.chat, bold: true)
      grid.write(label, row: row, col: 0, style: style)
      let start = CharacterWidth.of(label)
      var head = String(input.text.prefix(input.cursor))
      let tail = input.text.dropFirst(input.cursor)
      // The cursor (a reversed cell, on the character it is before) stays in view: on a
      // long line, what comes before it is cut from the left.
      let under = tail.first ?? " "
      let room = grid.cols - start - CharacterWidth.of(String(under))
      while CharacterWidth.of(head) > room, !head.isEmpty { head.removeFirst() }
      var end = grid.write(head, row: row, col: start)
      end = grid.write(String(under), row: row, col: end, style: CellStyle(reverse: true))
      end = grid.write(tail.dropFirst(), row: row, col: end, maxWidth: grid.cols - end)
      let hint = "  " + input.hint
      if end + CharacterWidth.of(hint) <= grid.cols {
        grid.write(
          hint, row: row, col: grid.cols - CharacterWidth.of(hint), style: CellStyle(.muted))
      }
      return
    }
    var entries = helpLineEntries(model)
    // Space says what it will do now.
    let moving =
      model.showsLocalPlayback
      ? model.player.activity == .playing : (model.session.map { $0.intendedRate > 0 } ?? false)
    if moving, let i = entries.firstIndex(where: { $0.command == .playPause }) {
      entries[i].short = "pause"
    }
    if !model.localSuspensions.isEmpty,
      let i = entries.firstIndex(where: { $0.command == .suspendResume })
    {
      entries[i].short = "come back"
    }
    func width(_ list: [KeyBinding]) -> Int {
      list.map { CharacterWidth.of($0.keyLabel) + 1 + CharacterWidth.of($0.short) }.reduce(0, +) + 2
        * (list.count - 1)
    }
    // Drop the least needed keys until the line fits; `?` (help) and `q` stay.
    for dropped in [
      FrontCommand.slower, .back60, .autoAdvance, .suspendResume, .next, .back10, .chat, .episodes,
    ] {
      if 1 + width(entries) <= grid.cols { break }
      entries.removeAll { $0.command == dropped }
    }
    var col = 1
    for b in entries {
      col = grid.write(b.keyLabel, row: row, col: col, style: CellStyle(.accent, bold: true))
      col = grid.write(" " + b.short, row: row, col: col, style: CellStyle(.muted)) + 2
    }
  }

  /// The keys worth showing now: playback keys only while joined.
  private static func helpLineEntries(_ model: FrontModel) -> [KeyBinding] {
    let commands: Set<FrontCommand>
    if case .disconnected = model.connection {
      // Gone for good: nothing reaches the room any more.
      return KeyBinding.all.filter { [.help, .quit].contains($0.command) }
    }
    switch model.membership {
    case .joined where !model.localSuspensions.isEmpty:
      // Stepped away: the arrows move this player alone, s comes back; the group's keys
      // (space, speed, next) do nothing here, so they are not offered.
      let away: Set<FrontCommand> = [
        .back10, .back60, .suspendResume, .episodes, .chat, .autoAdvance, .help, .quit,
      ]
      return KeyBinding.all.filter { $0.inHelpLine && away.contains($0.command) }.map {
        var binding = $0
        if binding.command == .suspendResume { binding.short = "come back" }
        return binding
      }
    case .joined where !model.controlsPlayback:
      // The owner keeps playback: the others' playback keys would only be refused.
      let playback: Set<FrontCommand> = [.playPause, .back10, .back60, .slower, .next]
      return KeyBinding.all.filter { $0.inHelpLine && !playback.contains($0.command) }
    case .joined:
      return KeyBinding.all.filter(\.inHelpLine)
    case .waiting: commands = [.join, .episodes, .chat, .autoAdvance, .help, .quit]
    case .noSession, .invalidated: commands = [.episodes, .chat, .autoAdvance, .help, .quit]
    }
    if model.showsLocalPlayback {
      let local: Set<FrontCommand> = [.playPause, .back10, .back60, .slower]
      return KeyBinding.all.filter {
        $0.inHelpLine && (local.contains($0.command) || commands.contains($0.command))
      }
    }
    return KeyBinding.all.filter { commands.contains($0.command) }
  }

  // MARK: - Player pane

  private static func drawPlayer(
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
    while r < bottom {
      drawPattern(model, row: r, col: left, width: inner, into: &grid)
      r += 1
    }
  }

  private static func drawNoSession(
    _ model: FrontModel, top: Int, bottom: Int, left: Int, width: Int, into grid: inout CellGrid
  ) {
    var lines: [(String, CellStyle)] = []
    let state = stateLine(model)
    // Whole, over as many lines as it takes: why the session ended is the point of it.
    for part in TextLayout.wrap(state.text, width: width) { lines.append((part, state.style)) }
    lines.append(("", .plain))
    switch model.membership {
    case .invalidated:
      lines.append(("Press e to pick an episode, or q to quit.", CellStyle(.muted)))
    default:
      lines.append(("Nothing is being watched in room \(model.roomName).", .plain))
      lines.append(("Press e to pick an episode.", CellStyle(.muted)))
    }
    if let invite = model.invite {
      lines.append(("", .plain))
      lines.append(("Others join with:", CellStyle(.muted)))
      // Whole, over as many lines as it takes: people copy it, fingerprint and all.
      for part in TextLayout.wrap(invite, width: width) {
        lines.append((part, CellStyle(.accent, bold: true)))
      }
    }
    let startRow = top + max(0, (bottom - top - lines.count) / 2)
    for (i, (text, style)) in lines.enumerated() where startRow + i < bottom {
      let t = TextLayout.truncate(text, to: width)
      grid.write(
        t, row: startRow + i, col: left + max(0, (width - CharacterWidth.of(t)) / 2), style: style)
    }
  }

  private static func drawClock(
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

  private static func drawProgress(
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

  private static let bars: [ColorRole] = [
    .barWhite, .barYellow, .barCyan, .barGreen, .barMagenta, .barRed, .barBlue,
  ]

  /// The test-pattern strip: the player's frame text over colour bars.
  private static func drawPattern(
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

  // MARK: - Participants pane

  private static func drawParticipants(
    _ model: FrontModel, row: Int, col: Int, height: Int, width: Int, into grid: inout CellGrid
  ) {
    // In order of arrival by their numbers (p1, p2, …), which a reconnection or a relay's
    // restart never changes.
    let people = model.group.participants.sorted { arrival($0.id) < arrival($1.id) }
    grid.box(row: row, col: col, height: height, width: width, title: "People (\(people.count))")
    let inner = width - 4
    let left = col + 2
    let top = row + 1
    let bottom = row + height - 1
    guard inner > 4, top < bottom else { return }
    let waits = waitLines(model, width: inner)
    let waitRows = min(waits.count, max(0, bottom - top - 1))
    let listBottom = bottom - waitRows
    let space = listBottom - top
    // Two lines each in narrow panes, unless that would hide people.
    let oneLine = inner >= 36 || people.count * 2 > space
    // On one line, the reason someone stepped away goes on a line of its own below them,
    // when every person still fits.
    let details = people.map { participantState($0, model: model).detail }
    let withDetails = oneLine && people.count + details.compactMap { $0 }.count <= space
    func rows(_ i: Int) -> Int { oneLine ? (withDetails && details[i] != nil ? 2 : 1) : 2 }
    // Who is listed: everyone when they fit; else as many as fit in order, with a line
    // saying how many more (when there are two lines or more: the title counts them too),
    // and this person always among them.
    var shown = Array(people.indices)
    if shown.reduce(0, { $0 + rows($1) }) > space {
      let room = space >= 2 ? space - 1 : space
      shown = []
      var used = 0
      for i in people.indices {
        guard used + rows(i) <= room else { break }
        shown.append(i)
        used += rows(i)
      }
      if let you = people.firstIndex(where: { $0.id == model.localParticipant }),
        !shown.contains(you), rows(you) <= room
      {
        while let last = shown.last, used + rows(you) > room {
          shown.removeLast()
          used -= rows(last)
        }
        shown.append(you)
        shown.sort()
      }
    }
    let columns = oneLine ? Columns(people, model: model, width: inner) : nil
    var r = top
    for i in shown {
      let p = people[i]
      drawParticipant(
        p, model: model, row: r, col: left, width: inner, columns: columns, into: &grid)
      if oneLine, rows(i) == 2, let detail = details[i] {
        grid.write(
          TextLayout.truncate("— \(detail)", to: inner - 2), row: r + 1, col: left + 2,
          style: participantState(p, model: model).style)
      }
      r += rows(i)
    }
    if shown.count < people.count, r < listBottom {
      grid.write("+\(people.count - shown.count) more", row: r, col: left, style: CellStyle(.muted))
    }
    for (i, w) in waits.prefix(waitRows).enumerated() {
      grid.write(
        w, row: bottom - waitRows + i, col: left, style: CellStyle(.waiting), maxWidth: inner)
    }
  }

  /// The marks after a name: from Syncplay (⇄), the owner (★), this person ("(you)"), in
  /// the order they are given up when the name needs the room.
  private static func nameMarks(_ p: Participant, model: FrontModel) -> [String] {
    [
      OriginText.mark(p.origin), p.id == model.group.control.owner ? " ★" : "",
      p.id == model.localParticipant ? " (you)" : "",
    ].filter { !$0.isEmpty }
  }

  /// A name and its marks in `room` columns. Your own name stays whole as long as it can:
  /// the marks go first ("(you)", then ★). Someone else's is cut to keep the marks while
  /// three columns of it remain.
  static func nameText(_ name: String, marks: [String], room: Int, isYou: Bool) -> String {
    guard room > 0 else { return "" }
    var marks = marks
    if isYou {
      while CharacterWidth.of(name + marks.joined()) > room, !marks.isEmpty { marks.removeLast() }
      return TextLayout.truncate(name + marks.joined(), to: room)
    }
    while !marks.isEmpty {
      let nameRoom = room - CharacterWidth.of(marks.joined())
      if CharacterWidth.of(name) <= nameRoom || nameRoom >= 3 {
        return TextLayout.truncate(name, to: nameRoom) + marks.joined()
      }
      marks.removeLast()
    }
    return TextLayout.truncate(name, to: room)
  }

  /// The columns of the one-line people list, shared by every row so that they line up:
  /// ● name (you)     state          +12ms ↻
  /// The name column takes what the others leave. When names need more, the state column
  /// shrinks to its longest word; for your own name the offsets go too, and only then is
  /// it cut (another's long name is cut rather than hide everyone's offset).
  private struct Columns {
    var name: Int
    var state: Int
    var offset: Int

    init(_ people: [Participant], model: FrontModel, width: Int) {
      // The dot and its space before, a space and ↻ after.
      let available = width - 4
      func needed(_ p: Participant) -> Int {
        CharacterWidth.of(p.name + nameMarks(p, model: model).joined()) + 1
      }
      let nameNeeded = people.map(needed).max() ?? 0
      let yoursNeeded =
        people.first { $0.id == model.localParticipant }.map(needed) ?? 0
      let longestState =
        people.map { CharacterWidth.of(participantState($0, model: model).label) }.max() ?? 0
      let longestOffset = people.map { CharacterWidth.of(offsetText($0, model: model)) }.max() ?? 0
      var state = width >= 36 ? 13 : 12
      var offset = width >= 36 ? 7 : 0
      func nameRoom() -> Int { available - state - offset }
      if nameRoom() < nameNeeded {
        state = max(min(state, longestState + 1), state - (nameNeeded - nameRoom()))
      }
      if nameRoom() < yoursNeeded, offset > 0 {
        offset =
          longestOffset > 0
          ? min(offset, max(longestOffset, offset - (yoursNeeded - nameRoom()))) : 0
        if nameRoom() < yoursNeeded { offset = 0 }
      }
      self.name = max(0, nameRoom())
      self.state = state
      self.offset = offset
    }
  }

  private static func drawParticipant(
    _ p: Participant, model: FrontModel, row: Int, col: Int, width: Int, columns: Columns?,
    into grid: inout CellGrid
  ) {
    let isYou = p.id == model.localParticipant
    let state = participantState(p, model: model)
    let offset = offsetText(p, model: model)
    let auto = p.autoAdvance ? "↻" : ""
    let nameStyle = CellStyle(isYou ? .you : .normal, bold: isYou)
    let marks = nameMarks(p, model: model)
    let fullName = p.name + marks.joined()
    grid.put("●", row: row, col: col, style: CellStyle(state.style.role))
    if let columns {
      // Your own name takes from your own state's cell before it is cut.
      var nameWidth = columns.name
      if isYou, CharacterWidth.of(fullName) + 1 > nameWidth {
        nameWidth = min(CharacterWidth.of(fullName) + 1, columns.name + columns.state)
      }
      let stateWidth = columns.name + columns.state - nameWidth
      let name = nameText(p.name, marks: marks, room: nameWidth - 1, isYou: isYou)
      grid.write(name, row: row, col: col + 2, style: nameStyle, maxWidth: nameWidth)
      if stateWidth > 1 {
        grid.write(
          TextLayout.truncate(state.label, to: stateWidth - 1), row: row,
          col: col + 2 + nameWidth, style: state.style)
      }
      if columns.offset > 0 {
        grid.write(
          TextLayout.padLeft(offset, to: columns.offset), row: row,
          col: col + width - 2 - columns.offset, style: CellStyle(.muted))
      }
      grid.write(auto, row: row, col: col + width - 1, style: CellStyle(.accent))
    } else {
      // ● name (you)       +12ms ↻
      //   state
      // Your own name takes the offset's room before it is cut.
      var shownOffset = offset
      if isYou, CharacterWidth.of(fullName) > width - 5 - CharacterWidth.of(offset) {
        shownOffset = ""
      }
      let right = shownOffset + " " + (auto.isEmpty ? " " : auto)
      let rightWidth = CharacterWidth.of(right)
      let room = width - 3 - rightWidth
      let name = nameText(p.name, marks: marks, room: room, isYou: isYou)
      grid.write(name, row: row, col: col + 2, style: nameStyle, maxWidth: room)
      grid.write(shownOffset, row: row, col: col + width - rightWidth, style: CellStyle(.muted))
      grid.write(auto, row: row, col: col + width - 1, style: CellStyle(.accent))
      grid.write(
        TextLayout.truncate(state.text, to: width - 2), row: row + 1, col: col + 2,
        style: state.style)
    }
  }

  /// "⏳ bob: loading · 52s" for each wait of the group.
  private static func waitLines(_ model: FrontModel, width: Int) -> [String] {
    guard let session = model.session else { return [] }
    return session.waits.map { wait in
      let name =
        wait.participant == model.localParticipant
        ? "you" : (model.group.participant(wait.participant)?.name ?? wait.participant.rawValue)
      let left = secondsLeft(until: wait.deadline, now: model.now)
      return WaitText.line(
        name: name, cause: wait.cause, secondsLeft: left, width: width,
        you: wait.participant == model.localParticipant)
    }
  }

  static func secondsLeft(until deadline: GroupInstant, now: GroupInstant) -> Int {
    let s = deadline.seconds(since: now)
    return s <= 0 ? 0 : Int(s.rounded(.up))
  }

  /// A participant id's number (`p12` → 12), for a stable order; unnumbered ids last.
  static func arrival(_ id: ParticipantID) -> (UInt64, String) {
    (UInt64(id.rawValue.dropFirst()) ?? .max, id.rawValue)
  }

  private static func offsetText(_ p: Participant, model: FrontModel) -> String {
    // Out of touch with the relay, nobody's offset is known.
    guard model.connection == .connected, p.isJoined, let offset = p.playerOffset else {
      return ""
    }
    let ms = Int((offset * 1000).rounded())
    if abs(ms) >= 10_000 { return (ms > 0 ? "+" : "−") + "\(abs(ms) / 1000)s" }
    return (ms > 0 ? "+" : ms < 0 ? "−" : "±") + "\(abs(ms))ms"
  }

  /// A participant's state in words (``ParticipantStatus``, shared with headless mode),
  /// with a style whose role colours the dot.
  static func participantState(_ p: Participant, model: FrontModel) -> (
    text: String, label: String, detail: String?, style: CellStyle
  ) {
    let alone = p.id == model.localParticipant && model.showsLocalPlayback
    if model.connection != .connected {
      // What the others do is not known while this front is out of touch: say so rather
      // than show what was last heard as if it were now.
      guard p.id == model.localParticipant else {
        return ("unknown", "unknown", nil, CellStyle(.muted))
      }
      // Given up (or left): nothing is being retried any more.
      if case .disconnected = model.connection {
        return ("disconnected", "disconnected", nil, CellStyle(.error))
      }
      return ("reconnecting", "reconnecting", nil, CellStyle(.error))
    }
    let status = ParticipantStatus(p, in: model.group, watchingAlone: alone)
    let role: ColorRole =
      switch status {
      case .reconnecting: .error
      case .inTheRoom, .notJoined, .watchingAlone, .finished: .muted
      case .steppedAway: .warning
      case .loading, .stalled: .waiting
      case .watching, .ready: .playing
      case .paused: .paused
      }
    let isYou = p.id == model.localParticipant
    return (status.text(you: isYou), status.label, status.detail(you: isYou), CellStyle(role))
  }

  // MARK: - State line

  /// What the group (and this terminal) is doing, in one line.
  /// `width`: the columns the line gets, when known (parts that matter less go first).
  static func stateLine(_ model: FrontModel, width: Int? = nil) -> (text: String, style: CellStyle)
  {
    switch model.connection {
    case .reconnecting:
      var text = "⟳ reconnecting to the relay…"
      if let since = model.reconnectingSince {
        // Short enough for a narrow pane: "⟳ reconnecting… 0:23 (gives up at 1:00)".
        text = "⟳ reconnecting… \(TimeFormat.clock(max(0, model.now.seconds(since: since))))"
        if let limit = model.reconnectGiveUpAfter {
          text += " (gives up at \(TimeFormat.clock(limit)))"
        }
      }
      return (text, CellStyle(.warning, bold: true))
    case .disconnected(let reason):
      return ("✕ disconnected\(reason.map { ": \($0)" } ?? "")", CellStyle(.error, bold: true))
    case .connected: break
    }
    if model.showsLocalPlayback { return localStateLine(model) }
    switch model.membership {
    case .noSession: return ("nothing playing", CellStyle(.muted, bold: true))
    case .invalidated(let reason):
      return ("session ended: \(reason)", CellStyle(.warning, bold: true))
    case .waiting:
      let who =
        (model.sessionStartedBy ?? model.session?.startedBy).map { "\($0) started watching" }
        ?? "a watch session is on"
      return ("\(who) · j to join", CellStyle(.accent, bold: true))
    case .joined: break
    }
    guard let session = model.session else {
      return ("nothing playing", CellStyle(.muted, bold: true))
    }
    if let reason = model.localSuspensions.last {
      // How to come back matters more than the reason, which the people pane shows too.
      let full = "you \(SuspensionText.steppedAway(reason, you: true)) · s to come back"
      let fits = width.map { CharacterWidth.of(full) <= $0 } ?? true
      return (fits ? full : "you stepped away · s to come back", CellStyle(.warning, bold: true))
    }
    switch session.status {
    case .finished:
      if let next = session.series.item(after: session.item.id) {
        // Only to whoever may switch; under owner-only control the others read who decides.
        let hint =
          model.controlsPlayback
          ? "n for \(EpisodeLabel.code(next.id))"
          : "\(model.group.owner?.name ?? "the owner") chooses what's next"
        return ("■ finished — \(hint)", CellStyle(.muted, bold: true))
      }
      return ("■ finished", CellStyle(.muted, bold: true))
    case .waiting:
      let names = session.waits.map { w in
        w.participant == model.localParticipant
          ? "you" : (model.group.participant(w.participant)?.name ?? "?")
      }
      let longest = session.waits.map { secondsLeft(until: $0.deadline, now: model.now) }.max() ?? 0
      return (
        "⏳ waiting for \(names.joined(separator: ", ")) · \(longest) s left",
        CellStyle(.waiting, bold: true)
      )
    case .paused:
      return (
        "⏸ paused\(model.pausedByName.map { " by \($0)" } ?? "")", CellStyle(.paused, bold: true)
      )
    case .playing:
      // A start from a stop counts down; a seek or rate change while playing goes on
      // playing until its switch instant.
      if session.timeline.groupTime > model.now, session.timeline.priorRate == 0 {
        let s = session.timeline.groupTime.seconds(since: model.now)
        let tenths = Int((s * 10).rounded(.up))
        return ("▶ starting in \(tenths / 10).\(tenths % 10)s", CellStyle(.playing, bold: true))
      }
      return ("▶ playing", CellStyle(.playing, bold: true))
    }
  }

  /// What the local player does while this person watches alone.
  private static func localStateLine(_ model: FrontModel) -> (text: String, style: CellStyle) {
    switch model.player.activity {
    case .playing: return ("▶ watching alone", CellStyle(.playing, bold: true))
    case .paused: return ("⏸ paused · watching alone", CellStyle(.paused, bold: true))
    case .loading: return ("… loading · watching alone", CellStyle(.waiting, bold: true))
    case .stalled: return ("⏳ buffering · watching alone", CellStyle(.waiting, bold: true))
    case .ended: return ("■ finished · watching alone", CellStyle(.muted, bold: true))
    case .idle: return ("watching alone", CellStyle(.muted, bold: true))
    }
  }

  /// The episode the player pane is about, or nil when nothing is being watched.
  private static func episodeShown(_ model: FrontModel) -> String? {
    if model.showsLocalPlayback, let id = model.player.item {
      let title = model.player.itemTitle ?? ""
      guard let code = EpisodeLabel.episodeCode(id) else {
        return title.isEmpty ? id.rawValue : title
      }
      return title.isEmpty ? code : "\(code) · \(title)"
    }
    return model.session.map { EpisodeLabel.describe($0.item) }
  }

  private static func seriesShown(_ model: FrontModel) -> String {
    if !model.showsLocalPlayback, let session = model.session { return session.series.title }
    return model.player.seriesTitle ?? "Cowatch"
  }

  /// The picture and subtitles are shown when the player plays for this person.
  private static func showsPicture(_ model: FrontModel) -> Bool {
    model.isJoined || model.showsLocalPlayback
  }

  private static func rateShown(_ model: FrontModel) -> Double {
    if model.showsLocalPlayback { return model.player.rate > 0 ? model.player.rate : 1 }
    guard let session = model.session else { return 1 }
    // While paused, the speed play will resume at (the group's chosen rate).
    return session.intendedRate > 0 ? session.intendedRate : session.playbackRate
  }

  // MARK: - Notices pane

  private static func drawNotices(
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
    // Scrolled back: the whole history from there, faded or not; else what is fresh.
    let visible: [(notice: Notice, visibility: NoticeVisibility)] =
      scrolled
      ? model.history.dropFirst(model.scrollback).map { ($0, .fresh) } : model.visibleNotices
    if visible.isEmpty, r < bottom {
      grid.write(
        "Nothing yet. Press c to chat.", row: r, col: col + 2, style: CellStyle(.muted, dim: true),
        maxWidth: inner)
      return
    }
    for (notice, visibility) in visible {
      guard r < bottom else { break }
      // When each line was written, for chat (and everything scrolled back to): "3m".
      let age =
        notice.kind == .chat || scrolled ? ageText(since: notice.at, now: model.now) : ""
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

  private static func noticeStyle(_ notice: Notice, _ visibility: NoticeVisibility) -> CellStyle {
    let role: ColorRole =
      switch notice.kind {
      case .event: .normal
      case .chat: .chat
      case .error: .warning
      }
    return CellStyle(role, dim: visibility == .fading)
  }

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

  private static func drawHelp(page wanted: Int, into grid: inout CellGrid) {
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

  private enum PromptLine {
    case text(String, CellStyle)
    case buttons(ButtonLine)
  }

  private static func drawPrompt(_ prompt: Prompt, into grid: inout CellGrid) {
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

  private struct ButtonLine {
    var text: String
    /// (option index, column offset, width) of each button on the line.
    var spans: [(index: Int, offset: Int, width: Int)]
  }

  /// Buttons centred on one line when they fit, one per line otherwise.
  private static func buttonLines(_ prompt: Prompt, width: Int) -> [ButtonLine] {
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

  private static func drawButtons(
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
  private static func hint(for prompt: Prompt, stacked: Bool = false) -> String {
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
