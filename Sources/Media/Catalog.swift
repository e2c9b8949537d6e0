import Foundation
import PlaybackCoordination
import Yams

/// What can be watched: series of items with durations and subtitles, read from a YAML file
/// people edit by hand (`Media/catalog.yaml`).
///
/// ```yaml
/// series:
///   - id: harbour
///     title: Harbour Lights
///     items:
///       - id: harbour/s1e1
///         title: The Lamp Goes Out
///         duration: "2:30"              # m:ss, h:mm:ss or seconds
///         subtitles: subtitles/harbour/s1e1.srt   # optional, relative to the catalog
/// ```
public struct Catalog: Hashable, Sendable {
  /// In file order.
  public var series: [CatalogSeries]
  /// The file it was read from, as named to ``load(from:)`` or ``parse(yaml:baseDirectory:fileName:)``.
  public var fileName: String
  /// The directory subtitle paths are relative to.
  public var baseDirectory: String

  public init(series: [CatalogSeries], fileName: String = "<catalog>", baseDirectory: String = ".")
  {
    self.series = series
    self.fileName = fileName
    self.baseDirectory = baseDirectory
  }

  /// Every item, series by series, in file order.
  public var items: [CatalogItem] { series.flatMap(\.items) }

  public func item(_ id: ItemID) -> CatalogItem? {
    for s in series {
      if let item = s.items.first(where: { $0.id == id }) { return item }
    }
    return nil
  }

  public func series(_ id: String) -> CatalogSeries? { series.first { $0.id == id } }

  /// The series holding `item`.
  public func series(containing item: ItemID) -> CatalogSeries? {
    series.first { $0.items.contains { $0.id == item } }
  }

  public func subtitles(for item: ItemID) -> SubtitleTrack? { self.item(item)?.subtitles }

  /// All series as the engine sees them.
  public func seriesInfos() -> [SeriesInfo] { series.map { $0.seriesInfo() } }

  /// The engine's view of the series holding `item`.
  public func seriesInfo(containing item: ItemID) -> SeriesInfo? {
    series(containing: item)?.seriesInfo()
  }

  /// The item after `item` in its series (for "next" and auto-advance), or nil at the end.
  public func item(after item: ItemID) -> CatalogItem? {
    guard let s = series(containing: item), let i = s.items.firstIndex(where: { $0.id == item }),
      i + 1 < s.items.count
    else { return nil }
    return s.items[i + 1]
  }

  /// Resolves items for a ``SimulatedPlayer``.
  public var itemResolver: @Sendable (ItemID) -> SimulatedItem? {
    let catalog = self
    return { catalog.item($0)?.simulatedItem() }
  }

  // MARK: - Loading

  /// Reads and validates the catalog at `path`; subtitle paths are relative to its directory.
  public static func load(from path: String) throws(CatalogError) -> Catalog {
    let text: String
    do {
      let data = try Data(contentsOf: URL(fileURLWithPath: path))
      guard let decoded = String(data: data, encoding: .utf8) else {
        throw CatalogError.unreadable(file: path, reason: "not UTF-8 text")
      }
      text = decoded
    } catch let error as CatalogError {
      throw error
    } catch {
      throw CatalogError.unreadable(file: path, reason: error.localizedDescription)
    }
    let base = (path as NSString).deletingLastPathComponent
    return try parse(yaml: text, baseDirectory: base.isEmpty ? "." : base, fileName: path)
  }

  /// Loads the default catalog (see ``defaultCatalogPath(environment:currentDirectory:executablePath:)``).
  public static func loadDefault() throws(CatalogError) -> Catalog {
    try load(from: defaultCatalogPath())
  }

  /// Parses and validates catalog YAML. Subtitle files are read from `baseDirectory`;
  /// errors name `fileName`.
  public static func parse(yaml: String, baseDirectory: String, fileName: String = "<catalog>")
    throws(CatalogError) -> Catalog
  {
    var parser = CatalogParser(fileName: fileName, baseDirectory: baseDirectory)
    return try parser.parse(yaml)
  }
}
