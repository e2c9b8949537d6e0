import Media
import ParticipantRuntime
import Participation
import PlaybackCoordination
import TerminalFront

/// The demo as the terminal front shows it: each scripted participant's screen, built from
/// what the runner says they see, either one followed full-size or all side by side.
/// Pure: it draws into a ``CellGrid`` that the curses layer blits and tests read as text.
public struct DemoScreen: Sendable {
  public enum Layout: Sendable, Hashable {
    /// One participant's screen, full size.
    case follow
    /// Every participant's screen, tiled.
    case sideBySide
  }

  public let names: [String]
  public let catalog: [SeriesInfo]
  public var layout: Layout = .follow
  /// Index into ``names`` of the participant followed full-size.
  public var followed = 0
  /// The runner's progress line ("0:42 · 12/34 expectations").
  public var status = ""
  private var models: [String: FrontModel] = [:]
  private var noticesSeen: [String: Int] = [:]
  private var chatsSeen: [String: Int] = [:]

  public init(names: [String], catalog: [SeriesInfo]) {
    self.names = names
    self.catalog = catalog
    for name in names {
      var model = FrontModel(roomName: "demo", catalog: catalog)
      model.connection = .disconnected(reason: "not arrived yet")
      models[name] = model
    }
  }

  public var followedName: String { names.isEmpty ? "" : names[followed % names.count] }

  public mutating func followNext() { followed = names.isEmpty ? 0 : (followed + 1) % names.count }
  public mutating func followPrevious() {
    followed = names.isEmpty ? 0 : (followed + names.count - 1) % names.count
  }

  /// Takes in what one participant knows and shows now.
  public mutating func update(_ view: DemoParticipantView) {
    guard var model = models[view.name] else { return }
    if let snapshot = view.session {
      model.localParticipant = snapshot.participant
      model.group = snapshot.state
      if let now = snapshot.groupTime { model.now = now }
      model.connection =
        switch snapshot.connection {
        case .connected: .connected
        case .connecting, .reconnecting: .reconnecting
        case .disconnected: .disconnected(reason: nil)
        }
      model.membership =
        switch snapshot.phase {
        case .none: .noSession
        case .waiting: .waiting
        case .joined: .joined
        case .invalidated(let reason): .invalidated(reason: reason.description)
        }
      // Notices come from the runner (below), so changes are not posted again here.
      if let change = snapshot.state.lastChange { model.lastAppliedSequence = change.sequence }
    }
    if let player = view.player {
      model.player = TerminalFront.PlayerView(player, catalog: catalog)
    }
    let seen = noticesSeen[view.name] ?? 0
    for text in view.notices.dropFirst(seen) { model.post(text) }
    noticesSeen[view.name] = view.notices.count
    let chats = chatsSeen[view.name] ?? 0
    for line in view.chats.dropFirst(chats) { model.post(line, kind: .chat) }
    chatsSeen[view.name] = view.chats.count
    model.prompt = view.prompt.map(Self.prompt(for:))
    model.pruneNotices()
    models[view.name] = model
  }

  /// The screen at `rows` × `cols`: the participants' screens and a status line at the
  /// bottom saying whom you follow and which keys change it.
  public func render(rows: Int, cols: Int) -> CellGrid {
    var grid = CellGrid(rows: rows, cols: cols)
    guard rows > 2, cols > 10, !names.isEmpty else { return grid }
    // The status bar takes the last row, where the front's key help would be: the
    // scripted participants' keys are not the viewer's.
    let area = rows - 1
    switch layout {
    case .follow:
      if let model = models[followedName] {
        grid.paste(ScreenRenderer.render(model, rows: rows, cols: cols), row: 0, col: 0)
      }
    case .sideBySide:
      let columns = names.count > 1 && cols >= 80 ? 2 : 1
      let tileRows = (names.count + columns - 1) / columns
      let height = area / tileRows
      let width = cols / columns
      for (i, name) in names.enumerated() {
        guard let model = models[name], height >= 3 else { continue }
        let r = (i / columns) * height
        let c = (i % columns) * width
        // One row taller: each tile's key help falls under the next tile (or the status
        // bar) and is drawn over.
        let tile = ScreenRenderer.render(
          model, rows: height + 1, cols: width - (columns > 1 ? 1 : 0))
        grid.paste(tile, row: r, col: c)
      }
      // Rows the tiles leave over: the last tile's key help fell there.
      let used = tileRows * height
      if used < area { grid.fill(row: used, col: 0, height: area - used, width: cols) }
    }
    let keys =
      layout == .follow
      ? "Tab next person · v side by side · q quit" : "v follow one · q quit"
    let who = layout == .follow ? "following \(followedName)" : "everyone side by side"
    let line = " demo · \(who) · \(status) · \(keys) "
    let bar = CellStyle(.accent, reverse: true)
    grid.fill(row: area, col: 0, height: 1, width: cols, style: bar)
    grid.write(line, row: area, col: 0, style: bar, maxWidth: cols)
    return grid
  }

  /// The front's modal for the question a scripted participant was asked.
  static func prompt(for question: ActionQuestion) -> Prompt {
    Prompt.question(question)
  }

}
