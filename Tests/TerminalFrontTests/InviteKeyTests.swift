import Foundation
import PlaybackCoordination
import Testing

@testable import TerminalFront

@Suite("The invite: shown whole, copied")
struct InviteKeyTests {
  static let link =
    "cowatch join cowatch://movie-night@192.168.1.5:7700,10.0.0.7:7700/fp=q6urq6urq6urq6urq6urq6urq6urq6urq6u-_6urq6s --name NAME"

  @Test("i shows the invite whole, in a prompt; Copy puts it on the clipboard")
  func copy() {
    var model = Fixtures.playing()
    model.invite = Self.link
    var c = FrontController()
    #expect(c.handle(key: .character("i"), model: model) == [.redraw])
    // Whole: every character of it on the screen, over as many lines as it takes, even on
    // a small terminal.
    for (rows, cols) in [(35, 120), (24, 80)] {
      var rendered = model
      c.prepare(&rendered)
      let screen = ScreenRenderer.render(rendered, rows: rows, cols: cols).text
      // The link's parts, each whole on its line (it breaks after a '/').
      for part in [
        "cowatch join", "cowatch://movie-night@192.168.1.5:7700,10.0.0.7:7700/",
        "fp=q6urq6urq6urq6urq6urq6urq6urq6urq6u-_6urq6s",
      ] {
        #expect(screen.contains(part), "\(rows)x\(cols): \(part)\n\(screen)")
      }
    }
    #expect(c.handle(key: .enter, model: model) == [.copyToClipboard(Self.link)])
  }

  @Test(
    "out of the room for good (it closed), the screen offers no invite and says what is left to do")
  func roomClosed() {
    var model = Fixtures.playing()
    model.group.session = nil
    model.membership = .noSession
    model.invite = Self.link
    let open = ScreenRenderer.render(model, rows: 24, cols: 80).text
    #expect(open.contains("Others join with:"))
    model.connection = .disconnected(reason: "ann closed the room (it ran on their machine)")
    for (rows, cols) in [(24, 80), (15, 60)] {
      let closed = ScreenRenderer.render(model, rows: rows, cols: cols).text
      #expect(!closed.contains("Others join with:"), "\(closed)")
      #expect(!closed.contains("Press e to pick an episode."), "\(closed)")
      #expect(closed.contains("You are no longer in room"), "\(rows)x\(cols)\n\(closed)")
    }
  }

  @Test("at 60×15 the invite is still there whole, in the i dialog and in the centre pane")
  func smallTerminal() {
    var model = Fixtures.noSession()
    model.invite = Self.link
    let fingerprint = "q6urq6urq6urq6urq6urq6urq6urq6urq6u-_6urq6s"
    var c = FrontController()
    _ = c.handle(key: .character("i"), model: model)
    var shown = model
    c.prepare(&shown)
    let dialog = ScreenRenderer.render(shown, rows: 15, cols: 60).text
    let pane = ScreenRenderer.render(model, rows: 15, cols: 60).text
    for screen in [dialog, pane] {
      // The link's characters in order, whatever the line breaks and frames between them.
      let flat = screen.split(separator: "\n").map {
        $0.trimmingCharacters(in: CharacterSet(charactersIn: " │"))
      }.joined()
      #expect(flat.contains("fp=" + fingerprint), "\(screen)")
    }
  }

  @Test("without an invite (joined by address), i says so")
  func none() {
    var c = FrontController()
    let actions = c.handle(key: .character("i"), model: Fixtures.playing())
    #expect(actions.count == 1)
    guard case .localNotice(let text) = actions.first else {
      Issue.record("\(actions)")
      return
    }
    #expect(text.contains("no invite here"))
  }

  @Test("the clipboard's escape sequence is OSC 52 with the text in base64")
  func osc52() {
    let sequence = TerminalSession.clipboardSequence("cowatch://lobby@10.0.0.1:7700/plain")
    #expect(
      String(decoding: sequence, as: UTF8.self)
        == "\u{1b}]52;c;Y293YXRjaDovL2xvYmJ5QDEwLjAuMC4xOjc3MDAvcGxhaW4=\u{07}")
    #expect(String(decoding: Base64.encode(Array("ab".utf8)), as: UTF8.self) == "YWI=")
    #expect(String(decoding: Base64.encode(Array("abc".utf8)), as: UTF8.self) == "YWJj")
    #expect(Base64.encode([]).isEmpty)
  }

  @Test("a long link breaks after its slashes and commas, not in the middle of a part")
  func wrapsAtSlashes() {
    let lines = TextLayout.wrap(Self.link, width: 60)
    #expect(lines.allSatisfy { $0.count <= 60 })
    #expect(lines.joined().filter { $0 != " " } == Self.link.filter { $0 != " " })
    #expect(lines.contains { $0.hasPrefix("fp=") }, "\(lines)")
  }
}
