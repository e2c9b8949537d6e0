import Foundation
import Testing

/// The repository's root, from this file's place in it.
private let root = URL(fileURLWithPath: #filePath)
  .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

@Suite("The sources read as one package")
struct SourceLayoutTests {
  /// Every type declared at the top of a file under `Sources/`, by name, with the modules
  /// that declare it.
  static func topLevelTypes() throws -> [String: Set<String>] {
    let sources = root.appendingPathComponent("Sources")
    let declaration =
      #/^(?:public |package |internal |fileprivate |private )?(?:final |indirect )?(?:struct|enum|class|actor|protocol|typealias) ([A-Z][A-Za-z0-9_]*)/#
    var found: [String: Set<String>] = [:]
    let files = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)
    while let file = files?.nextObject() as? URL {
      guard file.pathExtension == "swift" else { continue }
      let module = file.pathComponents[sources.pathComponents.count]
      for line in try String(contentsOf: file, encoding: .utf8).split(separator: "\n") {
        if let match = line.firstMatch(of: declaration) {
          found[String(match.1), default: []].insert(module)
        }
      }
    }
    return found
  }

  @Test("no two modules declare a type of the same name (a reader meets one meaning per name)")
  func oneMeaningPerName() throws {
    let types = try Self.topLevelTypes()
    #expect(types.count > 100, "the scan found the sources")
    let twice = types.filter { $0.value.count > 1 }.map { "\($0.key): \($0.value.sorted())" }
    #expect(twice.isEmpty, "\(twice.sorted())")
  }
}
