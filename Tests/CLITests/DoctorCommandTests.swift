import Foundation
import Testing

/// `cowatch doctor` as a person runs it: with this machine's mpv, with none, with one too
/// old and one that reads commands as mpv 0.38 does (the fake of the mpv tests).
@Suite struct DoctorCommandTests {
  static let fake = CowatchProcess.repositoryRoot
    .appendingPathComponent("Tests/MpvPlayerTests/Fixtures/fake-mpv").path

  /// A `PATH` whose `mpv` is the fake as `version` (python3 after it, for the fake), or
  /// with no mpv at all.
  static func path(withFakeMpv version: String?) throws -> String {
    let dir = CowatchProcess.runDirectory + "/doctor-path-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    if let version {
      let script = "#!/bin/sh\nexec '\(fake)' --fake-version=\(version) \"$@\"\n"
      try script.write(toFile: dir + "/mpv", atomically: true, encoding: .utf8)
      try FileManager.default.setAttributes(
        [.posixPermissions: 0o755], ofItemAtPath: dir + "/mpv")
      return dir + ":/usr/bin:/bin"
    }
    return dir
  }

  /// Runs `cowatch doctor --json --no-router ARGS` and returns its exit status and checks.
  static func doctor(_ arguments: [String] = [], path: String? = nil) async throws -> (
    status: Int32, checks: [String: [String: String]]
  ) {
    var environment: [String: String?] = [:]
    if let path { environment["PATH"] = path }
    let process = try CowatchProcess(
      ["doctor", "--json", "--no-router"] + arguments, environment: environment)
    let status = try #require(await process.exitStatus(within: 30))
    var checks: [String: [String: String]] = [:]
    for line in process.output {
      let object = try #require(
        try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String], "\(line)")
      checks[object["check", default: "?"]] = object
    }
    return (status, checks)
  }

  @Test("this machine's mpv plays a second through the driver; every check is one JSON line")
  func realMpv() async throws {
    let (status, checks) = try await Self.doctor()
    #expect(
      Set(checks.keys) == [
        "mpv", "playback", "yt-dlp", "terminal", "state-directory", "config-directory",
        "known-relays", "router", "listen", "clock",
      ])
    #expect(checks["mpv"]?["status"] == "ok", "\(checks["mpv"] ?? [:])")
    #expect(checks["playback"]?["status"] == "ok", "\(checks["playback"] ?? [:])")
    // Not a terminal here (output is a pipe): a warning, not a problem.
    #expect(checks["terminal"]?["status"] == "warning")
    #expect(checks["router"]?["summary"] == "not asked (--no-router)")
    #expect(status == 0)
  }

  @Test(
    "an mpv that reads commands as 0.38 does plays; one too old, or none, is a problem and exit status 1"
  )
  func fakeMpv() async throws {
    let media = CowatchProcess.runDirectory + "/doctor-media-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: media, withIntermediateDirectories: true)
    _ = FileManager.default.createFile(atPath: media + "/e1-30s.mkv", contents: Data())

    let modern = try await Self.doctor(["--media", media], path: Self.path(withFakeMpv: "0.38.0"))
    #expect(modern.checks["mpv"]?["summary"]?.hasPrefix("mpv 0.38.0 at ") == true)
    #expect(modern.checks["playback"]?["status"] == "ok", "\(modern.checks["playback"] ?? [:])")
    #expect(modern.checks["playback"]?["summary"]?.contains("e1-30s.mkv") == true)

    let old = try await Self.doctor(path: Self.path(withFakeMpv: "0.33.1"))
    #expect(old.status == 1)
    #expect(old.checks["mpv"]?["status"] == "problem")
    #expect(old.checks["mpv"]?["summary"]?.contains("mpv 0.33.1, too old") == true)
    #expect(old.checks["playback"]?["status"] == "warning")

    let none = try await Self.doctor(path: Self.path(withFakeMpv: nil))
    #expect(none.status == 1)
    #expect(none.checks["mpv"]?["status"] == "problem")
    #expect(none.checks["mpv"]?["advice"]?.contains("apt install mpv") == true)
    #expect(none.checks["yt-dlp"]?["status"] == "warning")
  }
}
