import Foundation
import Testing

/// The repository's root, from this file's place in it.
private let root = URL(fileURLWithPath: #filePath)
  .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// The targets `Package.swift` declares, with the package's own modules each depends on
/// (third-party products left out).
struct ManifestTarget: Equatable {
  var name: String
  var kind: String
  var dependencies: Set<String>
  /// The modules of other packages it names (`.product(name:…)`).
  var products: Set<String> = []

  static func all(in manifest: String) -> [ManifestTarget] {
    let start = #/\.(target|executableTarget|systemLibrary|testTarget)\(\s*name:\s*"([^"]+)"/#
    let matches = manifest.matches(of: start)
    return matches.enumerated().map { i, match in
      let end = i + 1 < matches.count ? matches[i + 1].range.lowerBound : manifest.endIndex
      let body = manifest[match.range.upperBound..<end]
      var dependencies: Set<String> = []
      var products: Set<String> = []
      if let list = body.firstMatch(of: #/dependencies:\s*\[/#) {
        // The list runs to its closing bracket; products name other packages' modules.
        var depth = 1
        var index = list.range.upperBound
        while depth > 0, index < body.endIndex {
          if body[index] == "[" { depth += 1 }
          if body[index] == "]" { depth -= 1 }
          index = body.index(after: index)
        }
        let listed = body[list.range.upperBound..<index]
        products = Set(
          listed.matches(of: #/\.product\(\s*name:\s*"([^"]+)"/#).map { String($0.1) })
        let own = listed.replacing(#/\.product\([^)]*\)/#, with: "")
        dependencies = Set(own.matches(of: #/"([^"]+)"/#).map { String($0.1) })
      }
      return ManifestTarget(
        name: String(match.2), kind: String(match.1), dependencies: dependencies,
        products: products)
    }
  }
}

@Suite("docs/ARCHITECTURE.md and Package.swift")
struct ArchitectureDocTests {
  @Test(
    "the module table has a row for every target but the tests, naming exactly its own dependencies"
  )
  func moduleTable() throws {
    let manifest = try String(
      contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
    let doc = try String(
      contentsOf: root.appendingPathComponent("docs/ARCHITECTURE.md"), encoding: .utf8)
    let targets = ManifestTarget.all(in: manifest)
    let names = Set(targets.map(\.name))
    #expect(targets.count > 20, "the manifest was read")
    // Rows: | `Module` (or several) | role | depends on |
    var rows: [String: Set<String>] = [:]
    for line in doc.split(separator: "\n") where line.hasPrefix("| `") {
      let cells = line.split(separator: "|", omittingEmptySubsequences: false).map {
        $0.trimmingCharacters(in: .whitespaces)
      }
      guard cells.count >= 4 else { continue }
      let modules = cells[1].matches(of: #/`([^`]+)`/#).map { String($0.1) }
      let named = Set(
        cells[cells.count - 2].matches(of: #/[A-Za-z][A-Za-z-]*/#).map { String($0.0) }
      ).intersection(names)
      for module in modules { rows[module] = named }
    }
    for target in targets where target.kind != "testTarget" {
      guard let row = rows[target.name] else {
        Issue.record("docs/ARCHITECTURE.md has no row for the target \(target.name)")
        continue
      }
      #expect(
        row == target.dependencies,
        "\(target.name): the table says \(row.sorted()), Package.swift \(target.dependencies.sorted())"
      )
    }
    for module in rows.keys where !names.contains(module) {
      Issue.record(
        "docs/ARCHITECTURE.md has a row for \(module), which Package.swift does not declare")
    }
  }

  @Test("the layer picture names every module once, each above all it depends on")
  func layerPicture() throws {
    let manifest = try String(
      contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
    let doc = try String(
      contentsOf: root.appendingPathComponent("docs/ARCHITECTURE.md"), encoding: .utf8)
    let section = try #require(doc.split(separator: "## Layers").dropFirst().first)
    let picture = try #require(section.split(separator: "```").dropFirst().first)
    // What each line names, annotations in parentheses left out (they name types).
    let lines = picture.split(separator: "\n").map { line in
      Set(
        line.replacing(#/\([^)]*\)?/#, with: "").matches(of: #/[A-Za-z][A-Za-z0-9-]*/#).map {
          String($0.0)
        })
    }
    let modules = ManifestTarget.all(in: manifest).filter { $0.kind != "testTarget" }
    var row: [String: Int] = [:]
    for module in modules {
      let found = lines.indices.filter { lines[$0].contains(module.name) }
      #expect(found.count == 1, "\(module.name) is on \(found.count) lines of the picture")
      row[module.name] = found.first
    }
    for module in modules {
      for dependency in module.dependencies {
        guard let here = row[module.name], let there = row[dependency] else { continue }
        #expect(
          there >= here, "\(module.name) depends on \(dependency), which the picture draws above it"
        )
      }
    }
  }

  @Test("the manifest is read target by target, its own dependencies apart from the products")
  func findsAMissingRow() {
    let manifest = """
      .target(name: "A"),
      .target(
        name: "B",
        dependencies: ["A", .product(name: "NIOCore", package: "swift-nio")]),
      .testTarget(name: "BTests", dependencies: ["B"]),
      """
    #expect(
      ManifestTarget.all(in: manifest) == [
        ManifestTarget(name: "A", kind: "target", dependencies: []),
        ManifestTarget(name: "B", kind: "target", dependencies: ["A"], products: ["NIOCore"]),
        ManifestTarget(name: "BTests", kind: "testTarget", dependencies: ["B"]),
      ])
  }
}
