import DemoScript
import Foundation
import Media
import PlaybackCoordination

/// Video files for `cowatch demo --player mpv`: one test clip per episode the script can
/// reach (a test pattern and a tone, as long as the catalog says), made once with ffmpeg
/// and kept in the user's cache directory.
enum DemoClips {
  /// The clips of every episode of the series the script starts or switches to, made if
  /// missing; the failure in words otherwise.
  static func prepare(for script: DemoScript, catalog: Catalog) throws(CommandFailure) -> [ItemID:
    String]
  {
    guard let ffmpeg = Self.find("ffmpeg") else {
      throw CommandFailure(
        "demo", "--player mpv makes its test clips with ffmpeg: install it (apt-get install ffmpeg)"
      )
    }
    var series: [SeriesInfo] = []
    for step in script.steps {
      guard case .act(_, let action) = step.kind else { continue }
      let item: ItemID
      switch action {
      case .start(let id), .switchTo(let id, _): item = id
      default: continue
      }
      if let s = catalog.seriesInfos().first(where: { $0.item(item) != nil }),
        !series.contains(where: { $0.id == s.id })
      {
        series.append(s)
      }
    }
    let directory = Self.cacheDirectory()
    do {
      try FileManager.default.createDirectory(
        at: directory, withIntermediateDirectories: true)
    } catch {
      throw CommandFailure("demo", "cannot create \(directory.path): \(error.localizedDescription)")
    }
    var paths: [ItemID: String] = [:]
    for s in series {
      for (index, item) in s.items.enumerated() {
        let name = item.id.rawValue.replacingOccurrences(of: "/", with: "-")
        let file = directory.appendingPathComponent(
          "\(name)-\(Int((item.duration * 1000).rounded()))ms.mp4")
        if !FileManager.default.fileExists(atPath: file.path) {
          try make(file, seconds: item.duration, tone: 330 + 110 * index, ffmpeg: ffmpeg)
        }
        paths[item.id] = file.path
      }
    }
    return paths
  }

  private static func make(_ file: URL, seconds: Double, tone: Int, ffmpeg: String)
    throws(CommandFailure)
  {
    let partial = file.appendingPathExtension("partial.mp4")
    let p = Process()
    p.executableURL = URL(fileURLWithPath: ffmpeg)
    p.arguments = [
      "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i",
      "testsrc=size=160x120:rate=24", "-f", "lavfi", "-i",
      "sine=frequency=\(tone):sample_rate=48000", "-t", String(seconds), "-c:v", "libx264",
      "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest", partial.path,
    ]
    p.standardInput = FileHandle.nullDevice
    p.standardOutput = FileHandle.nullDevice
    p.standardError = FileHandle.nullDevice
    do {
      try p.run()
    } catch {
      throw CommandFailure("demo", "cannot run ffmpeg: \(error.localizedDescription)")
    }
    p.waitUntilExit()
    guard p.terminationStatus == 0 else {
      try? FileManager.default.removeItem(at: partial)
      throw CommandFailure("demo", "ffmpeg could not make \(file.lastPathComponent)")
    }
    do {
      try FileManager.default.moveItem(at: partial, to: file)
    } catch {
      throw CommandFailure("demo", "cannot keep \(file.path): \(error.localizedDescription)")
    }
  }

  static func cacheDirectory() -> URL {
    let env = ProcessInfo.processInfo.environment
    let base =
      env["XDG_CACHE_HOME"].map { URL(fileURLWithPath: $0) }
      ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache")
    return base.appendingPathComponent("cowatch/demo-clips")
  }

  static func find(_ name: String) -> String? {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    return path.split(separator: ":").map { "\($0)/\(name)" }
      .first { FileManager.default.isExecutableFile(atPath: $0) }
  }
}
