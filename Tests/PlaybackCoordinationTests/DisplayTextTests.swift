import PlaybackCoordination
import Testing

@Suite("Text peers choose is bounded and safe")
struct DisplayTextTests {
  static func series(
    id: String = "s", title: String = "T", itemID: String = "s/1", itemTitle: String = "One"
  )
    -> SeriesInfo
  {
    SeriesInfo(
      id: id, title: title, items: [ItemInfo(id: ItemID(itemID), title: itemTitle, duration: 60)])
  }

  @Test(
    "a series with an overlong or unsafe id or title is refused and changes nothing",
    arguments: [
      series(id: String(repeating: "x", count: 129)),
      series(id: ""),
      series(title: String(repeating: "é", count: 129)),
      series(title: "evil\u{202E}txt"),
      series(itemID: "s/\u{1B}[2J"),
      series(itemTitle: "line\u{2028}break"),
      series(itemTitle: "bell\u{7}"),
      series(itemTitle: "c1\u{85}"),
    ])
  func badSeries(series: SeriesInfo) {
    var h = Harness.room()
    let rejection = h.rejected(.start(series: series, item: series.items[0].id), alice, at: 1)
    #expect(Self.isInvalidValue(rejection), "\(String(describing: rejection))")
  }

  static func isInvalidValue(_ rejection: Rejection?) -> Bool {
    if case .invalidValue = rejection { true } else { false }
  }

  @Test("the longest allowed ids and titles, in any script, are accepted")
  func longestAccepted() {
    var h = Harness.room()
    let id = String(repeating: "i", count: DisplayText.maximumIdentifierBytes)
    let title = String(repeating: "雪", count: DisplayText.maximumTitleBytes / 3)
    let s = Self.series(id: id, title: title, itemID: id, itemTitle: title)
    h.ok(.start(series: s, item: ItemID(id)), alice, at: 1)
    #expect(h.session.series.title == title)
  }

  @Test(
    "a suspension reason is 1 to 64 bytes of safe text",
    arguments: [
      "", String(repeating: "a", count: 65), String(repeating: "é", count: 33), "a\u{1B}b",
      "\u{200F}",
    ])
  func badReasons(reason: String) {
    var h = Harness.playing()
    let rejection = h.rejected(.beginSuspension(SuspensionReason(reason)), bob, at: 10)
    #expect(Self.isInvalidValue(rejection), "\(String(describing: rejection))")
  }

  @Test("a participant holds at most 8 suspensions at once; ending one makes room")
  func suspensionCount() {
    var h = Harness.playing()
    for i in 0..<DisplayText.maximumSuspensions {
      h.ok(.beginSuspension(SuspensionReason("reason \(i)")), bob, at: 10)
    }
    #expect(Self.isInvalidValue(h.rejected(.beginSuspension("one too many"), bob, at: 11)))
    // A reason already held is still a no-op, not a refusal.
    #expect(h.ok(.beginSuspension("reason 0"), bob, at: 12).isEmpty)
    h.ok(.endSuspension("reason 3", proposing: nil), bob, at: 13)
    h.ok(.beginSuspension("one more"), bob, at: 14)
    #expect(h.participant(bob).suspensions.count == DisplayText.maximumSuspensions)
  }
}
