import Testing

@testable import Media

@Suite("test-pattern frames")
struct TestPatternTests {
  @Test("equal positions give equal frames; 100 ms apart gives different frames")
  func frames() {
    for p in stride(from: 0.0, to: 300, by: 0.37) {
      #expect(TestPattern.frame(at: p) == TestPattern.frame(at: p))
      #expect(TestPattern.frame(at: p) != TestPattern.frame(at: p + 0.1), "at \(p)")
      #expect(TestPattern.frame(at: p) != TestPattern.frame(at: p - 0.1) || p < 0.1, "at \(p)")
    }
    // Same tenth of a second, same frame; tenths land on their own frame despite rounding.
    #expect(TestPattern.frame(at: 12.31) == TestPattern.frame(at: 12.39))
    #expect(TestPattern.frameIndex(at: 0.3) == 3)
    #expect(TestPattern.frameIndex(at: 0.7) == 7)
    #expect(TestPattern.frame(at: 0) == TestPattern.frame(index: 0))
  }

  @Test("a frame is a sweep and the frame number in binary")
  func layout() {
    let f = TestPattern.frame(index: 3)
    #expect(f == "▁▁▁█▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁ □□□□□□□□□□□□■■")
    #expect(TestPattern.frame(index: 23).hasPrefix("▁▁▁█"))
    #expect(TestPattern.frame(index: 23) != f)
  }
}
