import PlaybackCoordination
import Testing

@Suite("Links: an item whose id is a URL each player opens itself")
struct LinkItemTests {
  static func link(_ url: String) -> SeriesInfo {
    LinkItem.series(for: ItemInfo(id: ItemID(url), title: "Harbour Lights", duration: 5400))
  }

  @Test("a link is started like an episode: a series of one named after its host")
  func started() {
    var h = Harness.room()
    let url = "https://media.example.org:8443/films/harbour.mkv?t=1#x"
    h.ok(.start(series: Self.link(url), item: ItemID(url)), alice, at: 1)
    #expect(h.session.series.id == "link")
    #expect(h.session.series.title == "media.example.org")
    #expect(h.session.item.title == "Harbour Lights")
    #expect(LinkItem.isLink(h.session.item.id))
  }

  @Test("a link may be far longer than a file's id, up to 2048 bytes")
  func long() {
    var h = Harness.room()
    let base = "https://media.example.org/?v="
    let url = base + String(repeating: "a", count: LinkItem.maximumBytes - base.utf8.count)
    h.ok(.start(series: Self.link(url), item: ItemID(url)), alice, at: 1)
    // A file's id stays within 128 bytes.
    let long = String(repeating: "i", count: 129)
    let file = SeriesInfo(
      id: "s", title: "", items: [ItemInfo(id: ItemID(long), title: "x", duration: 60)])
    #expect(
      DisplayTextTests.isInvalidValue(
        h.rejected(.queueAdd(series: file, item: ItemID(long)), alice, at: 2)))
  }

  @Test(
    "a link that is too long, holds spaces or controls, or names no host is refused and changes nothing",
    arguments: [
      "https://media.example.org/?v=" + String(repeating: "a", count: 2048),
      "https://media.example.org/a film.mkv",
      "https://media.example.org/\u{1B}[2J",
      "https://",
      "http:///path",
    ])
  func refused(url: String) {
    var h = Harness.room()
    let rejection = h.rejected(.start(series: Self.link(url), item: ItemID(url)), alice, at: 1)
    #expect(DisplayTextTests.isInvalidValue(rejection), "\(String(describing: rejection))")
    #expect(h.state.session == nil)
  }

  @Test("hosts are read from what a URL may hold")
  func hosts() {
    #expect(LinkItem.host(of: "https://www.youtube.com/watch?v=abc") == "www.youtube.com")
    #expect(LinkItem.host(of: "http://ann:secret@10.0.0.2:8080/a.mkv") == "10.0.0.2")
    #expect(LinkItem.host(of: "http://[::1]:8080/a.mkv") == "::1")
    #expect(LinkItem.host(of: "HTTPS://Example.org") == "Example.org")
    #expect(LinkItem.isLink("HTTPS://Example.org"))
    #expect(!LinkItem.isLink("harbour/s1e1"))
    #expect(
      LinkItem.problem(with: "ftp://example.org/a") == "a link starts with http:// or https://")
  }
}
