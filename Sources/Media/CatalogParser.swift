import Foundation
import PlaybackCoordination
import Yams

/// Turns catalog YAML into a ``Catalog``, checking everything a hand edit can get wrong and
/// naming the line (from Yams' node marks) in every error.
struct CatalogParser {
  /// Durations outside this range are refused as typos (seconds).
  static let saneDurations: ClosedRange<Double> = 1...(12 * 3600)

  let fileName: String
  let baseDirectory: String
  /// First line of each id seen, series and items alike.
  private var seen: [String: Int] = [:]

  init(fileName: String, baseDirectory: String) {
    self.fileName = fileName
    self.baseDirectory = baseDirectory
  }

  private func at(_ node: Node?) -> CatalogLocation {
    CatalogLocation(file: fileName, line: node?.mark?.line ?? 1)
  }

  mutating func parse(_ yaml: String) throws(CatalogError) -> Catalog {
    let root: Node?
    do {
      root = try Yams.compose(yaml: yaml)
    } catch let error as YamlError {
      throw syntaxError(error, yaml: yaml)
    } catch {
      throw CatalogError.yamlSyntax(CatalogLocation(file: fileName, line: 1), problem: "\(error)")
    }
    guard let root else {
      throw CatalogError.invalidStructure(
        at(nil), problem: "the catalog is empty; expected a 'series:' list")
    }
    let fields = try mapping(root, keys: ["series"], required: ["series"], what: "the catalog")
    guard let list = fields["series"]!.sequence else {
      throw CatalogError.invalidStructure(
        at(fields["series"]), problem: "'series' must be a list of series")
    }
    if list.isEmpty {
      throw CatalogError.invalidStructure(at(fields["series"]), problem: "'series' lists no series")
    }
    var series: [CatalogSeries] = []
    for node in list { series.append(try parseSeries(node)) }
    return Catalog(series: series, fileName: fileName, baseDirectory: baseDirectory)
  }

  private mutating func parseSeries(_ node: Node) throws(CatalogError) -> CatalogSeries {
    let fields = try mapping(
      node, keys: ["id", "title", "items"], required: ["id", "items"], what: "a series")
    let idNode = fields["id"]!
    let id = try string(idNode, key: "id")
    if let problem = Self.partProblem(id) {
      throw CatalogError.malformedID(at(idNode), id: id, problem: "series id \(problem)")
    }
    try remember(id, node: idNode)
    let title =
      try fields["title"].map { n throws(CatalogError) in try string(n, key: "title") } ?? id
    let itemsNode = fields["items"]!
    guard let list = itemsNode.sequence else {
      if itemsNode.scalar?.string.isEmpty == true || itemsNode.null != nil {
        throw CatalogError.emptySeries(at(itemsNode), series: id)
      }
      throw CatalogError.invalidStructure(
        at(itemsNode), problem: "'items' of series '\(id)' must be a list")
    }
    if list.isEmpty { throw CatalogError.emptySeries(at(itemsNode), series: id) }
    var items: [CatalogItem] = []
    for itemNode in list { items.append(try parseItem(itemNode, series: id)) }
    return CatalogSeries(id: id, title: title, items: items, line: at(node).line)
  }

