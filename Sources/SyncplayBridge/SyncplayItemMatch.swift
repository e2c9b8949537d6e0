import Media
import PlaybackCoordination
import SyncplayProtocol

/// Whether the file a Syncplay client has open is the item the group plays. Never by
/// path: by duration (within a second, as Cowatch matches its own participants' files) and
/// by name — the file's name as a title, or the same season and episode numbers as the
/// item. A hashed or hidden name (Syncplay's privacy modes) is matched by duration alone.
public enum SyncplayItemMatch {
  public static let durationTolerance = 1.0

  public static func matches(_ file: SyncplayFile, _ item: ItemInfo, in series: SeriesInfo)
    -> Bool
  {
    let knownDuration = file.duration > 0
    if knownDuration, abs(file.duration - item.duration) > durationTolerance { return false }
    if file.name == SyncplayFile.hiddenName || file.isHashedName { return knownDuration }
    let name = normalised(stem(file.name))
    if name == normalised(item.title) { return true }
    if let fileEpisode = episode(in: name) {
      let itemEpisode =
        episode(in: normalised(item.id.rawValue.split(separator: "/").last.map(String.init) ?? ""))
        ?? episode(in: normalised(item.title))
      if let itemEpisode, itemEpisode == fileEpisode {
        // Numbers alone are ambiguous across series: the series' name must be there too.
        let title = normalised(series.title)
        return title.isEmpty || name.contains(title)
          || name.contains(normalised(series.id.split(separator: "-").joined(separator: " ")))
      }
    }
    return false
  }

  /// The item a Syncplay client's file names, for a room with no session yet: one item,
  /// named after the file, as Syncplay rooms have no catalog. A name with season and
  /// episode numbers ("Night Ferry S01E03 …") gets the id a Cowatch library gives the same
  /// episode in a folder named after the series (`night-ferry/s1e3`), so that Cowatch
  /// people with `--media` play their own copy.
  public static func series(for file: SyncplayFile) -> (SeriesInfo, ItemID)? {
    guard file.duration > 0, !file.isHashedName, file.name != SyncplayFile.hiddenName else {
      return nil
    }
    let title = String(stem(file.name).prefix(120))
    let lower = title.lowercased()
    var seriesTitle = title
    var id: ItemID
    if let m = lower.firstMatch(of: /s(\d{1,3})\s*[ ._-]?\s*e(\d{1,4})/) {
      let prefix = String(title[..<m.range.lowerBound])
      let name = normalised(prefix).isEmpty ? title : cleaned(prefix)
      seriesTitle = name
      let slug = MediaLibrary.slug(name)
      let seriesID = slug.isEmpty ? "syncplay" : slug
      id = ItemID("\(seriesID)/s\(Int(m.1) ?? 1)e\(Int(m.2) ?? 1)")
    } else {
      let slug = MediaLibrary.slug(title)
      id = ItemID("syncplay/\(slug.isEmpty ? "file" : slug)")
    }
    let item = ItemInfo(id: id, title: title, duration: file.duration)
    return (
      SeriesInfo(
        id: id.rawValue.split(separator: "/").first.map(String.init) ?? "syncplay",
        title: seriesTitle, items: [item]), id
    )
  }

  /// Separators as spaces, trimmed ("Night.Ferry." → "Night Ferry").
  static func cleaned(_ text: String) -> String {
    text.split(whereSeparator: { $0 == "." || $0 == "_" || $0 == " " || $0 == "-" })
      .joined(separator: " ")
  }

  /// A file name without its extension (and without a URL's path).
  static func stem(_ name: String) -> String {
    let last = name.split(separator: "/").last.map(String.init) ?? name
    guard let dot = last.lastIndex(of: "."), dot != last.startIndex,
      last.distance(from: dot, to: last.endIndex) <= 6
    else { return last }
    return String(last[..<dot])
  }

  /// Lowercase letters and digits, every other run one space.
  static func normalised(_ text: String) -> String {
    var out = ""
    var space = false
    for character in text.lowercased() {
      if character.isLetter || character.isNumber {
        out.append(character)
        space = false
      } else if !out.isEmpty, !space {
        out.append(" ")
        space = true
      }
    }
    if out.hasSuffix(" ") { out.removeLast() }
    return out
  }

  /// `s01e03`, `s1 e3`, `1x03` as (season, episode).
  static func episode(in normalisedText: String) -> [Int]? {
    if let m = normalisedText.firstMatch(of: /s(\d{1,3}) ?e(\d{1,4})/) {
      return [Int(m.1) ?? 0, Int(m.2) ?? 0]
    }
    if let m = normalisedText.firstMatch(of: /(\d{1,2})x(\d{1,3})/) {
      return [Int(m.1) ?? 0, Int(m.2) ?? 0]
    }
    return nil
  }
}
