import Testing

@testable import TerminalFront

@Suite("Editing the chat line")
struct ChatLineEditingTests {
  func typed(_ text: String, into prompt: inout Prompt) {
    for c in text { _ = prompt.handle(.character(c)) }
  }

  @Test("← and → move the cursor; typing goes in at it; backspace deletes before it, delete after")
  func moveAndInsert() {
    var p = Prompt.chat()
    typed("see you at eight", into: &p)
    for _ in 0..<5 { _ = p.handle(.left) }
    #expect(p.cursor == "see you at ".count)
    typed("half ", into: &p)
    #expect(p.input == "see you at half eight")
    _ = p.handle(.backspace)
    #expect(p.input == "see you at halfeight")
    _ = p.handle(.delete)
    #expect(p.input == "see you at halfight")
    _ = p.handle(.right)
    _ = p.handle(.character("X"))
    #expect(p.input == "see you at halfiXght")
    // Not past the ends.
    for _ in 0..<100 { _ = p.handle(.right) }
    #expect(p.cursor == p.input.count)
    for _ in 0..<100 { _ = p.handle(.left) }
    #expect(p.cursor == 0)
    _ = p.handle(.backspace)
    #expect(p.input == "see you at halfiXght", "backspace at the start deletes nothing")
  }

  @Test("home / ctrl-a and end / ctrl-e; ctrl-u, ctrl-w and ctrl-k cut as a shell's line does")
  func shellKeys() {
    var p = Prompt.chat()
    typed("one two three", into: &p)
    _ = p.handle(.home)
    #expect(p.cursor == 0)
    _ = p.handle(.end)
    #expect(p.cursor == 13)
    _ = p.handle(.control("a"))
    #expect(p.cursor == 0)
    _ = p.handle(.control("e"))
    for _ in 0..<6 { _ = p.handle(.left) }  // before " three"
    #expect(p.cursor == 7)
    _ = p.handle(.control("w"))
    #expect(p.input == "one  three", "ctrl-w cuts the word before the cursor")
    #expect(p.cursor == 4)
    _ = p.handle(.control("k"))
    #expect(p.input == "one ", "ctrl-k cuts to the end")
    _ = p.handle(.left)
    _ = p.handle(.control("u"))
    #expect(p.input == " ", "ctrl-u cuts to the start")
    #expect(p.cursor == 0)
  }

  @Test("a paste and Tab completion work at the cursor, keeping what follows it")
  func pasteAndCompleteAtCursor() {
    var p = Prompt.chat(names: ["bob", "carol"])
    typed("hi  how are you", into: &p)
    for _ in 0..<"how are you".count + 1 { _ = p.handle(.left) }
    typed("@ca", into: &p)
    _ = p.handle(.tab)
    #expect(p.input == "hi @carol  how are you")
    #expect(p.cursor == "hi @carol ".count)
    _ = p.handle(.paste("and\nbob"))
    #expect(p.input == "hi @carol and bob how are you")
  }

  @Test("the line on screen shows the cursor where it is, and keeps it in view on a long line")
  func rendered() {
    var model = Fixtures.playing()
    var p = Prompt.chat()
    typed("abcdefghij", into: &p)
    for _ in 0..<3 { _ = p.handle(.left) }
    model.prompt = p
    let grid = ScreenRenderer.render(model, rows: 24, cols: 80)
    let row = grid.rows - 1
    let line = grid.text.split(separator: "\n", omittingEmptySubsequences: false)[row]
    #expect(line.hasPrefix("say: abcdefghij"))
    let label = "say: ".count
    #expect(grid[row, label + 7].style.reverse, "the cursor is on the h")
    #expect(!grid[row, label + 10].style.reverse, "not at the end")
    // A line longer than the screen, the cursor near its start: the start is shown.
    var long = Prompt.chat()
    typed(String(repeating: "x", count: 30) + String(repeating: "y", count: 100), into: &long)
    _ = long.handle(.home)
    for _ in 0..<5 { _ = long.handle(.right) }
    model.prompt = long
    let small = ScreenRenderer.render(model, rows: 24, cols: 60)
    let smallLine = small.text.split(separator: "\n", omittingEmptySubsequences: false)[
      small.rows - 1]
    #expect(smallLine.hasPrefix("say: xxxxx"))
    #expect(small[small.rows - 1, label + 5].style.reverse)
  }
}
