import LineFraming
import Testing

@Suite("Line framer under floods")
struct LineFramerTests {
  @Test(
    "a flood of empty lines and many short frames in one read: every frame, in order, nothing left")
  func flood() throws {
    var framer = LineFramer(maximumFrameBytes: 64)
    var bytes: [UInt8] = Array(repeating: UInt8(ascii: "\n"), count: 200_000)
    for i in 0..<10_000 { bytes += Array("f\(i)\r\n".utf8) }
    framer.append(bytes)
    var frames: [String] = []
    while let frame = try framer.nextFrame() {
      frames.append(String(decoding: frame, as: UTF8.self))
    }
    #expect(frames == (0..<10_000).map { "f\($0)" })
    #expect(framer.pendingByteCount == 0)
  }

  @Test("a frame split across reads is joined; one over the limit is refused even with its newline")
  func splitAndOversized() throws {
    var framer = LineFramer(maximumFrameBytes: 8)
    framer.append(Array("abc".utf8))
    #expect(try framer.nextFrame() == nil)
    framer.append(Array("de\nxyz".utf8))
    #expect(try framer.nextFrame() == Array("abcde".utf8))
    #expect(try framer.nextFrame() == nil)
    #expect(framer.pendingByteCount == 3)
    var strict = LineFramer(maximumFrameBytes: 8)
    strict.append(Array("123456789\n".utf8))
    #expect(throws: FrameTooLarge.self) { try strict.nextFrame() }
  }

  @Test("between lines it holds no storage; a partial line keeps only what it needs")
  func idleHoldsNothing() throws {
    var framer = LineFramer(maximumFrameBytes: 1024)
    framer.append(Array(#"{"id":1,"t0":5,"type":"ping"}"#.utf8) + [UInt8(ascii: "\n")])
    #expect(try framer.nextFrame() == Array(#"{"id":1,"t0":5,"type":"ping"}"#.utf8))
    #expect(try framer.nextFrame() == nil)
    #expect(framer.heldCapacity == 0)
    framer.append(Array("a\nbc".utf8))
    #expect(try framer.nextFrame() == Array("a".utf8))
    #expect(try framer.nextFrame() == nil)
    #expect(framer.pendingByteCount == 2)
    #expect(framer.heldCapacity > 0)
    framer.append(Array("d\n".utf8))
    #expect(try framer.nextFrame() == Array("bcd".utf8))
    #expect(try framer.nextFrame() == nil)
    #expect(framer.heldCapacity == 0)
  }
}
