import Testing

@testable import Media

@Suite("SRT subtitles")
struct SubtitleTrackTests {
  @Test("parses cues and shows a line at a time")
  func basic() throws {
    let track = try SubtitleTrack.parse(goodSRT)
    #expect(track.cues.count == 2)
    #expect(track.cues[1] == SubtitleCue(index: 2, start: 4, end: 6.5, text: "Goodbye."))
    #expect(track.line(at: 0.5) == nil)
    #expect(track.line(at: 1) == "Hello.")
    #expect(track.line(at: 2.999) == "Hello.")
    #expect(track.line(at: 3) == nil)  // end is exclusive
    #expect(track.line(at: 5) == "Goodbye.")
    #expect(track.line(at: 100) == nil)
  }

  @Test("tolerates a BOM, CRLF, CR, extra blank lines, '.' milliseconds and settings")
  func tolerant() throws {
    let text =
      "\u{FEFF}\r\n\r\n1\r\n00:00:01.5 --> 00:00:02,250 X1:10 X2:20\r\nTwo\r\nlines\r\n\r\n\r\n\r\n2\r00:01:00,000 --> 00:01:01,000\rCR only\r"
    let track = try SubtitleTrack.parse(text)
    #expect(track.cues.count == 2)
    #expect(track.cues[0].start == 1.5)
    #expect(track.cues[0].end == 2.25)
    #expect(track.line(at: 2) == "Two\nlines")
    #expect(track.line(at: 60.5) == "CR only")
  }

  @Test("a missing blank line before the next cue number is tolerated")
  func missingBlankLine() throws {
    let track = try SubtitleTrack.parse(
      "1\n00:00:01,000 --> 00:00:02,000\nA\n2\n00:00:03,000 --> 00:00:04,000\nB\n")
    #expect(track.cues.map(\.text) == ["A", "B"])
  }

  @Test("empty files have no cues")
  func empty() throws {
    #expect(try SubtitleTrack.parse("").isEmpty)
    #expect(try SubtitleTrack.parse("\u{FEFF}\n\n").isEmpty)
  }

  @Test("overlapping and unsorted cues")
  func overlapping() throws {
    let track = try SubtitleTrack.parse(
      """
      2
      00:00:05,000 --> 00:00:06,000
      Later

      1
      00:00:00,000 --> 00:00:10,000
      Long

      3
      00:00:05,500 --> 00:00:07,000
      Overlap

      """)
    #expect(track.cues.map(\.index) == [1, 2, 3])
    #expect(track.line(at: 1) == "Long")
    #expect(track.line(at: 5.7) == "Long\nLater\nOverlap")
    #expect(track.line(at: 6.5) == "Long\nOverlap")
    #expect(track.line(at: 9) == "Long")
  }

  @Test(
    "errors carry the line number",
    arguments: [
      ("1\n00:00:01,000 -> 00:00:02,000\nA\n", 2, SubtitleError.Problem.missingTiming),
      ("1\n00:00:01,000 --> 00:00:02,0000\nA\n", 2, .badTimestamp("00:00:02,0000")),
      ("1\n00:00:01 --> 00:00:02,000\nA\n", 2, .badTimestamp("00:00:01")),
      ("1\n00:00:61,000 --> 00:01:02,000\nA\n", 2, .badTimestamp("00:00:61,000")),
      ("1\n00:00:05,000 --> 00:00:04,000\nA\n", 2, .endBeforeStart(start: 5, end: 4)),
      (
        "1\n00:00:01,000 --> 00:00:02,000\nA\n\n00:00:03,000 --> 00:00:04,000\nB\n", 5,
        .missingIndex
      ),
      (
        "1\n00:00:01,000 --> 00:00:02,000\nA\n\nfoo\n00:00:03,000 --> 00:00:04,000\nB\n", 5,
        .badIndex("foo")
      ),
      (
        "1\n00:00:01,000 --> 00:00:02,000\n\n2\n00:00:03,000 --> 00:00:04,000\nB\n", 2, .missingText
      ),
      ("1\n", 2, .missingTiming),
      ("\r\n\r\n1\r\n00:00:01,000 --> 00:00:0x,000\r\nA\r\n", 4, .badTimestamp("00:00:0x,000")),
    ])
  func errors(text: String, line: Int, problem: SubtitleError.Problem) {
    let error = #expect(throws: SubtitleError.self) {
      try SubtitleTrack.parse(text, fileName: "x.srt")
    }
    #expect(error?.line == line)
    #expect(error?.problem == problem)
    #expect(error?.description.hasPrefix("x.srt:\(line): ") == true)
  }

  @Test("line lookup is a binary search over many cues")
  func many() {
    let cues = (0..<10_000).map {
      SubtitleCue(index: $0 + 1, start: Double($0), end: Double($0) + 0.5, text: "\($0)")
    }
    let track = SubtitleTrack(cues: cues)
    #expect(track.line(at: 7777.25) == "7777")
    #expect(track.line(at: 7777.75) == nil)
    #expect(SubtitleTrack.timestamp(3723.5) == "01:02:03,500")
  }
}
