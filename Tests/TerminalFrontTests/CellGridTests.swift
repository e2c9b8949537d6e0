import Testing

@testable import TerminalFront

@Suite("cell grid")
struct CellGridTests {
  @Test("text is written, clipped to the grid, and read back as lines")
  func writeAndClip() {
    var grid = CellGrid(rows: 2, cols: 5)
    let end = grid.write("hello world", row: 0, col: 2)
    #expect(grid.lines == ["  hel", ""])
    #expect(end == 5)
    grid.write("ab", row: 1, col: -1)
    #expect(grid.line(1) == "b")
    grid.write("zz", row: 5, col: 0)
    #expect(grid.text == "  hel\nb")
  }

  @Test("maxWidth clips a write")
  func maxWidth() {
    var grid = CellGrid(rows: 1, cols: 10)
    grid.write("abcdef", row: 0, col: 1, maxWidth: 3)
    #expect(grid.line(0) == " abc")
  }

  @Test("CJK and emoji take two columns; the continuation cell is not printed twice")
  func wideCharacters() {
    var grid = CellGrid(rows: 1, cols: 8)
    let end = grid.write("a漢🍿b", row: 0, col: 0)
    #expect(end == 6)
    #expect(grid.line(0) == "a漢🍿b")
    #expect(grid[0, 1].width == 2)
    #expect(grid[0, 2].isContinuation)
    #expect(grid[0, 5].character == "b")
  }

  @Test("a wide character that does not fit becomes a space, never half a glyph")
  func wideAtEdge() {
    var grid = CellGrid(rows: 1, cols: 3)
    grid.write("ab漢", row: 0, col: 0)
    #expect(grid[0, 2].character == " ")
    #expect(grid[0, 2].width == 1)
    var limited = CellGrid(rows: 1, cols: 6)
    limited.write("a漢", row: 0, col: 0, maxWidth: 2)
    #expect(limited.line(0) == "a")
  }

  @Test("overwriting half of a wide character blanks the other half")
  func overwriteHalf() {
    var grid = CellGrid(rows: 1, cols: 4)
    grid.write("漢字", row: 0, col: 0)
    grid.put("x", row: 0, col: 1)
    #expect(grid.line(0) == " x字")
    grid.put("y", row: 0, col: 2)
    #expect(grid.line(0) == " xy")
    #expect(!grid[0, 3].isContinuation)
  }

  @Test("zero-width and combining characters do not take a cell")
  func zeroWidth() {
    var grid = CellGrid(rows: 1, cols: 4)
    grid.write("e\u{0301}x", row: 0, col: 0)
    #expect(grid[0, 0].character == "e\u{0301}")
    #expect(grid[0, 1].character == "x")
    #expect(CharacterWidth.of("\u{200B}") == 0)
  }

  @Test(
    "the terminal is sent what it draws in the cluster's width: the first scalar and its marks, never a joiner, a tone or a flag's second letter",
    arguments: [
      ("e\u{0301}", "e\u{0301}"), ("❤️", "❤️"), ("👍🏽", "👍"), ("👨‍👩‍👧", "👨"), ("🇫🇷", "🇫"),
      ("🏴\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}", "🏴"), ("漢", "漢"),
    ])
  func drawn(_ text: String, _ sent: String) {
    let character = Character(text)
    #expect(String(String.UnicodeScalarView(CharacterWidth.drawn(character))) == sent)
    // What is sent is as wide as the grid counts the cluster.
    #expect(CharacterWidth.of(Character(sent)) == CharacterWidth.of(character))
  }

  @Test(
    "character widths of common ranges",
    arguments: [
      ("a", 1), ("é", 1), ("─", 1), ("▶", 1), ("⏸", 1), ("⏳", 2), ("漢", 2), ("한", 2), ("あ", 2),
      ("Ａ", 2),
      ("🍿", 2), ("🌊", 2), ("👍🏽", 2), ("❤️", 2), ("\u{0301}", 0),
    ])
  func widths(_ text: String, _ width: Int) {
    #expect(CharacterWidth.of(Character(text)) == width)
  }

  @Test("boxes, fills and restyling")
  func boxes() {
    var grid = CellGrid(rows: 3, cols: 10)
    grid.box(row: 0, col: 0, height: 3, width: 10, title: "Hi")
    #expect(grid.lines == ["┌ Hi ────┐", "│        │", "└────────┘"])
    grid.fill(row: 1, col: 1, height: 1, width: 8, with: "漢")
    #expect(grid.line(1) == "│漢漢漢漢│")
    grid.restyle(row: 1, col: 1, width: 2) { $0.reverse = true }
    #expect(grid[1, 1].style.reverse && !grid[1, 3].style.reverse)
  }

  @Test("truncating, padding and wrapping count columns")
  func layout() {
    #expect(TextLayout.truncate("hello", to: 4) == "hel…")
    #expect(TextLayout.truncate("漢字漢字", to: 5) == "漢字…")
    #expect(TextLayout.pad("ab", to: 4) == "ab  ")
    #expect(TextLayout.padLeft("ab", to: 4) == "  ab")
    #expect(TextLayout.wrap("the quick brown fox", width: 9) == ["the quick", "brown fox"])
    #expect(TextLayout.wrap("abcdefghij", width: 4) == ["abcd", "efgh", "ij"])
  }

  @Test("the big font draws digits and colons three rows high")
  func bigDigits() {
    let rows = BigDigits.render("12:34")
    #expect(rows.count == 3)
    #expect(rows.allSatisfy { $0.count == BigDigits.width(of: "12:34") })
    #expect(BigDigits.width(of: "0") == 3)
    #expect(BigDigits.width(of: "1:00") == 3 + 1 + 1 + 1 + 3 + 1 + 3)
  }
}

@Suite("key decoding")
struct KeyDecoderTests {
  @Test("curses characters become keys")
  func characters() {
    #expect(KeyDecoder.characterKey(13) == .enter)
    #expect(KeyDecoder.characterKey(10) == .enter)
    #expect(KeyDecoder.characterKey(27) == .escape)
    #expect(KeyDecoder.characterKey(127) == .backspace)
    #expect(KeyDecoder.characterKey(9) == .tab)
    #expect(KeyDecoder.characterKey(12) == .control("l"))
    #expect(KeyDecoder.characterKey(32) == .character(" "))
    #expect(KeyDecoder.characterKey(0x6F22) == .character("漢"))
    #expect(KeyDecoder.characterKey(0) == nil)
  }
}
