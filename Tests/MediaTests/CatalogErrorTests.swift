import Foundation
import Testing

@testable import Media

/// Writes `yaml` (and extra files) to a temp dir, loads it, and returns the error.
private func loadError(_ yaml: String, files: [String: String] = [:]) throws -> CatalogError {
  var all = files
  all["catalog.yaml"] = yaml
  let dir = try temporaryDirectory(all)
  do {
    _ = try Catalog.load(from: dir + "/catalog.yaml")
  } catch {
    return error
  }
  Issue.record("the catalog loaded")
  throw CancellationError()
}

private func catalog(items: String, series: String = "demo") -> String {
  """
  series:
    - id: \(series)
      title: Demo
      items:
  \(items)
  """
}

@Suite("catalog errors name the file, the line and what is wrong")
struct CatalogErrorTests {
  @Test("a good catalog loads, subtitles optional")
  func good() throws {
    let yaml = catalog(
      items: """
            - id: demo/e1
              title: One
              duration: 2:30
              subtitles: subs/e1.srt
            - id: demo/e2
              title: Two
              duration: 95.5
        """)
    let dir = try temporaryDirectory(["catalog.yaml": yaml, "subs/e1.srt": goodSRT])
    let c = try Catalog.load(from: dir + "/catalog.yaml")
    #expect(c.items.map(\.duration) == [150, 95.5])
    #expect(c.item("demo/e1")?.subtitles?.line(at: 2) == "Hello.")
    #expect(c.item("demo/e2")?.subtitles == nil)
    #expect(c.item("demo/e1")?.line == 5)
  }

  @Test("missing subtitle file")
  func missingSubtitles() throws {
    let error = try loadError(
      catalog(
        items: """
              - id: demo/e1
                title: One
                duration: "2:00"
                subtitles: nope.srt
          """))
    guard case .missingSubtitleFile(let at, let path) = error else {
      Issue.record("\(error)")
      return
    }
    #expect(at.line == 8)
    #expect(path.hasSuffix("nope.srt"))
    #expect(error.description.contains("catalog.yaml:8"))
    #expect(error.description.contains("nope.srt"))
  }

  @Test(
    "bad durations: unparsable, non-positive, out of range",
    arguments: ["abc", "0", "0:00", "-5", "13:00:00", "1:75"])
  func badDuration(_ text: String) throws {
    let error = try loadError(
      catalog(
        items: """
              - id: demo/e1
                title: One
                duration: "\(text)"
          """))
    guard case .badDuration(let at, let shown, _) = error else {
      Issue.record("\(error)")
      return
    }
    #expect(at.line == 7)
    #expect(shown == text)
    #expect(error.description.contains("catalog.yaml:7: bad duration '\(text)'"))
  }

  @Test("duplicate id, with the line of the first one")
  func duplicate() throws {
    let error = try loadError(
      catalog(
        items: """
              - id: demo/e1
                title: One
                duration: "2:00"
              - id: demo/e1
                title: Again
                duration: "2:00"
          """))
    #expect(
      error == .duplicateID(.init(file: error.location!.file, line: 8), id: "demo/e1", firstLine: 5)
    )
    #expect(error.description.contains(":8: duplicate id 'demo/e1' (first used at line 5)"))
  }

  @Test("malformed ids", arguments: ["e1", "demo/", "demo/e 1", "demo/e1/x", "other/e1"])
  func malformedID(_ id: String) throws {
    let error = try loadError(
      catalog(
        items: """
              - id: "\(id)"
                title: One
                duration: "2:00"
          """))
    guard case .malformedID(let at, let shown, _) = error else {
      Issue.record("\(error)")
      return
    }
    #expect(at.line == 5)
    #expect(shown == id)
    #expect(error.description.contains("catalog.yaml:5: malformed id"))
  }

  @Test("empty series", arguments: ["items: []", "items:"])
  func emptySeries(_ items: String) throws {
    let error = try loadError(
      """
      series:
        - id: demo
          title: Demo
          \(items)
      """)
    guard case .emptySeries(let at, "demo") = error else {
      Issue.record("\(error)")
      return
    }
    #expect(at.line == 4)
    #expect(error.description.contains("series 'demo' has no items"))
  }

  @Test("malformed subtitle names both files and the subtitle line")
  func malformedSubtitle() throws {
    let srt = """
      1
      00:00:01,000 --> 00:00:02,000
      Fine.

      2
      00:00:03,000 --> 00:00:0X,000
      Broken.
      """
    let error = try loadError(
      catalog(
        items: """
              - id: demo/e1
                title: One
                duration: "2:00"
                subtitles: e1.srt
          """), files: ["e1.srt": srt])
    guard case .malformedSubtitle(let at, let sub) = error else {
      Issue.record("\(error)")
      return
    }
    #expect(at.line == 8)
    #expect(sub.line == 6)
    #expect(sub.file.hasSuffix("e1.srt"))
    #expect(error.description.contains("catalog.yaml:8"))
    #expect(error.description.contains("e1.srt:6: bad timestamp '00:00:0X,000'"))
  }

  @Test("YAML syntax error")
  func syntax() throws {
    let error = try loadError(
      """
      series:
        - id: demo
          title: "Demo
          items: []
      """)
    guard case .yamlSyntax(let at, _) = error else {
      Issue.record("\(error)")
      return
    }
    #expect((3...5).contains(at.line))
    #expect(error.description.contains("catalog.yaml:\(at.line): YAML syntax error"))
  }

  @Test("YAML syntax error: bad indentation")
  func indentation() throws {
    let error = try loadError("series:\n  - id: demo\n    title: Demo\n   items: []\n")
    guard case .yamlSyntax(let at, _) = error else {
      Issue.record("\(error)")
      return
    }
    #expect(at.line == 4)
  }

  @Test("structure: unknown key, missing key, not a list, empty file")
  func structure() throws {
    let unknown = try loadError(
      catalog(
        items: """
              - id: demo/e1
                titel: One
                duration: "2:00"
          """))
    #expect(unknown.location?.line == 6)
    #expect(unknown.description.contains("unknown key 'titel'"))

    let missing = try loadError(
      catalog(
        items: """
              - id: demo/e1
                title: One
          """))
    #expect(missing.location?.line == 5)
    #expect(missing.description.contains("missing 'duration'"))

    let notList = try loadError("series: harbour\n")
    #expect(notList.location?.line == 1)

    let empty = try loadError("# nothing yet\n")
    guard case .invalidStructure = empty else {
      Issue.record("\(empty)")
      return
    }
  }

  @Test("parse(yaml:) uses the given file name and base directory")
  func parseNamesFile() throws {
    let error = #expect(throws: CatalogError.self) {
      try Catalog.parse(
        yaml: "series:\n  - id: x\n    items: []\n", baseDirectory: "/tmp", fileName: "mine.yaml")
    }
    #expect(error?.description == "mine.yaml:3: series 'x' has no items")
  }

  @Test("an unreadable catalog file")
  func unreadable() {
    let error = #expect(throws: CatalogError.self) {
      try Catalog.load(from: "/nonexistent/catalog.yaml")
    }
    guard case .unreadable(let file, _) = error else {
      Issue.record("\(String(describing: error))")
      return
    }
    #expect(file == "/nonexistent/catalog.yaml")
  }
}
