import Foundation
import Testing

@testable import MpvPlayer

/// How Cowatch's commands are spelled for mpv 0.34 to 0.40, and how it tells versions apart.
@Suite struct MpvVersionTests {
  @Test("loadfile goes by argument names, which mpv 0.34 to 0.40 all read the same way")
  func namedLoadfile() throws {
    let line = MpvRequest(id: 3, .loadPaused(path: "/m/a \"b\".mp4", start: 12.5)).line
    #expect(
      line
        == #"{"command":{"name":"loadfile","url":"/m/a \"b\".mp4","flags":"replace","options":"start=12.5,pause=yes,ytdl=no"},"request_id":3}"#
        + "\n")
    // It is one JSON object whose command is an object, not an array.
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    let command = try #require(object["command"] as? [String: String])
    #expect(command["name"] == "loadfile")
    #expect(command["options"] == "start=12.5,pause=yes,ytdl=no")
    // yt-dlp reads a link only when its site is trusted (`extractor`).
    let trusted = MpvRequest(
      id: 4, .loadPaused(path: "https://a.example/v", start: 0, extractor: true))
    #expect(trusted.line.contains(#""options":"start=0.0,pause=yes"}"#), "\(trusted.line)")
    // A lent subtitle file, its address whole whatever it holds (`%LENGTH%`, in bytes).
    let subtitled = MpvRequest(
      id: 5,
      .loadPaused(
        path: "/m/a.mp4", start: 0,
        options: MpvFileOptions(
          subtitles: ["/t/0-a.en.srt", "/t/b:c.srt", "/t/1-a,fr.srt"], readAhead: 120)))
    let withSubtitle = try #require(
      try JSONSerialization.jsonObject(with: Data(subtitled.line.utf8)) as? [String: Any])
    #expect(
      (withSubtitle["command"] as? [String: String])?["options"]
        == "start=0.0,pause=yes,ytdl=no,sub-files=%27%/t/0-a.en.srt:/t/1-a,fr.srt,cache=yes,cache-secs=120",
      "\(subtitled.line)")
  }

  @Test("every other command keeps the positional form, unchanged from 0.34 to 0.40")
  func positional() {
    let commands: [MpvCommand] = [
      .observe(id: 1, .audioPTS), .setPause(true), .setSpeed(1.25), .seekExact(to: 3),
      .get(.timePos), .showText("bob paused", milliseconds: 4000), .stop, .quit,
    ]
    for command in commands {
      #expect(command.argumentNames == nil)
      #expect(MpvRequest(id: 1, command).line.hasPrefix(#"{"command":["#))
    }
  }

  @Test(
    "versions are read as mpv prints them",
    arguments: [
      ("mpv 0.35.1 Copyright © 2000-2023 mpv/MPlayer/mplayer2 projects", "0.35.1"),
      ("mpv 0.35.1", "0.35.1"),
      ("mpv v0.38.0 Copyright © 2000-2024 mpv/MPlayer/mplayer2 projects", "0.38.0"),
      ("mpv v0.39.0-dirty", "0.39.0"),
      ("mpv v0.40.0-45-gabc1234", "0.40.0"),
      ("mpv 0.34.1-debian", "0.34.1"),
      ("mpv 0.40", "0.40.0"),
    ])
  func parse(text: String, expected: String) throws {
    #expect(try #require(MpvVersion(parsing: text)).description == expected)
  }

  @Test(
    "text without a version is not one",
    arguments: ["", "mpv", "mpv git-2018-05-01", "vlc 3.0.18", "mpv 1", "mpv 99999.1.1"])
  func notAVersion(text: String) {
    #expect(MpvVersion(parsing: text) == nil)
  }

  @Test("0.34 and later are supported, 0.33 is not, and says what it needs")
  func supported() throws {
    #expect(try #require(MpvVersion(parsing: "mpv 0.34.0")).isSupported)
    #expect(try #require(MpvVersion(parsing: "mpv v0.40.0")).isSupported)
    #expect(try #require(MpvVersion(parsing: "mpv v1.0.0")).isSupported)
    let old = try #require(MpvVersion(parsing: "mpv 0.33.1"))
    #expect(!old.isSupported)
    #expect(
      MpvError.tooOld(path: "/usr/bin/mpv", found: old).description
        == "/usr/bin/mpv is mpv 0.33.1, too old for Cowatch: it needs mpv 0.34 or later (install a newer mpv, or use --player simulated)"
    )
  }
}
