import Narration
import PlaybackCoordination
import Testing

@testable import TerminalFront

struct ScreenSize: CustomTestStringConvertible, Sendable {
  var cols: Int
  var rows: Int
  var testDescription: String { "\(cols)x\(rows)" }
  static let all = [
    ScreenSize(cols: 80, rows: 24), ScreenSize(cols: 120, rows: 35), ScreenSize(cols: 60, rows: 20),
  ]
}

enum ScreenState: String, CaseIterable, Sendable {
  case playing, pausedByBob, waiting, suspended, reconnecting, finished, noSession, sessionOffered,
    invalidated
  case helpShown, fastAndWide, watchingAlone, hostWithInvite, queued
  /// What was said before this person came, a reaction, and a line that names them.
  case conversation

  var model: FrontModel {
    switch self {
    case .playing: Fixtures.playing()
    case .queued:
      {
        var model = Fixtures.playing()
        // bob's player runs ahead on purpose (Bluetooth): marked beside his name.
        if let bob = model.group.participants.firstIndex(where: { $0.id == Fixtures.bob }) {
          model.group.participants[bob].personalOffset = 0.2
        }
        model.group.queue = Fixtures.queue
        return model
      }()
    case .conversation:
      {
        var model = Fixtures.playing()
        model.receiveChat(from: "carol", text: "the storm is next", emphasis: .earlier)
        model.receiveReaction(from: "bob", Reaction(text: "😮", at: 61), earlier: true)
        model.receiveReaction(from: "bob", Reaction(text: "😂", at: 754.2), earlier: false)
        model.receiveChat(from: "carol", text: "@alice popcorn?", emphasis: .mention)
        return model
      }()
    case .pausedByBob: Fixtures.pausedByBob()
    case .waiting: Fixtures.waiting()
    case .suspended: Fixtures.suspended()
    case .reconnecting: Fixtures.reconnecting()
    case .finished: Fixtures.finished()
    case .noSession: Fixtures.noSession()
    case .sessionOffered: Fixtures.sessionOffered()
    case .invalidated: Fixtures.invalidated()
    case .helpShown: Fixtures.helpShown()
    case .fastAndWide: Fixtures.fastAndWide()
    case .watchingAlone: Fixtures.watchingAlone()
    case .hostWithInvite: Fixtures.hostWithInvite()
    }
  }
}

enum PromptCase: String, CaseIterable, Sendable {
  case sessionOffered, startSession, confirmSwitch, quit, episodePicker, chat, comeBack
  case leaveHostedRoom, queue, react, lastTime, readyAsked, roomMenu

  var model: FrontModel {
    var model = Fixtures.playing()
    switch self {
    case .sessionOffered:
      model = Fixtures.sessionOffered()
    case .startSession:
      model = Fixtures.noSession()
      model.prompt = .startSession(
        item: Fixtures.series.items[0], seriesTitle: "Harbour Lights", others: ["bob", "carol"])
    case .confirmSwitch:
      model.prompt = .confirmSwitch(to: Fixtures.series.items[2])
    case .quit:
      model.prompt = .quit(others: 2)
    case .leaveHostedRoom:
      model.prompt = .leaveHostedRoom(others: ["bob", "carol"])
    case .episodePicker:
      var picker = Prompt.episodePicker(series: [Fixtures.series], current: "harbour/s1e2")
      _ = picker.handle(.down)
      model.prompt = picker
    case .queue:
      model.group.queue = Fixtures.queue
      model.prompt = .queue(model.group.queue, selected: 7)
    case .chat:
      model.prompt = .chat(draft: "see you at the storm 🌊")
    case .react:
      model.prompt = .react()
    case .comeBack:
      model = Fixtures.suspended()
      model.prompt = .comeBack(position: 754, groupPosition: 812)
    case .lastTime:
      model = Fixtures.noSession()
      model.prompt = .lastTime(
        "last time: Harbour Lights S1E3 at 21:14, with bob and carol — continue?")
    case .readyAsked:
      let check = ReadyCheck(
        askedBy: Fixtures.bob, askedByName: "bob", since: model.now,
        deadline: model.now.advanced(bySeconds: 120))
      model.prompt = .readyAsked(check: check, local: Fixtures.alice)
    case .roomMenu:
      model.group.control = RoomControl(owner: Fixtures.alice, startWhenAllReady: true)
      model.relayKeepsRooms = true
      model.prompt = .roomMenu(control: model.group.control, relayKeepsRooms: true)
    }
    return model
  }
}

@Suite("screen snapshots")
struct RendererSnapshotTests {
  @Test("every screen state renders as recorded", arguments: ScreenState.allCases, ScreenSize.all)
  func state(_ state: ScreenState, size: ScreenSize) {
    let grid = ScreenRenderer.render(state.model, rows: size.rows, cols: size.cols)
    assertSnapshot(grid.text, named: "state-\(state.rawValue)-\(size.cols)x\(size.rows)")
  }

