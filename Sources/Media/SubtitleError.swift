/// A subtitle file that cannot be used, with the line (1-based) where the problem is.
public struct SubtitleError: Error, CustomStringConvertible, Hashable, Sendable {
  public enum Problem: Hashable, Sendable {
    /// The file could not be read or is not UTF-8.
    case unreadable(String)
    /// A cue starts with something that is not its number.
    case badIndex(String)
    /// A cue starts with its timing line: the number before it is missing.
    case missingIndex
    /// The line after a cue's number is not `start --> end`.
    case missingTiming
    /// A time is not `HH:MM:SS,mmm`.
    case badTimestamp(String)
    /// The cue ends before it starts.
    case endBeforeStart(start: Double, end: Double)
    /// The cue has a number and a timing line but no text.
    case missingText
  }

  /// The subtitle file, as the caller named it.
  public var file: String
  /// 1-based line in `file`.
  public var line: Int
  public var problem: Problem

  public init(file: String, line: Int, problem: Problem) {
    self.file = file
    self.line = line
    self.problem = problem
  }

  public var description: String {
    let what: String
    switch problem {
    case .unreadable(let reason): what = "cannot read subtitles: \(reason)"
    case .badIndex(let text): what = "expected a cue number, found '\(text)'"
    case .missingIndex: what = "cue number missing before the timing line"
    case .missingTiming: what = "expected a timing line 'HH:MM:SS,mmm --> HH:MM:SS,mmm'"
    case .badTimestamp(let text): what = "bad timestamp '\(text)' (expected HH:MM:SS,mmm)"
    case .endBeforeStart(let start, let end):
      what =
        "cue ends (\(SubtitleTrack.timestamp(end))) before it starts (\(SubtitleTrack.timestamp(start)))"
    case .missingText: what = "cue has no text"
    }
    return "\(file):\(line): \(what)"
  }
}
