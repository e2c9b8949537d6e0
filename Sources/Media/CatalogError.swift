/// Where in a catalog file something is: the file as the caller named it and a 1-based line.
public struct CatalogLocation: Hashable, Sendable, CustomStringConvertible {
  public var file: String
  public var line: Int

  public init(file: String, line: Int) {
    self.file = file
    self.line = line
  }

  public var description: String { "\(file):\(line)" }
}

/// Why a catalog cannot be used. Each error names the file and line and says what is wrong,
/// so that a person editing `catalog.yaml` by hand can fix it from the message alone.
public enum CatalogError: Error, CustomStringConvertible, Hashable, Sendable {
  /// No catalog was found; `searched` lists the places tried, in order.
  case catalogNotFound(searched: [String])
  /// The catalog file itself could not be read.
  case unreadable(file: String, reason: String)
  /// The YAML does not parse.
  case yamlSyntax(CatalogLocation, problem: String)
  /// The YAML parses but is not shaped like a catalog (missing or unknown key, wrong kind
  /// of value).
  case invalidStructure(CatalogLocation, problem: String)
  /// A series or item id is not `SERIES/EPISODE` (or an item's series part differs from its
  /// series).
  case malformedID(CatalogLocation, id: String, problem: String)
  /// An id is used twice; `firstLine` is where it first appears.
  case duplicateID(CatalogLocation, id: String, firstLine: Int)
  /// A duration that does not parse, is not positive, or is outside the sane range.
  case badDuration(CatalogLocation, text: String, problem: String)
  /// A series with no items.
  case emptySeries(CatalogLocation, series: String)
  /// An item names a subtitle file that does not exist.
  case missingSubtitleFile(CatalogLocation, path: String)
  /// An item's subtitle file exists but is not valid SRT; `subtitle` has its own file and line.
  case malformedSubtitle(CatalogLocation, subtitle: SubtitleError)

  /// Where in the catalog the problem is, if it is in one place.
  public var location: CatalogLocation? {
    switch self {
    case .catalogNotFound, .unreadable: nil
    case .yamlSyntax(let l, _), .invalidStructure(let l, _), .malformedID(let l, _, _),
      .duplicateID(let l, _, _), .badDuration(let l, _, _), .emptySeries(let l, _),
      .missingSubtitleFile(let l, _), .malformedSubtitle(let l, _):
      l
    }
  }

  public var description: String {
    switch self {
    case .catalogNotFound(let searched):
      return "no media catalog found (set COWATCH_MEDIA to the Media directory); looked for: "
        + searched.joined(separator: ", ")
    case .unreadable(let file, let reason):
      return "\(file): cannot read the catalog: \(reason)"
    case .yamlSyntax(let l, let problem):
      return "\(l): YAML syntax error: \(problem)"
    case .invalidStructure(let l, let problem):
      return "\(l): \(problem)"
    case .malformedID(let l, let id, let problem):
      return "\(l): malformed id '\(id)': \(problem)"
    case .duplicateID(let l, let id, let firstLine):
      return "\(l): duplicate id '\(id)' (first used at line \(firstLine))"
    case .badDuration(let l, let text, let problem):
      return text.isEmpty
        ? "\(l): bad duration: \(problem)" : "\(l): bad duration '\(text)': \(problem)"
    case .emptySeries(let l, let series):
      return "\(l): series '\(series)' has no items"
    case .missingSubtitleFile(let l, let path):
      return "\(l): subtitle file not found: \(path)"
    case .malformedSubtitle(let l, let subtitle):
      return "\(l): malformed subtitles: \(subtitle)"
    }
  }
}
