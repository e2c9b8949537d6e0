/// What a file is opened with beyond its address, for this file only: a lent file's
/// subtitles, and how far ahead mpv reads a file that comes over the network.
public struct MpvFileOptions: Hashable, Sendable {
  /// External subtitle files, as paths on this machine (mpv takes them as a list of
  /// paths, `:` between them: a path holding one is left out).
  public var subtitles: [String]
  /// Seconds of the film mpv reads ahead (`cache-secs`, with the cache on): enough that a
  /// slow moment of the link is not a stall, not so much that the whole film is fetched
  /// at once. Nil: mpv's own choice.
  public var readAhead: Double?

  public init(subtitles: [String] = [], readAhead: Double? = nil) {
    self.subtitles = subtitles
    self.readAhead = readAhead
  }

  /// The `loadfile` options these add (`,sub-files=…,cache=yes,cache-secs=…`).
  var loadfileOptions: String {
    var text = ""
    let files = subtitles.filter { !$0.isEmpty && !$0.contains(":") }
    if !files.isEmpty {
      text += ",sub-files=" + MpvCommand.quoted(files.joined(separator: ":"))
    }
    if let readAhead, readAhead.isFinite, readAhead > 0 {
      text += ",cache=yes,cache-secs=\(Int(readAhead.rounded(.up)))"
    }
    return text
  }
}
