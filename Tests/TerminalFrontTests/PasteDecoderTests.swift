import Testing

@testable import TerminalFront

@Suite("Bracketed paste")
struct PasteDecoderTests {
  static func keys(_ text: String) -> [Key] {
    text.map { c -> Key in
      switch c {
      case "\u{1b}": .escape
      case "\n", "\r": .enter
      default: .character(c)
      }
    }
  }

  static func decode(_ text: String, flushAtEnd: Bool = true) -> [Key] {
    var decoder = PasteDecoder()
    var out: [Key] = []
    for key in keys(text) { out += decoder.feed(key) }
    if flushAtEnd { out += decoder.flush() }
    return out
  }

  @Test("a paste holding escape sequences is one paste of text, never keys")
  func escapeInsidePaste() {
    let pasted = "x\u{1b}[31mRED\u{1b}[2Jzz"
    #expect(Self.decode("\u{1b}[200~" + pasted + "\u{1b}[201~") == [.paste(pasted)])
    #expect(
      Self.decode("a\u{1b}[200~two\nlines\u{1b}[201~b") == [
        .character("a"), .paste("two\nlines"), .character("b"),
      ])
  }

  @Test("Esc on its own, and ESC sequences that are not a paste, stay the keys they were")
  func notAPaste() {
    #expect(Self.decode("\u{1b}") == [.escape])
    #expect(Self.decode("\u{1b}[2") == [.escape, .character("["), .character("2")])
    #expect(Self.decode("\u{1b}x") == [.escape, .character("x")])
    #expect(Self.decode("\u{1b}\u{1b}[200~hi\u{1b}[201~") == [.escape, .paste("hi")])
  }

  @Test("a paste split over reads waits for its end; one never closed is given up as text")
  func splitAndAbandoned() {
    var decoder = PasteDecoder()
    var out: [Key] = []
    for key in Self.keys("\u{1b}[200~hel") { out += decoder.feed(key) }
    out += decoder.flush()
    #expect(out.isEmpty && decoder.isPasting)
    for key in Self.keys("lo\u{1b}[201~") { out += decoder.feed(key) }
    #expect(out == [.paste("hello")])
    for key in Self.keys("\u{1b}[200~cut off") { _ = decoder.feed(key) }
    #expect(decoder.abandonPaste() == [.paste("cut off")])
    #expect(!decoder.isPasting)
  }

  @Test("pasted into the chat line it is text: line breaks become spaces, controls go")
  func intoChat() {
    var prompt = Prompt.chat()
    #expect(prompt.handle(.paste("x\u{1b}[31mRED\u{1b}[2Jzz\nok")) == .pending)
    #expect(prompt.input == "x[31mRED[2Jzz ok")
    var c = FrontController()
    #expect(
      c.handle(key: .paste("[[[["), model: Fixtures.playing()) == [
        .localNotice("pasted text goes into the chat line: press c first")
      ], "outside the chat line a paste does nothing but say so")
  }
}
