import Lending
import Testing

@Suite("The byte range a request asks for")
struct ByteRangeTests {
  typealias Outcome = Result<ByteRange?, ByteRange.Problem>

  @Test(
    "every form a player sends, cut to the end of the item",
    arguments: [
      (nil, Outcome.success(nil)),
      ("bytes=0-", .success(ByteRange(first: 0, last: 999))),
      ("bytes=0-99", .success(ByteRange(first: 0, last: 99))),
      ("bytes=500-999", .success(ByteRange(first: 500, last: 999))),
      ("bytes=500-5000", .success(ByteRange(first: 500, last: 999))),
      ("bytes=999-", .success(ByteRange(first: 999, last: 999))),
      ("bytes=-100", .success(ByteRange(first: 900, last: 999))),
      ("bytes=-5000", .success(ByteRange(first: 0, last: 999))),
      (" bytes=10-20 ", .success(ByteRange(first: 10, last: 20))),
    ] as [(String?, Outcome)])
  func served(header: String?, expected: Outcome) {
    #expect(ByteRange.requested(by: header, size: 1000) == expected)
  }

  @Test(
    "anything else is one clear refusal",
    arguments: [
      ("bytes=1000-", ByteRange.Problem.unsatisfiable(size: 1000)),
      ("bytes=5000-6000", .unsatisfiable(size: 1000)),
      ("bytes=0-1,5-6", .severalRanges),
      ("items=0-1", .malformed("not in bytes")),
      ("bytes=", .malformed("no dash")),
      ("bytes=5", .malformed("no dash")),
      ("bytes=-0", .malformed("a suffix is a positive number of bytes")),
      ("bytes=-", .malformed("a suffix is a positive number of bytes")),
      ("bytes=20-10", .malformed("it ends before it starts")),
      ("bytes=a-10", .malformed("the start is not a number")),
      ("bytes=+1-10", .malformed("the start is not a number")),
      ("bytes=1-1e3", .malformed("the end is not a number")),
      ("bytes=99999999999999999999-", .malformed("the start is not a number")),
      ("bytes=0-" + String(repeating: "9", count: 200), .malformed("too long")),
    ])
  func refused(header: String, problem: ByteRange.Problem) {
    #expect(ByteRange.requested(by: header, size: 1000) == .failure(problem))
  }

  @Test("an empty item: the whole of it is nothing, any range is past its end")
  func emptyItem() {
    #expect(ByteRange.requested(by: nil, size: 0) == .success(nil))
    #expect(ByteRange.requested(by: "bytes=0-", size: 0) == .failure(.unsatisfiable(size: 0)))
    #expect(ByteRange.requested(by: "bytes=-1", size: 0) == .failure(.unsatisfiable(size: 0)))
  }

  @Test("random headers never make a range outside the item")
  func neverOutside() {
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    func next() -> UInt64 {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return state >> 33
    }
    let alphabet = Array("bytes=-,0123456789 ")
    for _ in 0..<20_000 {
      let size = Int64(next() % 3000)
      let header = String(
        (0..<Int(next() % 16)).map { _ in alphabet[Int(next()) % alphabet.count] })
      if case .success(let range?) = ByteRange.requested(by: header, size: size) {
        #expect(range.first >= 0 && range.last < size && range.first <= range.last, "\(header)")
      }
    }
  }
}
