import Narration
import PlaybackCoordination

/// Who is watching: names with their marks, states and offsets, fitted to the width.
extension ScreenRenderer {
  // MARK: - Participants pane

  static func drawParticipants(
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
    // What the group waits for, then who offered to carry the room but cannot (the relay
    // could not reach their machine, or could not feed it the room), at the foot of the
    // pane.
    let waitCount = waitLines(model, width: inner).count
    func cannotCarry(_ ids: [ParticipantID], _ why: String) -> [String] {
      ids.flatMap { id -> [String] in
        guard let person = model.group.participants.first(where: { $0.id == id }) else {
          return []
        }
        return TextLayout.wrap("\(person.name) can't carry the room: \(why)", width: inner)
      }
    }
    let waits =
      waitLines(model, width: inner) + cannotCarry(model.unreachableCarriers, "not reachable")
      + cannotCarry(
        model.passedOverCarriers, "its connection dropped each time it was sent the room")
    let waitRows = min(waits.count, max(0, bottom - top - 1))
    let listBottom = bottom - waitRows
    let space = listBottom - top
    // Two lines each in narrow panes, unless that would hide people.
    let oneLine = inner >= 36 || people.count * 2 > space
    // On one line, the reason someone stepped away, and "next host", go on a line of their
    // own below them, when every person still fits: beside a name they cut its state.
    let nextHost = model.successors.first
    let details = people.map { p in
      let parts = [p.id == nextHost ? "next host" : nil, participantState(p, model: model).detail]
        .compactMap { $0 }
      return parts.isEmpty ? nil : parts.joined(separator: " · ")
    }
    let withDetails = oneLine && people.count + details.compactMap { $0 }.count <= space
    // Otherwise "(next host)" stays a mark after the name.
    let marks = MarkOptions(nextHost: !withDetails)
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
    let columns = oneLine ? Columns(people, model: model, width: inner, marks: marks) : nil
    var r = top
    for i in shown {
      let p = people[i]
      drawParticipant(
        p, model: model, row: r, col: left, width: inner, columns: columns, marks: marks,
        into: &grid)
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
        w, row: bottom - waitRows + i, col: left,
        style: CellStyle(i < waitCount ? .waiting : .muted), maxWidth: inner)
    }
  }

  /// Which marks go after names rather than on a line of their own.
  struct MarkOptions {
    var nextHost = true
  }

  /// The marks after a name: from Syncplay (⇄), the owner (★), this person ("(you)"), in
  /// the order they are given up when the name needs the room.
  static func nameMarks(
    _ p: Participant, model: FrontModel, options: MarkOptions = MarkOptions()
  ) -> [String] {
    [
      OriginText.mark(p.origin), p.id == model.group.control.owner ? " ★" : "",
      // Said ready: shown while it matters, when the group is not playing.
      p.readyToWatch && p.isJoined && model.session?.status != .playing ? " ✓" : "",
      p.id == model.localParticipant ? " (you)" : "",
      // A player that runs ahead or behind on purpose (Bluetooth sound): not sync error.
      p.personalOffset != 0 ? " ↦\(OffsetText.short(p.personalOffset))" : "",
      options.nextHost && p.id == model.successors.first ? " (next host)" : "",
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
  struct Columns {
    var name: Int
    var state: Int
    var offset: Int

    init(_ people: [Participant], model: FrontModel, width: Int, marks: MarkOptions) {
      // The dot and its space before, a space and ↻ after.
      let available = width - 4
      func needed(_ p: Participant) -> Int {
        CharacterWidth.of(p.name + nameMarks(p, model: model, options: marks).joined()) + 1
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

  static func drawParticipant(
    _ p: Participant, model: FrontModel, row: Int, col: Int, width: Int, columns: Columns?,
    marks options: MarkOptions, into grid: inout CellGrid
  ) {
    let isYou = p.id == model.localParticipant
    let state = participantState(p, model: model)
    let offset = offsetText(p, model: model)
    let auto = p.autoAdvance ? "↻" : ""
    let nameStyle = CellStyle(isYou ? .you : .normal, bold: isYou)
    let marks = nameMarks(p, model: model, options: options)
    let fullName = p.name + marks.joined()
    grid.put("●", row: row, col: col, style: CellStyle(state.style.role))
    if let columns {
      // Your own name takes from your own state's cell before it is cut; but the marks give
      // way first, so that the state is not cut for them ("bob (you) (next host) in the
      // r…"): the name is drawn as yours (bold) anyway.
      var nameWidth = columns.name
      var marks = marks
      if isYou, CharacterWidth.of(fullName) + 1 > nameWidth {
        let total = columns.name + columns.state
        let stateNeeds = CharacterWidth.of(state.label) + 1
        while !marks.isEmpty, CharacterWidth.of(p.name + marks.joined()) + 1 > total - stateNeeds {
          marks.removeLast()
        }
        nameWidth = min(CharacterWidth.of(p.name + marks.joined()) + 1, total)
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
  static func waitLines(_ model: FrontModel, width: Int) -> [String] {
    guard let session = model.session else { return [] }
    // A ready check or its countdown first: what everyone is about to do.
    let ready = ReadyText.line(model.group, now: model.now, local: model.localParticipant)
    return [ready].compactMap { $0 }
      + session.waits.map { wait in
        let name =
          wait.participant == model.localParticipant
          ? "you" : (model.group.participant(wait.participant)?.name ?? wait.participant.rawValue)
        let left = secondsLeft(until: wait.deadline, now: model.now)
        return WaitText.line(
          name: name, cause: wait.cause, secondsLeft: left, width: width,
          you: wait.participant == model.localParticipant,
          lender: WaitText.lender(
            of: wait.participant, in: model.group, local: model.localParticipant))
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

  static func offsetText(_ p: Participant, model: FrontModel) -> String {
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
    // Whose copy they watch from goes with the reason, on the line below in a wide pane.
    let from = WaitText.lender(of: p.id, in: model.group, local: model.localParticipant)
      .map(WaitText.fromCopy)
    let detail = [status.detail(you: isYou), from].compactMap { $0 }.joined(separator: " · ")
    let text = detail.isEmpty ? status.label : "\(status.label) — \(detail)"
    return (text, status.label, detail.isEmpty ? nil : detail, CellStyle(role))
  }
}
