import Foundation
import Lending
import Testing

@Suite("Lending: who may read what")
struct LendingBookTests {
  static let token = "0123456789abcdef0123456789abcdef"
  static let other = "fedcba9876543210fedcba9876543210"
  static let watched: Set<String> = ["night-ferry/s1e1", "night-ferry/s1e2"]

  func ask(
    _ book: inout LendingBook, _ item: String = "night-ferry/s1e1", from: String = "carol",
    isMember: Bool = true, has: Bool = true, token: String = LendingBookTests.token
  ) -> LendingBook.Answer {
    book.request(
      item: item, from: from, named: from, isMember: isMember, watched: Self.watched, has: has,
      name: "Night.Ferry S01E01.mp4", token: token)
  }

  @Test("a member without the item is granted the one item, at a path only the grant reads")
  func granted() throws {
    var book = LendingBook(lends: true)
    guard case .granted(let grant) = ask(&book) else {
      Issue.record("not granted")
      return
    }
    #expect(grant.path == "/\(Self.token)/Night.Ferry_S01E01.mp4")
    #expect(book.grant(forPath: grant.path) == grant)
    #expect(book.borrowers == ["night-ferry/s1e1": ["carol"]])
    // Asked again: the same grant, not a second one.
    #expect(ask(&book, token: Self.other) == .granted(grant))
    #expect(book.all.count == 1)
  }

  @Test(
    "refused in words: lending off, a non-member, an item the group does not watch, one this machine lacks"
  )
  func refusals() {
    var off = LendingBook(lends: false)
    #expect(ask(&off) == .refused("they do not lend their copies"))
    var book = LendingBook(lends: true)
    #expect(ask(&book, isMember: false) == .refused("only members of the room borrow"))
    #expect(
      ask(&book, "night-ferry/s1e9")
        == .refused("only what the group watches, or plays next, is lent"))
    #expect(ask(&book, has: false) == .refused("they have no copy of it"))
    #expect(ask(&book, token: "not-a-token") == .refused("no secret for a grant"))
    #expect(book.all.isEmpty, "nothing granted by a refusal")
  }

  @Test("subtitle files lent with the item have paths of the grant's own; nothing else reads them")
  func subtitlePaths() throws {
    var book = LendingBook(lends: true)
    let answer = book.request(
      item: "night-ferry/s1e1", from: "p2", named: "carol", isMember: true,
      watched: ["night-ferry/s1e1"], has: true, name: "a.mp4", token: Self.token,
      subtitles: ["a.en.srt", "a fr.srt", "a.en.srt"])
    guard case .granted(let grant) = answer else { throw CancellationError() }
    #expect(
      grant.subtitlePaths == ["/\(Self.token)/sub/a.en.srt", "/\(Self.token)/sub/a_fr.srt"],
      "names made safe, none twice")
    #expect(book.grant(forSubtitlePath: "/\(Self.token)/sub/a_fr.srt")?.index == 1)
    #expect(book.grant(forSubtitlePath: "/\(Self.token)/sub/a_fr.srt")?.grant == grant)
    #expect(book.grant(forPath: "/\(Self.token)/sub/a.en.srt") == nil, "not the item's path")
    #expect(book.grant(forSubtitlePath: grant.path) == nil)
    #expect(book.grant(forSubtitlePath: "/\(Self.other)/sub/a.en.srt") == nil)
    var plain = LendingBook(lends: true)
    _ = plain.request(
      item: "night-ferry/s1e1", from: "p2", named: "carol", isMember: true,
      watched: ["night-ferry/s1e1"], has: true, name: "a.mp4", token: Self.token)
    #expect(plain.grant(forSubtitlePath: "/\(Self.token)/sub/a.en.srt") == nil)
  }

  @Test("paths that are not a grant's read nothing: another token, another name, a path, garbage")
  func onlyGrantsRead() throws {
    var book = LendingBook(lends: true)
    guard case .granted(let grant) = ask(&book) else { return }
    for path in [
      "/\(Self.other)/Night.Ferry_S01E01.mp4", "/\(Self.token)/other.mp4", "/\(Self.token)",
      "/\(Self.token)/", "/", "", "/../etc/passwd", "/\(Self.token)/Night.Ferry_S01E01.mp4/x",
      "\(Self.token)/Night.Ferry_S01E01.mp4", "/\(Self.token.uppercased())/Night.Ferry_S01E01.mp4",
    ] {
      #expect(book.grant(forPath: path) == nil, "\(path)")
    }
    #expect(book.grant(forPath: grant.path) != nil)
  }

  @Test("a borrower who leaves, an item the group left, lending turned off: the grants go")
  func revoked() throws {
    var book = LendingBook(lends: true)
    guard case .granted(let first) = ask(&book),
      case .granted(let next) = ask(&book, "night-ferry/s1e2", token: Self.other),
      case .granted(let bobs) = ask(&book, from: "bob", token: String(repeating: "1", count: 32))
    else {
      Issue.record("not granted")
      return
    }
    #expect(book.revoke(borrower: "carol") == [first, next])
    #expect(book.grant(forPath: first.path) == nil)
    #expect(book.grant(forPath: bobs.path) == bobs)
    #expect(book.keep(only: ["night-ferry/s1e2"]) == [bobs])
    #expect(book.all.isEmpty)
    guard case .granted(let again) = ask(&book, "night-ferry/s1e2") else { return }
    #expect(book.setLends(false) == [again])
    #expect(book.grant(forPath: again.path) == nil)
    #expect(ask(&book, "night-ferry/s1e2") == .refused("they do not lend their copies"))
  }

  @Test("bounded: a few grants per borrower, and a table of bounded size however many ask")
  func bounded() {
    var book = LendingBook(lends: true)
    let items = (1...10).map { "item\($0)" }
    var granted = 0
    for (index, item) in items.enumerated() {
      let token = String(format: "%032x", index + 1)
      if case .granted = book.request(
        item: item, from: "carol", named: "carol", isMember: true, watched: Set(items), has: true,
        name: item, token: token)
      {
        granted += 1
      }
    }
    #expect(granted == LendingBook.maximumGrantsPerBorrower)
    for index in 0..<200 {
      _ = book.request(
        item: "item1", from: "m\(index)", named: "m\(index)", isMember: true, watched: ["item1"],
        has: true, name: "x", token: String(format: "%032x", 1000 + index))
    }
    #expect(book.all.count == LendingBook.maximumGrants)
  }
}
