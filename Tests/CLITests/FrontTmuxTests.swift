import Foundation
import TestSupport
import Testing
import TmuxDriver

extension Tmux {
  /// Polls the pane every 100 ms until its text contains one of `fragments` (bounded).
  @discardableResult
  func waitForScreen(
    _ target: String, showing fragments: [String], within seconds: Double = 10,
    sourceLocation: SourceLocation = #_sourceLocation
  ) async -> Bool {
    await waitForScreen(
      target, within: seconds, describing: "any of \(fragments)", sourceLocation: sourceLocation
    ) { screen in fragments.contains(where: screen.contains) ? screen : nil } != nil
  }

  /// Polls the pane every 100 ms until `read` finds what it looks for in the text, and
  /// returns that (bounded). A pane captured while the front is drawing can hold half a
  /// line: reading from the same capture that matched never sees a half-drawn value.
  func waitForScreen<Found>(
    _ target: String, within seconds: Double = 10, describing what: String,
    sourceLocation: SourceLocation = #_sourceLocation, _ read: (String) -> Found?
  ) async -> Found? {
    var screen = ""
    var found: Found?
    let came = await eventually(seconds, poll: .milliseconds(100)) {
      screen = capture(target)
      found = read(screen)
      return found != nil
    }
    if came, let found { return found }
    Issue.record(
      "\(target)'s screen never showed \(what) within \(seconds) s; it shows:\n\(screen)",
      sourceLocation: sourceLocation)
    return nil
  }

}

@Suite("The interactive front, driven through tmux", .serialized)
struct FrontTmuxTests {
  @Test(
    "a key pressed in ann's front changes what bob's front shows",
    .enabled(
      if: Tmux.executable != nil, "tmux is not installed; the front's end-to-end test needs it"),
    .timeLimit(.minutes(1)))
  func pauseReachesTheOtherFront() async throws {
    let (relay, port) = try await CowatchProcess.relay(["--store", "memory"])
    defer { relay.terminate() }

    let tmux = Tmux()
    defer { tmux.kill() }
    let state = FileManager.default.temporaryDirectory.appendingPathComponent(tmux.socket)
    defer { try? FileManager.default.removeItem(at: state) }
    let environment = [
      "TERM": "xterm-256color", "XDG_STATE_HOME": state.path,
      "XDG_CONFIG_HOME": state.appendingPathComponent("config").path,
    ]
    for name in ["ann", "bob"] {
      try tmux.newSession(
        name, columns: 120, rows: 35, directory: CowatchProcess.repositoryRoot,
        environment: environment,
        command: [CowatchProcess.executable.path, "join", "127.0.0.1:\(port)", "--name", name])
      // A relay met for the first time: its fingerprint is shown and ann decides; it is
      // remembered (in the config both share here), so bob is not asked again.
      if name == "ann" {
        try #require(
          await tmux.waitForScreen(
            name, showing: ["The relay at 127.0.0.1:\(port) presents SHA256:"]))
        try #require(await tmux.waitForScreen(name, showing: ["trust it? [y/N]"]))
        try tmux.sendKeys(name, "y", "Enter")
        try #require(await tmux.waitForScreen(name, showing: ["People (1)"]))
      }
    }
    try #require(await tmux.waitForScreen("ann", showing: ["People (2)"]))
    try #require(await tmux.waitForScreen("bob", showing: ["People (2)"]))

    // ann picks the first episode and starts watching together with bob.
    try tmux.sendKeys("ann", "e")
    try #require(await tmux.waitForScreen("ann", showing: ["enter choose"]))
    try tmux.sendKeys("ann", "1")
    try #require(await tmux.waitForScreen("ann", showing: ["Watch together ]"]))
    try tmux.sendKeys("ann", "w")
    // The group holds for bob's answer, and ann reads why.
    try #require(await tmux.waitForScreen("ann", showing: ["bob: asked to join"]))

