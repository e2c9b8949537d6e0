import PlaybackCoordination

/// Short names for items: `harbour/s1e3` → `S1E3`.
public enum EpisodeLabel {
  /// `S1E3` for an id ending in an `s1e3`-like component, else the last component as is.
  public static func code(_ id: ItemID) -> String {
    let last = id.rawValue.split(separator: "/").last.map(String.init) ?? id.rawValue
    let lower = last.lowercased()
    var rest = Substring(lower)
    guard rest.first == "s" else { return last }
    rest = rest.dropFirst()
    let season = rest.prefix { $0.isNumber }
    rest = rest.dropFirst(season.count)
    guard !season.isEmpty, rest.first == "e" else { return last }
    rest = rest.dropFirst()
    let episode = rest.prefix { $0.isNumber }
    guard !episode.isEmpty, episode.count == rest.count else { return last }
    return last.uppercased()
  }

  /// `S1E3 · The Storm`; the title alone when the id has no episode code.
  public static func describe(_ item: ItemInfo) -> String {
    guard let c = episodeCode(item.id) else {
      return item.title.isEmpty ? item.id.rawValue : item.title
    }
    return item.title.isEmpty ? c : "\(c) · \(item.title)"
  }

  /// `S1E3` when the id ends in such a code.
  public static func episodeCode(_ id: ItemID) -> String? {
    let c = code(id)
    return c == c.uppercased() && c.first == "S" && c.contains("E") && c.last?.isNumber == true
      ? c : nil
  }
}
