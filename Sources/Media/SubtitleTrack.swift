import Foundation

/// The subtitles of one item, parsed from SRT. Cues are kept sorted by start so that the
/// line shown at a time is found by binary search (the screen asks ten times a second).
public struct SubtitleTrack: Hashable, Sendable {
  /// Sorted by start time (stable for equal starts).
  public let cues: [SubtitleCue]
  /// `maxEnd[i]` = the latest end among `cues[0...i]`: bounds the backward walk over
  /// overlapping cues.
  private let maxEnd: [Double]

  public init(cues: [SubtitleCue]) {
    let sorted = cues.enumerated().sorted {
      ($0.element.start, $0.offset) < ($1.element.start, $1.offset)
    }.map(\.element)
    self.cues = sorted
    var running = -Double.infinity
    self.maxEnd = sorted.map { cue in
      running = max(running, cue.end)
      return running
    }
  }

  public var isEmpty: Bool { cues.isEmpty }

  /// The cues showing at `time`, in start order (usually zero or one).
  public func cues(at time: Double) -> [SubtitleCue] {
    // First cue starting after `time`.
    var low = 0
    var high = cues.count
    while low < high {
      let mid = (low + high) / 2
      if cues[mid].start <= time { low = mid + 1 } else { high = mid }
    }
    var active: [SubtitleCue] = []
    var i = low - 1
    while i >= 0, maxEnd[i] > time {
      if cues[i].contains(time) { active.append(cues[i]) }
      i -= 1
    }
    return active.reversed()
  }

  /// The text shown at `time` (overlapping cues joined by a line break), or nil.
  public func line(at time: Double) -> String? {
    let active = cues(at: time)
    if active.isEmpty { return nil }
    return active.map(\.text).joined(separator: "\n")
  }

  // MARK: - Parsing

  /// Reads and parses an SRT file; errors name `path`.
  public static func load(path: String) throws(SubtitleError) -> SubtitleTrack {
    let data: Data
    do {
      data = try Data(contentsOf: URL(fileURLWithPath: path))
    } catch {
      throw SubtitleError(
        file: path, line: 1, problem: .unreadable("\(error.localizedDescription)"))
    }
    guard let text = String(data: data, encoding: .utf8) else {
      throw SubtitleError(file: path, line: 1, problem: .unreadable("not UTF-8 text"))
    }
    return try parse(text, fileName: path)
  }

  /// Parses SRT text: numbered cues, each `number`, `start --> end`, one or more text
  /// lines, separated by blank lines. Tolerates a byte-order mark, CRLF or CR line ends,
  /// extra blank lines, `.` instead of `,` before the milliseconds, position settings after
  /// the end time, and a missing blank line before the next cue's number.
  public static func parse(_ text: String, fileName: String = "<subtitles>") throws(SubtitleError)
    -> SubtitleTrack
  {
    var body = Substring(text)
    if body.first == "\u{FEFF}" { body = body.dropFirst() }
    let lines = body.split(omittingEmptySubsequences: false) {
      $0 == "\n" || $0 == "\r\n" || $0 == "\r"
    }.map { $0.trimmingCharacters(in: .whitespaces) }

    func fail(_ index: Int, _ problem: SubtitleError.Problem) -> SubtitleError {
      SubtitleError(file: fileName, line: index + 1, problem: problem)
    }
    func isCueNumber(_ i: Int) -> Bool {
      i + 1 < lines.count && !lines[i].isEmpty && lines[i].allSatisfy(\.isASCIIDigitChar)
        && lines[i + 1].contains("-->")
    }

    var cues: [SubtitleCue] = []
    var i = 0
    while i < lines.count {
      if lines[i].isEmpty {
        i += 1
        continue
      }
      if lines[i].contains("-->") { throw fail(i, .missingIndex) }
      guard let number = Int(lines[i]) else { throw fail(i, .badIndex(lines[i])) }
      i += 1
      guard i < lines.count, lines[i].contains("-->") else { throw fail(i, .missingTiming) }
      let (start, end) = try timing(lines[i], line: i + 1, fileName: fileName)
      let timingLine = i
      i += 1
      var textLines: [String] = []
      while i < lines.count, !lines[i].isEmpty, !isCueNumber(i) {
        textLines.append(lines[i])
        i += 1
      }
      if textLines.isEmpty { throw fail(timingLine, .missingText) }
      cues.append(
        SubtitleCue(index: number, start: start, end: end, text: textLines.joined(separator: "\n")))
    }
    return SubtitleTrack(cues: cues)
  }

  private static func timing(_ line: String, line number: Int, fileName: String)
    throws(SubtitleError)
    -> (Double, Double)
  {
    let parts = line.components(separatedBy: "-->")
    guard parts.count == 2 else {
      throw SubtitleError(file: fileName, line: number, problem: .missingTiming)
    }
    let startText = parts[0].trimmingCharacters(in: .whitespaces)
    // Anything after the end time (position settings) is ignored.
    let endText =
      parts[1].split(separator: " ", omittingEmptySubsequences: true).first.map(String.init) ?? ""
    guard let start = seconds(startText) else {
      throw SubtitleError(file: fileName, line: number, problem: .badTimestamp(startText))
    }
    guard let end = seconds(endText) else {
      throw SubtitleError(file: fileName, line: number, problem: .badTimestamp(endText))
    }
    if end < start {
      throw SubtitleError(
        file: fileName, line: number, problem: .endBeforeStart(start: start, end: end))
    }
    return (start, end)
  }

  /// `HH:MM:SS,mmm` (also `.` for `,`, 1–3 fraction digits, any number of hour digits).
  static func seconds(_ text: String) -> Double? {
    let clock = text.split(separator: ":", omittingEmptySubsequences: false)
    guard clock.count == 3 else { return nil }
    let secondsPart = clock[2].split(maxSplits: 1, omittingEmptySubsequences: false) {
      $0 == "," || $0 == "."
    }
    guard secondsPart.count == 2, (1...3).contains(secondsPart[1].count) else { return nil }
    let fields = [clock[0], clock[1], secondsPart[0], secondsPart[1]]
    guard fields.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCIIDigitChar) }),
      let h = Int(clock[0]), let m = Int(clock[1]), let s = Int(secondsPart[0]),
      let frac = Int(secondsPart[1]), m < 60, s < 60
    else { return nil }
    let scale = [1, 10, 100, 1000][secondsPart[1].count]
    return Double(h * 3600 + m * 60 + s) + Double(frac) / Double(scale)
  }

  /// Formats seconds as an SRT timestamp, `HH:MM:SS,mmm`.
  public static func timestamp(_ seconds: Double) -> String {
    let ms = Int((max(0, seconds) * 1000).rounded())
    let h = ms / 3_600_000
    let m = ms / 60_000 % 60
    let s = ms / 1000 % 60
    func pad(_ v: Int, _ n: Int) -> String {
      let t = String(v)
      return String(repeating: "0", count: max(0, n - t.count)) + t
    }
    return "\(pad(h, 2)):\(pad(m, 2)):\(pad(s, 2)),\(pad(ms % 1000, 3))"
  }
}

extension Character {
  fileprivate var isASCIIDigitChar: Bool { ("0"..."9").contains(self) }
}
