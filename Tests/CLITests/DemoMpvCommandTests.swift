import Foundation
import Testing

/// In the suite of the other mpv tests, one at a time with them: several mpv players at
/// once on two cores make everything around them late.
extension MpvCommandLineTests {
  @Test(
    "--player mpv: three real mpv players start, pause on one spot, seek, wait for a stall and end together"
  )
  func demoWithMpv() async throws {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("cowatch-demo-mpv-\(UInt64.random(in: 0...UInt64.max))")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    try """
    series:
      - id: clip
        title: Test Clip
        items:
          - id: clip/e1
            title: Pattern
            duration: "0:40"
          - id: clip/e2
            title: Pattern Again
            duration: "0:20"
    """.write(
      to: directory.appendingPathComponent("catalog.yaml"), atomically: true, encoding: .utf8)
    let script = directory.appendingPathComponent("short.cowatch")
    try """
    relay rebuffer-timeout=5s suspension-timeout=5s
    participant ann
    participant bob drift=+300ppm
    participant dan drift=-200ppm
    at 0:00 ann start clip/e1
    at 0:01 bob join
    at 0:01 dan join
    at 0:04 expect ann,bob,dan state playing item clip/e1 together ±0.05
    at 0:05 bob pause
    at 0:06 expect all state paused together ±0.001 notice "bob paused at"
    at 0:07 dan seek 0:30
    at 0:08 expect all state paused position 0:30±0.05 notice "dan jumped to 0:30"
    at 0:09 ann play
    at 0:11 expect all state playing together ±0.05
    at 0:12 dan stall 2s
    at 0:13 expect ann,bob state waiting waiting-for dan notice "waiting for dan"
    at 0:17 expect all state playing waiting-for nobody together ±0.05
    at 0:18 bob end
    at 0:19 expect all state none
    """.write(to: script, atomically: true, encoding: .utf8)
    let demo = try CowatchProcess(
      ["demo", script.path, "--plain", "--player", "mpv"],
      environment: [
        "COWATCH_MEDIA": directory.path,
        "XDG_CACHE_HOME": directory.appendingPathComponent("cache").path,
      ])
    #expect(
      await demo.exitStatus(within: 90) == 0,
      "stderr: \(demo.standardError)\n\(demo.output.suffix(8).joined(separator: "\n"))")
    #expect(
      demo.output.last?.contains("all 7 expectations held") == true, "\(demo.output.suffix(5))")
    #expect(demo.output.contains { $0.contains("dan's player stalls for 2 s") })
    // The clips were made once, in the cache.
    let clips = try FileManager.default.contentsOfDirectory(
      atPath: directory.appendingPathComponent("cache/cowatch/demo-clips").path)
    #expect(clips.sorted() == ["clip-e1-40000ms.mp4", "clip-e2-20000ms.mp4"])
  }

  @Test("--player mpv with --speed is one clear line: real players play in real time")
  func speedRefused() async throws {
    let demo = try CowatchProcess(["demo", "--plain", "--player", "mpv", "--speed", "10"])
    #expect(await demo.exitStatus() != 0)
    #expect(demo.standardError.contains("--player mpv plays in real time"))
  }
}
