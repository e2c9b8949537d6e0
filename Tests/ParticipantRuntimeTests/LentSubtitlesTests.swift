import Foundation
import LendingEndpoint
import NIOCore
import Testing

@testable import ParticipantRuntime

@Suite("A borrowed item's subtitle files, written for the player")
struct LentSubtitlesTests {
  @Test(
    "whatever names a lender sends, the files land in a folder of this user's own, and go with it")
  func namesCannotClimbOut() throws {
    let names = ["../../escape.srt", "..", "a b:c.srt", "/etc/passwd", "Film.en.srt"]
    let written = try LentSubtitles.write(
      names.map {
        ($0, BytesItemSource(ByteBuffer(string: "1\n00:00:01,000 --> 00:00:02,000\nhi\n")))
      })
    let folder = try #require(written.folder)
    defer { written.remove() }
    #expect(written.files.count == names.count)
    for file in written.files {
      #expect(URL(fileURLWithPath: file).deletingLastPathComponent().path == folder, "\(file)")
      #expect(!file.contains(":"), "mpv reads the list split at `:`")
      #expect(FileManager.default.fileExists(atPath: file))
    }
    #expect(written.files.last?.hasSuffix("/4-Film.en.srt") == true)
    let mode = try FileManager.default.attributesOfItem(atPath: folder)[.posixPermissions] as? Int
    #expect(mode == 0o700)
    written.remove()
    #expect(!FileManager.default.fileExists(atPath: folder))
    #expect(try LentSubtitles.write([]).files.isEmpty)
  }
}

@Suite("Where lent subtitle files are read from")
struct LentSubtitleOriginTests {
  @Test(
    "a lent file's origin, the one its subtitle files must share: https, host and port; anything else has none"
  )
  func sameOrigin() {
    #expect(ItemLending.origin(of: "https://10.0.0.2:7000/abc/film.mp4") == "https://10.0.0.2:7000")
    #expect(ItemLending.origin(of: "https://[fe80::1]:7000/t/x") == "https://[fe80::1]:7000")
    #expect(ItemLending.origin(of: "http://10.0.0.2:7000/t/x") == nil)
    #expect(ItemLending.origin(of: "https://nowhere") == nil)
  }
}
