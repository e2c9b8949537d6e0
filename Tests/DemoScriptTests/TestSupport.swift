import DemoScript
import Foundation
import Media

/// The repository root, found from this source file.
let repositoryRoot: String = URL(fileURLWithPath: #filePath)
  .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

/// The repository's catalog (Media/catalog.yaml).
let testCatalog: Catalog = try! Catalog.load(from: repositoryRoot + "/Media/catalog.yaml")

/// Parses `text` against the repository's catalog.
func parse(_ text: String) throws(ScriptError) -> DemoScript {
  try DemoScript.parse(text, fileName: "test.cowatch", catalog: testCatalog)
}

/// The line a script error names, and its message, or nil if it parsed.
func failure(_ text: String) -> (line: Int, message: String)? {
  do {
    _ = try parse(text)
    return nil
  } catch {
    return (error.line, error.description)
  }
}