  @Test(
    "every prompt renders as a modal box as recorded", arguments: PromptCase.allCases,
    ScreenSize.all)
  func prompt(_ prompt: PromptCase, size: ScreenSize) {
    let grid = ScreenRenderer.render(prompt.model, rows: size.rows, cols: size.cols)
    assertSnapshot(grid.text, named: "prompt-\(prompt.rawValue)-\(size.cols)x\(size.rows)")
  }

  @Test("any size renders without trapping, each line within the width")
  func anySize() {
    let models = ScreenState.allCases.map(\.model) + PromptCase.allCases.map(\.model)
    for model in models {
      for rows in [0, 1, 2, 3, 5, 9, 13, 14, 17, 24] {
        for cols in [0, 1, 2, 5, 10, 20, 39, 40, 50, 71, 72, 109, 110] {
          let grid = ScreenRenderer.render(model, rows: rows, cols: cols)
          #expect(grid.lines.count == rows)
          for line in grid.lines { #expect(CharacterWidth.of(line) <= cols) }
        }
      }
    }
  }

  @Test("the selected option of a prompt is drawn reversed")
  func selectedOptionReversed() {
    let model = PromptCase.confirmSwitch.model
    let grid = ScreenRenderer.render(model, rows: 24, cols: 80)
    let row = grid.lines.firstIndex { $0.contains("[ Yes ]") }
    #expect(row != nil)
    if let row {
      let col = grid.lines[row].distance(of: "[ Yes ]")
      #expect(grid[row, col].style.reverse)
    }
  }

  @Test("notices fade: dim in the second half of their life, then gone")
  func noticesFade() {
    let model = Fixtures.playing()
    let grid = ScreenRenderer.render(model, rows: 24, cols: 80)
    #expect(!grid.text.contains("an old notice"))
    let row = grid.lines.firstIndex { $0.contains("bob played from 12:00") }!
    let col = grid.lines[row].distance(of: "bob")
    #expect(grid[row, col].style.dim)
    let fresh = grid.lines.firstIndex { $0.contains("carol joined") }!
    #expect(!grid[fresh, grid.lines[fresh].distance(of: "carol")].style.dim)
  }

  @Test("waits say why in words, keep the time left whole, and step away with the reason")
  func waitWords() {
    #expect(
      WaitText.line(name: "dan", cause: .suspended(.stallRecovery), secondsLeft: 4, width: 40)
        == "⏳ dan: buffering, 4 s left")
    #expect(
      WaitText.line(name: "dan", cause: .suspended(.interrupted), secondsLeft: 4, width: 70)
        == "⏳ dan: stepped away — a call, 4 s left")
    let narrow = WaitText.line(
      name: "dan", cause: .suspended(.interrupted), secondsLeft: 14, width: 26)
    #expect(narrow.hasSuffix(", 14 s left") && narrow.contains("…"), "\(narrow)")
  }

  @Test("a borrower's wait and row say whose copy it loads from (you: your copy)")
  func lentCopy() {
    var model = Fixtures.waiting()
    // bob loads from carol's copy; carol buffers from alice's (alice is the one reading).
    model.group.participants[1].lender = Fixtures.carol
    model.group.participants[2].lender = Fixtures.alice
    let text = ScreenRenderer.render(model, rows: 35, cols: 120).text
    // The pane's wait lines are cut to fit; the rows say it whole.
    #expect(text.contains("bob: loading from car…, 52 s left"), "\(text)")
    #expect(text.contains("carol: buffering from …, 8 s left"), "\(text)")
    #expect(text.contains("— from carol's copy"), "bob's row says where from: \(text)")
    #expect(text.contains("— from your copy"), "carol's row: \(text)")
    #expect(
      WaitText.line(
        name: "bob", cause: .loading, secondsLeft: 52, width: 60, lender: "carol")
        == "⏳ bob: loading from carol's copy, 52 s left")
    #expect(
      WaitText.describe(.loading, lender: "ann") == "loading from ann's copy"
        && WaitText.describe(.suspended(.interrupted), lender: "ann") == "stepped away — a call")
  }

  @Test("the waiting countdown follows the group clock")
  func countdown() {
    var model = Fixtures.waiting()
    #expect(
      ScreenRenderer.render(model, rows: 35, cols: 120).text.contains("carol: buffering, 8 s left"))
    model.now = model.now.advanced(bySeconds: 5)
    let text = ScreenRenderer.render(model, rows: 35, cols: 120).text
    #expect(text.contains("carol: buffering, 3 s left"))
    #expect(text.contains("bob: loading, 47 s left"))
  }
}

extension String {
  /// Column of the first occurrence of `needle` (terminal columns).
  func distance(of needle: String) -> Int {
    guard let range = range(of: needle) else { return -1 }
    return CharacterWidth.of(self[..<range.lowerBound])
  }
}
