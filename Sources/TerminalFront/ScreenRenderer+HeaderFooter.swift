import Narration
import PlaybackCoordination

/// The room's name and link state on top; the keys that do something now at the bottom.
extension ScreenRenderer {
  // MARK: - Header and footer

  static func drawHeader(_ model: FrontModel, into grid: inout CellGrid) {
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

  static func drawFooter(_ model: FrontModel, row: Int, into grid: inout CellGrid) {
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
  static func helpLineEntries(_ model: FrontModel) -> [KeyBinding] {
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
}
