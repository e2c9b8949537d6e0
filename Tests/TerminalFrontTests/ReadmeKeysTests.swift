import Foundation
import Testing

@testable import TerminalFront

/// The README's key list is what a newcomer reads first: every key the front binds must be
/// in it, so that the two cannot drift apart.
@Suite("README.md")
struct ReadmeKeysTests {
  @Test("names every key the front binds")
  func everyKey() throws {
    let root = URL(fileURLWithPath: #filePath)
      .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    let readme = try String(
      contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
    let start = try #require(readme.range(of: "In the front:"))
    // The list is its paragraph: up to the first blank line.
    let rest = readme[start.lowerBound...]
    let keyList = String(rest[..<(rest.range(of: "\n\n")?.lowerBound ?? rest.endIndex)])
    for binding in KeyBinding.all {
      for key in binding.keys {
        let name: String
        switch key {
        case .character(" "): name = "space"
        case .character(let c): name = String(c)
        case .enter: name = "enter"
        case .left: name = "←"
        case .right: name = "→"
        case .up: name = "↑"
        case .down: name = "↓"
        case .control(let c): name = "ctrl-\(c)"
        default: name = binding.keyLabel
        }
        if name == "h" || name == "ctrl-c" { continue }  // aliases of ? and q
        #expect(
          keyList.contains("`\(name)`"), "README's key list lacks `\(name)` (\(binding.long))")
      }
    }
  }
}
