import Foundation

/// A fresh temporary directory with the given files (relative path → contents).
func temporaryDirectory(_ files: [String: String] = [:]) throws -> String {
  let dir = FileManager.default.temporaryDirectory
    .appendingPathComponent("cowatch-media-\(UUID().uuidString)").path
  try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
  for (name, text) in files {
    let path = (dir as NSString).appendingPathComponent(name)
    try FileManager.default.createDirectory(
      atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    try text.write(toFile: path, atomically: true, encoding: .utf8)
  }
  return dir
}

/// The repository root, found from this source file.
let repositoryRoot: String = URL(fileURLWithPath: #filePath)
  .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

let goodSRT = """
  1
  00:00:01,000 --> 00:00:03,000
  Hello.

  2
  00:00:04,000 --> 00:00:06,500
  Goodbye.

  """