    // bob is offered the session and joins it; both start from the beginning together.
    try #require(await tmux.waitForScreen("bob", showing: ["Watch together?"]))
    try tmux.sendKeys("bob", "j")
    try #require(await tmux.waitForScreen("bob", showing: ["you joined"]))
    try #require(await tmux.waitForScreen("ann", showing: ["bob joined"]))
    try #require(await tmux.waitForScreen("ann", showing: ["everyone is ready; playing from 0:00"]))
    try #require(await tmux.waitForScreen("ann", showing: ["▶ playing"]))
    try #require(await tmux.waitForScreen("bob", showing: ["▶ playing"]))

    // ann pauses with the space bar; bob's screen says who paused.
    try tmux.sendKeys("ann", "Space")
    // Both on one capture: the header's state and the notice naming the time.
    _ = try #require(
      await tmux.waitForScreen("bob", describing: "ann's pause in the header and a notice") {
        screen in
        screen.contains("⏸ paused by ann") && screen.contains("ann paused at 0:0") ? screen : nil
      })

    // What ann's terminal is sent from here on, byte for byte: the bell is a byte (BEL),
    // not something drawn.
    let annBytes = state.appendingPathComponent("ann-pane.bytes").path
    try tmux.run(["pipe-pane", "-o", "-t", "ann", "cat >> '\(annBytes)'"])
    func bellsAtAnn() -> Int {
      let bytes = (try? Data(contentsOf: URL(fileURLWithPath: annBytes))) ?? Data()
      return bytes.count(where: { $0 == 0x07 })
    }

    // bob pastes text full of escape sequences into the chat line: it is sent as text and
    // runs nothing (before bracketed paste, this set the group's speed to 0.75× twice).
    try tmux.sendKeys("bob", "c")
    try #require(await tmux.waitForScreen("bob", showing: ["enter send · esc cancel"]))
    try tmux.run(["set-buffer", "-b", "pasted", "x\u{1b}[31mRED\u{1b}[2Jzz[["])
    try tmux.run(["paste-buffer", "-p", "-b", "pasted", "-t", "bob"])
    try tmux.sendKeys("bob", "Enter")
    try #require(await tmux.waitForScreen("ann", showing: ["bob: x[31mRED[2Jzz[["]))
    #expect(!tmux.capture("ann").contains("0.75×"), "nothing pasted ran as a key")
    #expect(bellsAtAnn() == 0, "a line that does not name ann rings nothing")

    // A line that names ann rings her terminal's bell, once.
    try tmux.sendKeys("bob", "c")
    try #require(await tmux.waitForScreen("bob", showing: ["enter send · esc cancel"]))
    try tmux.run(["set-buffer", "-b", "named", "Ann, the lighthouse!"])
    try tmux.run(["paste-buffer", "-p", "-b", "named", "-t", "bob"])
    try tmux.sendKeys("bob", "Enter")
    try #require(await tmux.waitForScreen("ann", showing: ["bob: Ann, the lighthouse!"]))
    #expect(await eventually(5) { bellsAtAnn() == 1 }, "rang \(bellsAtAnn()) times")

    // bob steps away and says why; ann reads it in words.
    try tmux.sendKeys("bob", "s")
    try #require(await tmux.waitForScreen("bob", showing: ["Step away", "My player needs me"]))
    try tmux.sendKeys("bob", "1")
    try #require(await tmux.waitForScreen("ann", showing: ["bob stepped away — a call"]))
    try #require(await tmux.waitForScreen("bob", showing: ["you stepped away — a call"]))

    // Ctrl-C in bob's front asks the quit question, as q does; Escape keeps him in.
    try tmux.sendKeys("bob", "C-c")
    try #require(await tmux.waitForScreen("bob", showing: ["End for everyone", "Only me"]))
    try tmux.sendKeys("bob", "Escape")

    // bob closes his terminal (tmux hangs up on the pane, as a closed window does): he
    // leaves, rather than lingering under his name as "reconnecting", and can come back as
    // bob at once.
    try tmux.run(["kill-session", "-t", "bob"])
    try #require(await tmux.waitForScreen("ann", showing: ["bob left the room"]))
    try tmux.newSession(
      "bob", columns: 120, rows: 35, directory: CowatchProcess.repositoryRoot,
      environment: environment,
      command: [CowatchProcess.executable.path, "join", "127.0.0.1:\(port)", "--name", "bob"])
    _ = try #require(
      await tmux.waitForScreen("bob", describing: "bob back in the room with ann") { screen in
        screen.contains("People (2)") && screen.contains("bob (you)") ? screen : nil
      })
  }

  @Test(
    "a terminal the front cannot use (TERM=dumb) is refused before connecting: nobody sees eve come and go",
    .enabled(
      if: Tmux.executable != nil, "tmux is not installed; the front's end-to-end test needs it"),
    .timeLimit(.minutes(1)))
  func dumbTerminalRefusedFirst() async throws {
    let (relay, port) = try await CowatchProcess.relay(["--store", "memory", "--no-tls"])
    defer { relay.terminate() }
    let ann = try CowatchProcess([
      "join", "127.0.0.1:\(port)", "--name", "ann", "--headless", "--no-tls",
    ])
    defer { ann.terminate() }
    await ann.waitForLine(containing: [#""event":"welcome""#])
    let tmux = Tmux()
    defer { tmux.kill() }
    try tmux.newSession(
      "eve", columns: 120, rows: 35, directory: CowatchProcess.repositoryRoot,
      // tmux sets TERM for its panes itself: set it for the command.
      environment: [:],
      command: [
        "/usr/bin/env", "TERM=dumb", CowatchProcess.executable.path, "join",
        "127.0.0.1:\(port)", "--name", "eve", "--no-tls",
      ])
    try #require(await tmux.waitForScreen("eve", showing: ["[exited 1]"]))
    #expect(tmux.capture("eve").contains("--headless"), "the one line suggests headless mode")
    // Whoever comes after eve is heard of after her, had she come: zed is the mark.
    let zed = try CowatchProcess([
      "join", "127.0.0.1:\(port)", "--name", "zed", "--headless", "--no-tls",
    ])
    defer { zed.terminate() }
    try #require(await ann.waitForLine(containing: [#""zed""#]) != nil, "ann hears of zed")
    #expect(
      !ann.output.contains { $0.contains("\"eve\"") },
      "eve never entered the room: \(ann.output.filter { $0.contains("eve") })")
  }

  @Test(
    "the host's quit, with nobody to carry the room on, asks before ending it; yes stops its relay cleanly and exits 0",
    .enabled(
      if: Tmux.executable != nil, "tmux is not installed; the front's end-to-end test needs it"),
    .timeLimit(.minutes(1)))
  func hostLeaves() async throws {
    let tmux = Tmux()
    defer { tmux.kill() }
    let state = FileManager.default.temporaryDirectory.appendingPathComponent(tmux.socket)
    defer { try? FileManager.default.removeItem(at: state) }
    let environment = [
      "TERM": "xterm-256color", "XDG_STATE_HOME": state.path,
      "XDG_CONFIG_HOME": state.appendingPathComponent("config").path,
    ]
    try tmux.newSession(
      "ann", columns: 120, rows: 35, directory: CowatchProcess.repositoryRoot,
      environment: environment,
      command: [
        CowatchProcess.executable.path, "host", "--bind", "127.0.0.1", "--port", "0", "--name",
        "ann",
      ])
    // The invite is one link that carries the relay's fingerprint: whoever uses it reaches
    // this relay only. Shown whole; `i` shows it again and copies it (OSC 52, which tmux
    // takes into its paste buffer with set-clipboard on).
    _ = try #require(
      await tmux.waitForScreen("ann", describing: "the invite link") { screen in
        screen.contains("cowatch join") && screen.contains("/fp=") ? screen : nil
      })
    try tmux.run(["set-option", "-g", "set-clipboard", "on"])
    try tmux.sendKeys("ann", "i")
    try #require(await tmux.waitForScreen("ann", showing: ["Copy to clipboard"]))
    try tmux.sendKeys("ann", "Enter")
    try #require(await tmux.waitForScreen("ann", showing: ["invite sent to the clipboard"]))
    let copied = try tmux.run(["show-buffer"], readOutput: true).output
    let match = try #require(
      copied.firstMatch(
        of:
          #/^cowatch join (cowatch:\/\/lobby@127\.0\.0\.1:\d+\/fp=[A-Za-z0-9_-]{43}) --name NAME$/#),
      "the clipboard holds the invite: \(copied)")
    try tmux.newSession(
      "bob", columns: 120, rows: 35, directory: CowatchProcess.repositoryRoot,
      environment: environment,
      command: [
        CowatchProcess.executable.path, "join", String(match.1), "--name", "bob", "--no-carry",
      ])
    try #require(await tmux.waitForScreen("ann", showing: ["People (2)"]))

    try tmux.sendKeys("ann", "q")
    try #require(await tmux.waitForScreen("ann", showing: ["ends it for bob"]))
    try tmux.sendKeys("ann", "y")
    // The client, then the embedded relay, stopped; the process ended normally.
    try #require(await tmux.waitForScreen("ann", showing: ["[exited 0]"]))
    // bob is told the room closed with its host, and does not try to reconnect to it.
    let told = try #require(
      await tmux.waitForScreen("bob", describing: "the room closed, and bob disconnected") {
        screen in
        screen.contains("ann closed the room") && screen.contains("disconnected") ? screen : nil
      })
    #expect(!told.contains("reconnecting"), "\(told)")
    // The relay closed before ann said goodbye: nobody is named the next owner of a room
    // that is gone.
    #expect(!told.contains("now own"), "\(told)")
  }

  @Test(
    "with mpv and no display, the picture is drawn in a tmux pane below the front, which closes with it",
    .enabled(if: Tmux.executable != nil && MpvTools.available, "needs tmux, mpv and ffmpeg"),
    .timeLimit(.minutes(1)))
  func videoInItsOwnPane() async throws {
    let library = try await MpvTools.library()
    defer { try? FileManager.default.removeItem(atPath: library) }
    let (relay, port) = try await CowatchProcess.relay(["--store", "memory", "--no-tls"])
    defer { relay.terminate() }
    let tmux = Tmux()
    defer { tmux.kill() }
    let state = FileManager.default.temporaryDirectory.appendingPathComponent(tmux.socket)
    defer { try? FileManager.default.removeItem(at: state) }
    try tmux.newSession(
      "ann", columns: 120, rows: 40, directory: CowatchProcess.repositoryRoot,
      environment: [
        "TERM": "xterm-256color", "XDG_STATE_HOME": state.path,
        "XDG_CONFIG_HOME": state.appendingPathComponent("config").path,
      ],
      command: [
        CowatchProcess.executable.path, "join", "127.0.0.1:\(port)", "--name", "ann", "--no-tls",
        "--player", "mpv", "--media", library,
      ])
    func panes() -> [String] {
      let listed = try? tmux.run(
        ["list-panes", "-t", "ann", "-F", "#{pane_id}"], readOutput: true)
      return listed?.output.split(separator: "\n").map(String.init) ?? []
    }
    try #require(await tmux.waitForScreen("ann", showing: ["People (1)"]))
    // No display here: the front, inside tmux, opened a pane below itself for the picture.
    #expect(panes().count == 2, "panes: \(panes())")
    let picture = try #require(panes().last)
    try tmux.sendKeys("ann", "e")
    try #require(await tmux.waitForScreen("ann", showing: ["enter choose"]))
    try tmux.sendKeys("ann", "1")
    try #require(await tmux.waitForScreen("ann", showing: ["▶ playing"]))
    // mpv draws the test pattern there in half blocks; the front's pane keeps its text.
    try #require(await tmux.waitForScreen(picture, showing: ["▄", "▀"]))
    #expect(tmux.capture("ann").contains("Night Ferry"))
    try tmux.sendKeys("ann", "q")
    try #require(await tmux.waitForScreen("ann", showing: ["Only me"]))
    try tmux.sendKeys("ann", "Enter")
    try #require(await tmux.waitForScreen("ann", showing: ["[exited 0]"]))
    #expect(panes().count == 1, "the picture's pane closed with the front: \(panes())")
  }
}
