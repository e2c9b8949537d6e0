/// What a file is opened with beyond its address, for this file only: a lent file's
/// subtitle, and how far ahead mpv reads a file that comes over the network.
public struct MpvFileOptions: Hashable, Sendable {
  /// An external subtitle file (a path or an address).
  public var subtitle: String?
  /// Seconds of the film mpv reads ahead (`cache-secs`, with the cache on): enough that a
  /// slow moment of the link is not a stall, not so much that the whole film is fetched
  /// at once. Nil: mpv's own choice.
  public var readAhead: Double?

  public init(subtitle: String? = nil, readAhead: Double? = nil) {
    self.subtitle = subtitle
    self.readAhead = readAhead
  }

  /// The `loadfile` options these add (`,sub-files-append=…,cache=yes,cache-secs=…`).
  var loadfileOptions: String {
    var text = ""
    if let subtitle { text += ",sub-files-append=" + MpvCommand.quoted(subtitle) }
    if let readAhead, readAhead.isFinite, readAhead > 0 {
      text += ",cache=yes,cache-secs=\(Int(readAhead.rounded(.up)))"
    }
    return text
  }
}
