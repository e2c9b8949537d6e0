import Foundation
import PlaybackCoordination

/// A catalog built from a directory of video files, so that people can watch their own
/// episodes: a folder per series (or one flat folder), episodes in the order of the
/// `S01E02` (or plain episode) numbers in their names, durations read from the files.
///
/// Items are named from the series and episode numbers, never from paths, so that two
/// people with the same episodes in different places (and differently named files) get the
/// same item ids and watch together; each keeps the path of their own file.
public struct MediaLibrary: Sendable {
  public var catalog: Catalog
  /// The local file of each item.
  public var paths: [ItemID: String]
  /// Files that could not be used, with why (unreadable, no duration).
  public var skipped: [(path: String, reason: String)]

  public static let videoExtensions: Set<String> = [
    "mkv", "mp4", "m4v", "webm", "avi", "mov", "mpg", "mpeg", "ts", "wmv", "flv", "ogv",
  ]

  /// Scans `directory`. `duration` reads a file's duration in seconds (nil if it cannot);
  /// it is asked once per file. Throws if the directory cannot be read or holds no
  /// playable file.
  public static func scan(
    _ directory: String, duration: (String) -> Double?
  ) throws(CatalogError) -> MediaLibrary {
    let fm = FileManager.default
    var isDirectory: ObjCBool = false
    guard fm.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue
    else {
      throw .unreadable(file: directory, reason: "not a directory of videos (--media)")
    }
    let root = URL(fileURLWithPath: directory).standardizedFileURL
    // Files directly inside form one series named after the directory; each subfolder
    // with videos is a series of its own.
    var groups: [(title: String, files: [URL])] = []
    let entries =
      ((try? fm.contentsOfDirectory(
        at: root, includingPropertiesForKeys: [.isDirectoryKey], options: [.skipsHiddenFiles]))
      ?? []).sorted { $0.lastPathComponent < $1.lastPathComponent }
    let flat = entries.filter { isVideo($0) }
    if !flat.isEmpty { groups.append((root.lastPathComponent, flat)) }
    for entry in entries
    where (try? entry.resourceValues(forKeys: [.isDirectoryKey]))?
      .isDirectory == true
    {
      let files =
        ((try? fm.contentsOfDirectory(
          at: entry, includingPropertiesForKeys: nil, options: [.skipsHiddenFiles])) ?? [])
        .filter { isVideo($0) }.sorted { $0.lastPathComponent < $1.lastPathComponent }
      if !files.isEmpty { groups.append((entry.lastPathComponent, files)) }
    }
    var series: [CatalogSeries] = []
    var paths: [ItemID: String] = [:]
    var skipped: [(String, String)] = []
    var usedSeriesIDs: Set<String> = []
    for group in groups {
      var seriesID = slug(group.title)
      if seriesID.isEmpty { seriesID = "series" }
      var n = 2
      let base = seriesID
      while usedSeriesIDs.contains(seriesID) {
        seriesID = "\(base)-\(n)"
        n += 1
      }
      usedSeriesIDs.insert(seriesID)
      var numbered: [(key: EpisodeNumber, file: URL)] = []
      for (index, file) in group.files.enumerated() {
        numbered.append(
          (episodeNumber(file.deletingPathExtension().lastPathComponent, index), file))
      }
      numbered.sort { $0.key < $1.key }
      var items: [CatalogItem] = []
      var usedEpisodes: Set<String> = []
      for (key, file) in numbered {
        guard let seconds = duration(file.path), seconds.isFinite, seconds > 0 else {
          skipped.append((file.path, "its duration could not be read (not a playable video?)"))
          continue
        }
        var episode = "s\(key.season)e\(key.episode)"
        var k = 2
        while usedEpisodes.contains(episode) {
          episode = "s\(key.season)e\(key.episode)-\(k)"
          k += 1
        }
        usedEpisodes.insert(episode)
        let id = ItemID("\(seriesID)/\(episode)")
        items.append(
          CatalogItem(
            id: id, title: title(file.deletingPathExtension().lastPathComponent), duration: seconds)
        )
        paths[id] = file.path
      }
      if !items.isEmpty {
        series.append(CatalogSeries(id: seriesID, title: group.title, items: items))
      }
    }
    guard !series.isEmpty else {
      throw .unreadable(
        file: directory,
        reason:
          "no playable video files in it or its folders (\(videoExtensions.sorted().joined(separator: ", ")))"
      )
    }
    return MediaLibrary(
      catalog: Catalog(series: series, fileName: directory, baseDirectory: directory),
      paths: paths, skipped: skipped)
  }

  static func isVideo(_ url: URL) -> Bool {
    videoExtensions.contains(url.pathExtension.lowercased())
  }

  struct EpisodeNumber: Comparable {
    var season: Int
    var episode: Int
    /// Files without numbers keep their name order after the numbered ones.
    var order: Int
    static func < (a: Self, b: Self) -> Bool {
      (a.season, a.episode, a.order) < (b.season, b.episode, b.order)
    }
  }

  /// `S01E02`, `1x02` or a lone number (`Episode 7`); else the name's place in the folder.
  static func episodeNumber(_ name: String, _ index: Int) -> EpisodeNumber {
    let lower = name.lowercased()
    if let m = lower.firstMatch(of: /s(\d{1,3})\s*[ ._-]?\s*e(\d{1,4})/) {
      return EpisodeNumber(season: Int(m.1) ?? 1, episode: Int(m.2) ?? 1, order: index)
    }
    if let m = lower.firstMatch(of: /(\d{1,2})x(\d{1,3})/) {
      return EpisodeNumber(season: Int(m.1) ?? 1, episode: Int(m.2) ?? 1, order: index)
    }
    if let m = lower.firstMatch(of: /(\d{1,4})/) {
      return EpisodeNumber(season: 1, episode: Int(m.1) ?? 1, order: index)
    }
    return EpisodeNumber(season: 1, episode: 10_000 + index, order: index)
  }

  /// A file name as a title: separators as spaces.
  static func title(_ name: String) -> String {
    let spaced = name.replacingOccurrences(of: "_", with: " ").replacingOccurrences(
      of: ".", with: " ")
    let words = spaced.split(separator: " ", omittingEmptySubsequences: true)
    let joined = words.joined(separator: " ")
    return String(joined.prefix(200))
  }

  /// Lowercase letters and digits, other runs as one '-' (series ids; a Syncplay client's
  /// file is named the same way, so that both find the same episode).
  public static func slug(_ name: String) -> String {
    var out = ""
    var dash = false
    for scalar in name.lowercased().unicodeScalars {
      if scalar.isASCII, CharacterSet.alphanumerics.contains(scalar) {
        out.unicodeScalars.append(scalar)
        dash = false
      } else if !out.isEmpty, !dash {
        out += "-"
        dash = true
      }
    }
    while out.hasSuffix("-") { out.removeLast() }
    return String(out.prefix(64))
  }
}
