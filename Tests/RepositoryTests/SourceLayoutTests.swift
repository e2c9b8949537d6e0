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

  /// The modules each Swift file under `folder` imports.
  static func imports(under folder: URL) throws -> Set<String> {
    let statement =
      #/^\s*(?:@[A-Za-z_]+\s+)*import\s+(?:(?:struct|class|enum|protocol|func|var|let|typealias)\s+)?([A-Za-z_][A-Za-z0-9_]*)/#
    var found: Set<String> = []
    let files = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)
    while let file = files?.nextObject() as? URL {
      guard file.pathExtension == "swift" else { continue }
      for line in try String(contentsOf: file, encoding: .utf8).split(separator: "\n") {
        if let match = line.firstMatch(of: statement) { found.insert(String(match.1)) }
      }
    }
    return found
  }

  @Test(
    "each target imports exactly what Package.swift says it depends on: nothing declared goes unused, nothing used comes in undeclared through another module"
  )
  func importsMatchTheManifest() throws {
    let manifest = try String(
      contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
    let targets = ManifestTarget.all(in: manifest)
    let ours = Set(targets.map(\.name))
    let theirs = targets.reduce(into: Set<String>()) { $0.formUnion($1.products) }
    var checked = 0
    var undeclared: [String] = []
    var unused: [String] = []
    for target in targets where target.kind != "systemLibrary" {
      let folder = root.appendingPathComponent(target.kind == "testTarget" ? "Tests" : "Sources")
        .appendingPathComponent(target.name)
      let imported = try Self.imports(under: folder).intersection(ours.union(theirs))
        .subtracting([target.name])
      let declared = target.dependencies.union(target.products)
      for module in imported.subtracting(declared).sorted() {
        undeclared.append("\(target.name) → \(module)")
      }
      for module in declared.subtracting(imported).sorted() {
        unused.append("\(target.name) → \(module)")
      }
      checked += 1
    }
    #expect(undeclared.isEmpty, "imported, not declared: \(undeclared)")
    #expect(unused.isEmpty, "declared, never imported: \(unused)")
    #expect(checked > 40, "the targets were found")
  }

  @Test(
    "every wait is a clock's: Task.sleep only inside the Clocks module, so that tests can move time and the demo can speed it up"
  )
  func sleepsGoThroughAClock() throws {
    let sources = root.appendingPathComponent("Sources")
    let files = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)
    var sleeping: [String] = []
    var read = 0
    while let file = files?.nextObject() as? URL {
      guard file.pathExtension == "swift" else { continue }
      read += 1
      let module = file.pathComponents[sources.pathComponents.count]
      guard module != "Clocks" else { continue }
      let text = try String(contentsOf: file, encoding: .utf8)
      for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false)
        .enumerated() where line.contains("Task.sleep(")
      {
        sleeping.append("\(module)/\(file.lastPathComponent):\(number + 1)")
      }
    }
    #expect(read > 300, "the sources were read")
    #expect(sleeping.isEmpty, "Task.sleep outside the clocks: \(sleeping)")
  }

  /// Virtual time knows that a system has settled because every task of it runs on the
  /// simulation's executor; a task started anywhere else in the runtimes that run on virtual
  /// time would run unseen, and a jump of the clock could overtake it. So each task they
  /// start says where (`executorPreference: clock.taskExecutor`), or says why it is outside.
  @Test("every task the virtual-time runtimes start runs where their clock says")
  func tasksRunWhereTheClockSays() throws {
    let sources = root.appendingPathComponent("Sources")
    let modules = [
      "ParticipantRuntime", "RelayRuntime", "DemoScript", "TCPRelayServer", "HeadlessFront",
    ]
    let unplaced = try Regex(#"(^|[^A-Za-z.])Task(\.detached)?\s*(\{|\((?!executorPreference))"#)
    var wild: [String] = []
    var read = 0
    for module in modules {
      let folder = sources.appendingPathComponent(module)
      for name in try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
      where name.hasSuffix(".swift") {
        read += 1
        let lines = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
          .split(separator: "\n", omittingEmptySubsequences: false)
        for (number, line) in lines.enumerated() where line.contains(unplaced) {
          let reason = number > 0 && lines[number - 1].contains("// Outside any simulation")
          if !reason { wild.append("\(module)/\(name):\(number + 1)") }
        }
      }
    }
    #expect(read > 40, "the sources were read")
    #expect(wild.isEmpty, "tasks started outside the clock's executor: \(wild)")
  }
}
