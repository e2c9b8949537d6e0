/// An item that is a link — an `http(s)://` URL each participant's player opens itself
/// (mpv plays it, and the sites yt-dlp knows, when installed) — rather than a file of one's
/// own. Its id is the URL itself, so that every replica, the store and the queue carry it
/// with no new field, and a player can open it from the id alone. It is watched as a
/// series of one, named after the link's host.
public enum LinkItem {
  /// The longest link, bytes (item ids of files stay within
  /// ``DisplayText/maximumIdentifierBytes``).
  public static let maximumBytes = 2048
  /// The series id of every link's series of one.
  public static let seriesID = "link"

  /// Whether `id` is a link rather than an item of a catalog.
  public static func isLink(_ id: ItemID) -> Bool { isLink(id.rawValue) }

  public static func isLink(_ text: String) -> Bool {
    let lower = text.prefix(8).lowercased()
    return lower.hasPrefix("http://") || lower.hasPrefix("https://")
  }

  /// Why `text` cannot be a link, or nil when it can: http or https, a host, no spaces,
  /// within ``maximumBytes``.
  public static func problem(with text: String) -> String? {
    guard isLink(text) else { return "a link starts with http:// or https://" }
    guard text.utf8.count <= maximumBytes else {
      return "a link is at most \(maximumBytes) bytes"
    }
    guard
      !text.unicodeScalars.contains(where: {
        DisplayText.isUnsafe($0) || $0.properties.isWhitespace
      })
    else { return "a link holds no spaces or control characters" }
    guard !host(of: text).isEmpty else { return "a link names a host" }
    return nil
  }

  /// The host a link names ("www.example.org"), or "" when it names none.
  public static func host(of text: String) -> String {
    let parts = text.split(separator: "://", maxSplits: 1, omittingEmptySubsequences: false)
    guard parts.count == 2 else { return "" }
    let rest = parts[1]
    let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
    let hostAndPort = authority.split(separator: "@").last.map(String.init) ?? ""
    if hostAndPort.hasPrefix("[") {
      return String(hostAndPort.prefix { $0 != "]" }.dropFirst())
    }
    return String(hostAndPort.prefix { $0 != ":" })
  }

  /// The link's series of one: its host as the series' title, the item as given (its
  /// title and duration as the starter's player read them).
  public static func series(for item: ItemInfo) -> SeriesInfo {
    SeriesInfo(id: seriesID, title: host(of: item.id.rawValue), items: [item])
  }
}
