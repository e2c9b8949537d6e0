import Foundation
import Media
import PlaybackCoordination
import Testing

@Suite("A library from a directory of videos")
struct MediaLibraryTests {
  /// Makes `files` (relative paths) under a fresh directory.
  func directory(_ files: [String]) throws -> String {
    let root = FileManager.default.temporaryDirectory
      .appendingPathComponent("cowatch-library-\(UInt64.random(in: 0...UInt64.max))")
    for file in files {
      let url = root.appendingPathComponent(file)
      try FileManager.default.createDirectory(
        at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
      try Data("x".utf8).write(to: url)
    }
    return root.path
  }

  @Test("a folder per series, episodes by their SxxEyy numbers, ids from names not paths")
  func seriesAndOrder() throws {
    let dir = try directory([
      "Night Ferry/night.ferry.s01e10.the.last.crossing.mkv",
      "Night Ferry/Night Ferry - S01E02 - Port Askaig.mp4",
      "Night Ferry/Night Ferry - S01E01 - Departure.mp4",
      "Night Ferry/notes.txt",
      "Harbour Lights/1x02 Tides.webm",
      "Harbour Lights/1x01 Arrival.webm",
    ])
    let library = try MediaLibrary.scan(dir) { _ in 1300 }
    #expect(library.catalog.series.map(\.id) == ["harbour-lights", "night-ferry"])
    let ferry = try #require(library.catalog.series(containing: "night-ferry/s1e1"))
    #expect(
      ferry.items.map(\.id.rawValue) == [
        "night-ferry/s1e1", "night-ferry/s1e2", "night-ferry/s1e10",
      ])
    #expect(ferry.items[1].title == "Night Ferry - S01E02 - Port Askaig")
    #expect(
      library.paths["night-ferry/s1e2"]
        == "\(dir)/Night Ferry/Night Ferry - S01E02 - Port Askaig.mp4")
    #expect(library.catalog.item("harbour-lights/s1e2")?.duration == 1300)
  }

  @Test("files directly in the directory are one series named after it; unreadable ones are named")
  func flatAndSkipped() throws {
    let dir = try directory(["Episode 2.mp4", "Episode 1.mp4", "broken.mkv"])
    let library = try MediaLibrary.scan(dir) { path in path.hasSuffix("broken.mkv") ? nil : 60 }
    let series = try #require(library.catalog.series.first)
    #expect(series.items.map(\.episodeID) == ["s1e1", "s1e2"])
    #expect(library.skipped.map { ($0.path as NSString).lastPathComponent } == ["broken.mkv"])
  }

  @Test("no videos, or no directory: one clear error")
  func errors() throws {
    let empty = try directory(["readme.txt"])
    #expect(throws: CatalogError.self) { try MediaLibrary.scan(empty) { _ in 1 } }
    do {
      _ = try MediaLibrary.scan("/nonexistent/cowatch") { _ in 1 }
      Issue.record("scanned a missing directory")
    } catch {
      #expect(error.description.contains("not a directory of videos"))
    }
  }
}
