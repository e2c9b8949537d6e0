import Foundation
import PlaybackCoordination
import Testing

@testable import Media

@Suite("the catalog in Media/")
struct RealCatalogTests {
  let path = repositoryRoot + "/Media/catalog.yaml"

  @Test("loads, with two series of three or more episodes and the sync pattern")
  func loads() throws {
    let catalog = try Catalog.load(from: path)
    let multi = catalog.series.filter { $0.items.count >= 3 }
    #expect(multi.count >= 2)
    let pattern = try #require(catalog.item("pattern/sync"))
    #expect(pattern.duration == 300)
    #expect(catalog.series(containing: "pattern/sync")?.items.count == 1)
    for item in catalog.items where item.id != "pattern/sync" {
      #expect((120...1500).contains(item.duration), "\(item.id) lasts \(item.duration) s")
    }
    #expect(catalog.series.contains { s in s.items.allSatisfy { $0.duration <= 360 } })
    #expect(catalog.series.contains { s in s.items.allSatisfy { $0.duration >= 600 } })
  }

  @Test("every subtitle file is present, parses, and covers its episode")
  func subtitles() throws {
    let catalog = try Catalog.load(from: path)
    for item in catalog.items {
      let file = try #require(item.subtitlesPath, "\(item.id) has no subtitles")
      #expect(FileManager.default.fileExists(atPath: file))
      let track = try #require(item.subtitles)
      #expect(track.cues.count >= 10)
      let last = try #require(track.cues.last)
      #expect(last.end <= item.duration + 0.001, "\(item.id) has a cue past its end")
      #expect(item.duration - last.end < 15, "\(item.id) has no subtitles near its end")
      let gaps = zip(track.cues, track.cues.dropFirst()).map { $1.start - $0.end }
      #expect(gaps.allSatisfy { $0 < 10 }, "\(item.id) has a long silent gap")
    }
  }

  @Test("maps to the engine's SeriesInfo in file order")
  func seriesInfo() throws {
    let catalog = try Catalog.load(from: path)
    let harbour = try #require(catalog.seriesInfo(containing: "harbour/s1e2"))
    #expect(harbour.items.map(\.id) == ["harbour/s1e1", "harbour/s1e2", "harbour/s1e3"])
    #expect(harbour.item(after: "harbour/s1e1")?.id == "harbour/s1e2")
    #expect(catalog.item(after: "harbour/s1e3") == nil)
    #expect(catalog.seriesInfos().count == catalog.series.count)
    #expect(harbour.items[0].duration == 150)
  }

  @Test("is found from the repository, from a subdirectory and through COWATCH_MEDIA")
  func locate() throws {
    let fromRoot = try Catalog.defaultCatalogPath(
      environment: [:], currentDirectory: repositoryRoot, executablePath: nil)
    #expect(
      URL(fileURLWithPath: fromRoot).standardizedFileURL.path
        == URL(fileURLWithPath: path).standardizedFileURL.path)
    let fromSources = try Catalog.defaultCatalogPath(
      environment: [:], currentDirectory: repositoryRoot + "/Sources/Media", executablePath: nil)
    #expect(fromSources.hasSuffix("Media/catalog.yaml"))
    let fromExecutable = try Catalog.defaultCatalogPath(
      environment: [:], currentDirectory: "/",
      executablePath: repositoryRoot + "/.build/debug/cowatch")
    #expect(fromExecutable.hasSuffix("Media/catalog.yaml"))

    let other = try temporaryDirectory(["catalog.yaml": "series: []"])
    #expect(
      try Catalog.defaultCatalogPath(
        environment: ["COWATCH_MEDIA": other], currentDirectory: repositoryRoot, executablePath: nil
      )
        == other + "/catalog.yaml")
    #expect(throws: CatalogError.self) {
      try Catalog.defaultCatalogPath(
        environment: ["COWATCH_MEDIA": other + "/nowhere"], currentDirectory: repositoryRoot,
        executablePath: nil)
    }
    #expect(throws: CatalogError.self) {
      try Catalog.defaultCatalogPath(environment: [:], currentDirectory: "/", executablePath: nil)
    }
  }

  @Test("an installed cowatch finds the catalog in share/cowatch beside its bin directory")
  func installed() throws {
    let root = try temporaryDirectory(["usr/share/cowatch/Media/catalog.yaml": "series: []"])
    defer { try? FileManager.default.removeItem(atPath: root) }
    let found = try Catalog.defaultCatalogPath(
      environment: [:], currentDirectory: "/", executablePath: root + "/usr/bin/cowatch")
    #expect(found == root + "/usr/share/cowatch/Media/catalog.yaml")
    // Not found: the error names the installed place among those it looked in.
    let empty = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: empty) }
    do {
      _ = try Catalog.defaultCatalogPath(
        environment: [:], currentDirectory: "/", executablePath: empty + "/usr/bin/cowatch")
      Issue.record("found a catalog in an empty tree")
    } catch {
      guard case .catalogNotFound(let searched) = error else {
        Issue.record("unexpected \(error)")
        return
      }
      #expect(searched.last == empty + "/usr/share/cowatch/Media/catalog.yaml")
    }
  }

  @Test("a simulated player plays catalog items with their subtitles")
  func player() throws {
    let catalog = try Catalog.load(from: path)
    let player = SimulatedPlayer(catalog: catalog, configuration: .ideal)
    let t0 = LocalInstant(seconds: 10)
    player.perform(.load(item: "pattern/sync", at: 0), at: t0)
    player.perform(.play(itemTime: 0, startAt: t0, rate: 1), at: t0)
    let snap = player.snapshot(at: t0.advanced(bySeconds: 7.5))
    #expect(snap.title == "Sync Test Pattern (5 min)")
    #expect(snap.subtitle == "SYNC 0:07")
  }
}
