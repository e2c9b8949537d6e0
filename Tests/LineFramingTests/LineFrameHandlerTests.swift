import LineFraming
import NIOCore
import NIOEmbedded
import Testing

@Suite("Lines off a TCP stream")
struct LineFrameHandlerTests {
  /// Writes `chunks` in turn, as separate reads, and returns every frame passed on.
  func frames(_ chunks: [String], limit: Int = 32, emitsEmptyLines: Bool = false) throws
    -> [InboundFrame]
  {
    let channel = EmbeddedChannel(
      handler: LineFrameHandler(maximumFrameBytes: limit, emitsEmptyLines: emitsEmptyLines))
    var frames: [InboundFrame] = []
    for chunk in chunks {
      try channel.writeInbound(channel.allocator.buffer(string: chunk))
      while let frame = try channel.readInbound(as: InboundFrame.self) { frames.append(frame) }
    }
    _ = try? channel.finish()
    return frames
  }

  func line(_ text: String) -> InboundFrame { .line(Array(text.utf8)) }

  @Test("a line split over reads, two in one read, CRLF, empty lines skipped")
  func splitAndJoined() throws {
    #expect(
      try frames(["{\"a\":", "1}\n{\"b\":2}\r\n", "\n", "{\"c\"", ":3}\n"])
        == [line("{\"a\":1}"), line("{\"b\":2}"), line("{\"c\":3}")])
  }

  @Test("empty lines are passed on when asked (the relay counts them against its rate)")
  func emptyLines() throws {
    #expect(try frames(["a\n\nb\n"], emitsEmptyLines: true) == [line("a"), line(""), line("b")])
  }

  @Test("a line past the limit, whole or still open: one tooLarge, then nothing more")
  func tooLarge() throws {
    let long = String(repeating: "x", count: 40)
    #expect(
      try frames(["ok\n" + long + "\nafter\n", "more\n"]) == [line("ok"), .tooLarge(limit: 32)])
    #expect(try frames([long, "still\n"]) == [.tooLarge(limit: 32)])
  }

  @Test("a partial line at the end of the stream is not a line")
  func partialAtEnd() throws {
    #expect(try frames(["done\nhalf"]) == [line("done")])
  }
}
