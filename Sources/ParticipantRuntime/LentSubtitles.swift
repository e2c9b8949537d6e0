import Foundation
import Lending
import LendingEndpoint

/// A borrowed item's subtitle files as the player reads them: written into a folder of this
/// process's own (readable by this user only), named after the lender's files with their
/// place in front (so that no name a lender sends can climb out of the folder), removed
/// with the borrowed copy. mpv takes such files as a list of paths.
struct LentSubtitles: Sendable {
  var folder: String?
  var files: [String] = []

  /// Writes `read` (names as the lender gave them) into a fresh folder.
  static func write(_ read: [(name: String, bytes: BytesItemSource)]) throws -> LentSubtitles {
    guard !read.isEmpty else { return LentSubtitles() }
    var random = SystemRandomNumberGenerator()
    let folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("cowatch-subtitles-\(String(random.next() as UInt64, radix: 16))")
    try FileManager.default.createDirectory(
      at: folder, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
    var files: [String] = []
    for (index, file) in read.enumerated() {
      let name = "\(index)-" + LendingBook.pathName(file.name)
      let path = folder.appendingPathComponent(name).path
      guard
        FileManager.default.createFile(
          atPath: path, contents: Data(file.bytes.bytes.readableBytesView),
          attributes: [.posixPermissions: 0o600])
      else { continue }
      files.append(path)
    }
    return LentSubtitles(folder: folder.path, files: files)
  }

  func remove() {
    if let folder { try? FileManager.default.removeItem(atPath: folder) }
  }
}
