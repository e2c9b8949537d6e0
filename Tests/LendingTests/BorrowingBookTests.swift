import Lending
import Testing

@Suite("Lending: a borrower's side")
struct BorrowingBookTests {
  static let item = "night-ferry/s1e1"
  static let url = "https://10.0.0.2:4000/0123456789abcdef0123456789abcdef/x.mp4"

  @Test("asks once, opens the first grant, and is ready once it is open")
  func firstGrant() {
    var book = BorrowingBook()
    #expect(book.need(Self.item, now: 0) == [.ask(item: Self.item)])
    #expect(book.need(Self.item, now: 1).isEmpty, "asked once")
    #expect(
      book.answered(
        item: Self.item, by: "p2", named: "bob", url: nil, fingerprint: nil,
        refusal: "they do not lend their copies", now: 2
      ).isEmpty)
    #expect(
      book.answered(
        item: Self.item, by: "p3", named: "ann", url: Self.url, fingerprint: "SHA256:x",
        refusal: nil, now: 3)
        == [.open(item: Self.item, url: Self.url, fingerprint: "SHA256:x", lender: "p3")])
    // A second grant while the first opens is not taken.
    #expect(
      book.answered(
        item: Self.item, by: "p4", named: "cat", url: Self.url, fingerprint: "SHA256:y",
        refusal: nil, now: 4
      ).isEmpty)
    #expect(book.items[Self.item]?.lenderName == "ann")
    #expect(book.opened(item: Self.item, url: "http://127.0.0.1:5/t/x.mp4").isEmpty)
    #expect(
      book.items[Self.item]
        == .ready(url: "http://127.0.0.1:5/t/x.mp4", lender: "p3", lenderName: "ann"))
  }

  @Test("nobody answers in time: lent by nobody, with the last refusal heard as the reason")
  func nobodyLends() {
    var book = BorrowingBook()
    _ = book.need(Self.item, now: 0)
    #expect(book.nextDeadline == BorrowingBook.answerWait)
    _ = book.tick(now: BorrowingBook.answerWait - 1)
    #expect(book.items[Self.item] == .asking(since: 0))
    #expect(book.tick(now: BorrowingBook.answerWait) == [.close(item: Self.item)])
    #expect(book.items[Self.item] == .unavailable("nobody in the room lends it"))
    var refused = BorrowingBook()
    _ = refused.need(Self.item, now: 0)
    _ = refused.answered(
      item: Self.item, by: "p2", named: "bob", url: nil, fingerprint: nil,
      refusal: "they do not lend their copies", now: 1)
    _ = refused.tick(now: BorrowingBook.answerWait)
    #expect(refused.items[Self.item] == .unavailable("bob: they do not lend their copies"))
    #expect(refused.nextDeadline == nil)
  }

  /// A book that asked at 0, was granted ann's (p3) copy at 1 and opened it.
  static func readingAnns() -> BorrowingBook {
    var book = BorrowingBook()
    _ = book.need(item, now: 0)
    _ = book.answered(
      item: item, by: "p3", named: "ann", url: url, fingerprint: "f", refusal: nil, now: 1)
    _ = book.opened(item: item, url: "http://127.0.0.1:5/t/x")
    return book
  }

  @Test(
    "the lender leaves, or its copy fails: the player's side is kept for the next copy, the others are asked, never it again"
  )
  func anotherLender() {
    var book = Self.readingAnns()
    #expect(book.left("p9", now: 2).isEmpty, "someone else left")
    #expect(book.left("p3", now: 2) == [.release(item: Self.item), .ask(item: Self.item)])
    _ = book.answered(
      item: Self.item, by: "p4", named: "bob", url: Self.url, fingerprint: "g", refusal: nil,
      now: 3)
    #expect(
      book.failed(item: Self.item, because: "the connection to the lender closed", now: 4)
        == [.release(item: Self.item), .ask(item: Self.item)])
    // bob answers again: not taken (his copy failed); nobody else: why is said.
    #expect(
      book.answered(
        item: Self.item, by: "p4", named: "bob", url: Self.url, fingerprint: "g",
        refusal: nil, now: 5
      ).isEmpty)
    #expect(book.tick(now: 4 + BorrowingBook.answerWait) == [.close(item: Self.item)])
    #expect(
      book.items[Self.item]
        == .unavailable("bob's copy: the connection to the lender closed"))
  }

  @Test(
    "the lender takes back what it lent: another's copy is asked for; others' refusals change nothing"
  )
  func takenBack() {
    var book = Self.readingAnns()
    let late = book.answered(
      item: Self.item, by: "p4", named: "bob", url: nil, fingerprint: nil,
      refusal: "they do not lend their copies", now: 2)
    #expect(late.isEmpty, "bob's late refusal is not ann taking hers back")
    #expect(
      book.answered(
        item: Self.item, by: "p3", named: "ann", url: nil, fingerprint: nil,
        refusal: LendingBook.stoppedLending, now: 3)
        == [.release(item: Self.item), .ask(item: Self.item)])
    #expect(book.items[Self.item] == .asking(since: 3))
  }

  @Test(
    "the group moves on: what was borrowed for another item is closed; a bounded number at once")
  func movesOn() {
    var book = BorrowingBook()
    for index in 0..<10 { _ = book.need("item\(index)", now: 0) }
    #expect(book.items.count == BorrowingBook.maximumItems)
    #expect(book.keep(only: ["item0"]).count == BorrowingBook.maximumItems - 1)
    #expect(Array(book.items.keys) == ["item0"])
  }
}