  private mutating func parseItem(_ node: Node, series: String) throws(CatalogError) -> CatalogItem
  {
    let fields = try mapping(
      node, keys: ["id", "title", "duration", "subtitles"], required: ["id", "title", "duration"],
      what: "an item")
    let idNode = fields["id"]!
    let id = try string(idNode, key: "id")
    let parts = id.split(separator: "/", omittingEmptySubsequences: false)
    guard parts.count == 2 else {
      throw CatalogError.malformedID(
        at(idNode), id: id, problem: "expected SERIES/EPISODE, e.g. \(series)/s1e1")
    }
    for part in parts {
      if let problem = Self.partProblem(String(part)) {
        throw CatalogError.malformedID(
          at(idNode), id: id, problem: "expected SERIES/EPISODE; the part '\(part)' \(problem)")
      }
    }
    if parts[0] != series {
      throw CatalogError.malformedID(
        at(idNode), id: id,
        problem: "it is listed under series '\(series)', so it must start with '\(series)/'")
    }
    try remember(id, node: idNode)
    let title = try string(fields["title"]!, key: "title")
    let duration = try parseDuration(fields["duration"]!)
    var subtitlesPath: String?
    var subtitles: SubtitleTrack?
    if let subNode = fields["subtitles"] {
      let relative = try string(subNode, key: "subtitles")
      let path =
        relative.hasPrefix("/")
        ? relative : (baseDirectory as NSString).appendingPathComponent(relative)
      var isDirectory: ObjCBool = false
      guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory),
        !isDirectory.boolValue
      else {
        throw CatalogError.missingSubtitleFile(at(subNode), path: path)
      }
      do {
        subtitles = try SubtitleTrack.load(path: path)
      } catch {
        throw CatalogError.malformedSubtitle(at(subNode), subtitle: error)
      }
      subtitlesPath = path
    }
    return CatalogItem(
      id: ItemID(id), title: title, duration: duration, subtitlesPath: subtitlesPath,
      subtitles: subtitles,
      line: at(node).line)
  }

  private func parseDuration(_ node: Node) throws(CatalogError) -> Double {
    guard let text = node.scalar?.string else {
      throw CatalogError.badDuration(
        at(node), text: "", problem: "expected m:ss, h:mm:ss or seconds, not a list or mapping")
    }
    let trimmed = text.trimmingCharacters(in: .whitespaces)
    if trimmed.hasPrefix("-") {
      throw CatalogError.badDuration(at(node), text: text, problem: "must be positive")
    }
    guard let seconds = TimeFormat.parse(trimmed) else {
      throw CatalogError.badDuration(
        at(node), text: text, problem: "expected m:ss, h:mm:ss or seconds")
    }
    if seconds <= 0 {
      throw CatalogError.badDuration(at(node), text: text, problem: "must be positive")
    }
    if !Self.saneDurations.contains(seconds) {
      throw CatalogError.badDuration(
        at(node), text: text,
        problem:
          "outside the sane range \(Int(Self.saneDurations.lowerBound)) s to \(TimeFormat.clock(Self.saneDurations.upperBound))"
      )
    }
    return seconds
  }

  /// Why `part` cannot be one side of an id, or nil if it can.
  static func partProblem(_ part: String) -> String? {
    if part.isEmpty { return "is empty" }
    let allowed = part.unicodeScalars.allSatisfy {
      ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0)
        || "._-".unicodeScalars.contains($0)
    }
    return allowed ? nil : "may contain only letters, digits, '.', '_' and '-'"
  }

  private mutating func remember(_ id: String, node: Node) throws(CatalogError) {
    if let first = seen[id] {
      throw CatalogError.duplicateID(at(node), id: id, firstLine: first)
    }
    seen[id] = at(node).line
  }

  private func string(_ node: Node, key: String) throws(CatalogError) -> String {
    guard let scalar = node.scalar, !scalar.string.trimmingCharacters(in: .whitespaces).isEmpty
    else {
      throw CatalogError.invalidStructure(at(node), problem: "'\(key)' must be a non-empty text")
    }
    return scalar.string.trimmingCharacters(in: .whitespaces)
  }

  /// The values of a mapping by key, refusing unknown keys and requiring `required`.
  private func mapping(_ node: Node, keys: Set<String>, required: [String], what: String)
    throws(CatalogError)
    -> [String: Node]
  {
    guard let map = node.mapping else {
      throw CatalogError.invalidStructure(
        at(node), problem: "expected \(what) as a mapping of keys to values")
    }
    var fields: [String: Node] = [:]
    for (key, value) in map {
      guard let name = key.scalar?.string, keys.contains(name) else {
        let shown = key.scalar?.string ?? "?"
        throw CatalogError.invalidStructure(
          at(key),
          problem:
            "unknown key '\(shown)' in \(what) (expected \(keys.sorted().joined(separator: ", ")))")
      }
      fields[name] = value
    }
    for key in required where fields[key] == nil {
      throw CatalogError.invalidStructure(at(node), problem: "\(what) is missing '\(key)'")
    }
    return fields
  }

  private func syntaxError(_ error: YamlError, yaml: String) -> CatalogError {
    switch error {
    case .scanner(let context, let problem, let mark, _),
      .parser(let context, let problem, let mark, _),
      .composer(let context, let problem, let mark, _):
      let detail =
        context.map { c in
          c.mark.line == mark.line
            ? "\(problem) (\(c.text))" : "\(problem) (\(c.text) at line \(c.mark.line))"
        } ?? problem
      return .yamlSyntax(CatalogLocation(file: fileName, line: mark.line), problem: detail)
    case .duplicatedKeysInMapping(let duplicates, let context):
      return .yamlSyntax(
        CatalogLocation(file: fileName, line: context.mark.line),
        problem: "duplicate key \(duplicates.joined(separator: ", ")) in a mapping")
    case .reader(let problem, let offset, _, _):
      let line =
        offset.map { o in yaml.utf8.prefix(o).count(where: { $0 == UInt8(ascii: "\n") }) + 1 } ?? 1
      return .yamlSyntax(CatalogLocation(file: fileName, line: line), problem: problem)
    default:
      return .yamlSyntax(CatalogLocation(file: fileName, line: 1), problem: "\(error)")
    }
  }
}
