import Foundation
import SyncplayHarness
import Testing

/// mpv and ffmpeg, when installed (`.ci/run` installs both).
enum MpvTools {
  static func find(_ name: String) -> Bool {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    return path.split(separator: ":").contains {
      FileManager.default.isExecutableFile(atPath: "\($0)/\(name)")
    }
  }
  static let available = find("mpv") && find("ffmpeg") && find("ffprobe")

  /// A library with one series of two 20 s episodes, made with ffmpeg's test sources
  /// (waited for on a thread of its own: see `blocking`).
  static func library() async throws -> String {
    try await blocking { try makeLibrary() }
  }

  private static func makeLibrary() throws -> String {
    let root = FileManager.default.temporaryDirectory
      .appendingPathComponent("cowatch-mpv-library-\(UInt64.random(in: 0...UInt64.max))")
    let folder = root.appendingPathComponent("Night Ferry")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    for (index, name) in ["Night.Ferry.S01E01.Departure.mp4", "Night.Ferry.S01E02.Port.Askaig.mp4"]
      .enumerated()
    {
      try TestClip.make(
        folder.appendingPathComponent(name).path, seconds: 20, tone: 440 + 110 * index)
    }
    return root.path
  }
}

@Suite("cowatch with mpv and a library of one's own", .serialized, .enabled(if: MpvTools.available))
struct MpvCommandLineTests {
  @Test("two headless participants with mpv: they start and pause together on their own files")
  func headlessWithMpv() async throws {
    let library = try await MpvTools.library()
    defer { try? FileManager.default.removeItem(atPath: library) }
    let (relay, port) = try await CowatchProcess.relay(["--store", "memory"])
    defer { relay.terminate() }
    // Durations are cached under XDG_CACHE_HOME: keep the test's out of the home directory.
    setenv("XDG_CACHE_HOME", library + "/cache", 1)
    let options = [
      "--headless", "--trust-new-relay", "--player", "mpv", "--media", library, "--sample-ms",
      "100",
    ]
    // mpv's own options are given as the README shows them: a value that begins with "--".
    let ann = try CowatchProcess(
      ["join", "127.0.0.1:\(port)", "--name", "ann", "--mpv-args", "--volume=50 --mute=yes"]
        + options)
    defer { ann.terminate() }
    let bob = try CowatchProcess(["join", "127.0.0.1:\(port)", "--name", "bob"] + options)
    defer { bob.terminate() }
    await ann.waitForLine(containing: [#""event":"welcome""#], within: 20)
    await bob.waitForLine(containing: [#""event":"welcome""#], within: 20)

    ann.send("catalog")
    await ann.waitForLine(containing: [
      #""event":"catalog""#, #""id":"night-ferry/s1e2""#,
      #""title":"Night Ferry S01E02 Port Askaig""#,
    ])
    ann.send("start night-ferry/s1e1")
    await bob.waitForLine(containing: [#""event":"session""#, #""phase":"waiting""#])
    bob.send("join")
    await bob.waitForLine(containing: [
      #""event":"sample""#, #""item":"night-ferry/s1e1""#, #""rate":1"#,
    ])
    // A second or more into the episode (its samples say where the group is), then bob pauses.
    await ann.waitForLine(containing: [#""event":"sample""#, #""rate":1"#, #""group_position":1."#])
    bob.send("pause")
    let paused = try #require(
      await ann.waitForLine(containing: [#""kind":"paused""#, #""originator":"bob""#]))
    #expect(paused.contains("bob paused at 0:0"))
    // Both players stand at the group's pause point (what mpv reports, exactly).
    func pausedPosition(_ p: CowatchProcess) async -> String? {
      let line = await p.waitForLine(containing: [#""event":"sample""#, #""rate":0,"#], within: 10)
      return line.flatMap { $0.components(separatedBy: #""position":"#).dropFirst().first }
        .map { String($0.prefix { $0 != "," }) }
    }
    let a = await pausedPosition(ann)
    let b = await pausedPosition(bob)
    #expect(a != nil && a == b, "ann \(a ?? "?"), bob \(b ?? "?")")
    ann.closeInput()
    bob.closeInput()
    #expect(await ann.exitStatus() == 0)
    #expect(await bob.exitStatus() == 0)
  }

  @Test(
    "one who lacks the episode is told which and steps away, and so is one with no media folder at all; the group does not wait"
  )
  func missingEpisode() async throws {
    let library = try await MpvTools.library()
    defer { try? FileManager.default.removeItem(atPath: library) }
    // bob has only the first episode.
    let bobs = library + "-bob"
    try FileManager.default.createDirectory(
      atPath: bobs + "/Night Ferry", withIntermediateDirectories: true)
    try FileManager.default.copyItem(
      atPath: library + "/Night Ferry/Night.Ferry.S01E01.Departure.mp4",
      toPath: bobs + "/Night Ferry/night ferry s01e01.mp4")
    defer { try? FileManager.default.removeItem(atPath: bobs) }
    let (relay, port) = try await CowatchProcess.relay(["--store", "memory"])
    defer { relay.terminate() }
    setenv("XDG_CACHE_HOME", library + "/cache", 1)
    let common = ["--headless", "--trust-new-relay", "--player", "mpv", "--sample-ms", "200"]
    let ann = try CowatchProcess(
      ["join", "127.0.0.1:\(port)", "--name", "ann", "--media", library] + common)
    defer { ann.terminate() }
    let bob = try CowatchProcess(
      ["join", "127.0.0.1:\(port)", "--name", "bob", "--media", bobs] + common)
    defer { bob.terminate() }
    // carl has no media folder: mpv all the same (links are his to watch).
    let carl = try CowatchProcess(["join", "127.0.0.1:\(port)", "--name", "carl"] + common)
    defer { carl.terminate() }
    for person in [ann, bob, carl] {
      await person.waitForLine(containing: [#""event":"welcome""#], within: 20)
    }
    ann.send("start night-ferry/s1e2")
    for person in [bob, carl] {
      await person.waitForLine(containing: [#""event":"session""#, #""phase":"waiting""#])
      person.send("join")
      await person.waitForLine(containing: [
        #""event":"error""#, "you don't have Night Ferry · Night Ferry S01E02 Port Askaig (0:20)",
      ])
    }
    // The group plays on without bob (no 60 s wait for his load).
    await ann.waitForLine(containing: [#""event":"state""#, #""state":"playing""#], within: 10)
    await ann.waitForLine(containing: [
      #""event":"sample""#, #""item":"night-ferry/s1e2""#, #""rate":1"#,
    ])
    for person in [ann, bob, carl] { person.closeInput() }
    for person in [ann, bob, carl] { #expect(await person.exitStatus() == 0) }
  }

  @Test(
    "carol, with no media folder, watches from ann's copy: lent over TLS, in step, through a seek and a pause"
  )
  func borrowsFromALender() async throws {
    let library = try await MpvTools.library()
    defer { try? FileManager.default.removeItem(atPath: library) }
    let (relay, port) = try await CowatchProcess.relay(["--store", "memory"])
    defer { relay.terminate() }
    setenv("XDG_CACHE_HOME", library + "/cache", 1)
    let common = ["--headless", "--trust-new-relay", "--player", "mpv", "--sample-ms", "200"]
    let ann = try CowatchProcess(
      ["join", "127.0.0.1:\(port)", "--name", "ann", "--media", library, "--lend"] + common)
    defer { ann.terminate() }
    let carol = try CowatchProcess(["join", "127.0.0.1:\(port)", "--name", "carol"] + common)
    defer { carol.terminate() }
    for person in [ann, carol] {
      await person.waitForLine(containing: [#""event":"welcome""#], within: 20)
    }
    ann.send("start night-ferry/s1e1")
    await carol.waitForLine(containing: [#""event":"session""#, #""phase":"waiting""#])
    carol.send("join")
    // carol asks, ann lends, and carol's mpv plays ann's copy with the group.
    guard
      let playing = await carol.waitForLine(
        containing: [#""event":"sample""#, #""item":"night-ferry/s1e1""#, #""rate":1"#],
        within: 20)
    else {
      Issue.record(
        "carol: \(carol.output.filter { !$0.contains("sample") }.joined(separator: "\n"))\nann: \(ann.output.filter { !$0.contains("sample") }.suffix(20).joined(separator: "\n"))"
      )
      return
    }
    #expect(Self.groupPosition(playing) != nil)
    ann.send("seek 12")
    let seeked = try #require(
      await carol.waitForLine(
        after: 0,
        containing: [#""event":"sample""#, #""rate":1"#, #""group_position":12."#], within: 10))
    let position = seeked.line.components(separatedBy: #""position":"#).dropFirst().first
      .flatMap { Double($0.prefix { $0.isNumber || $0 == "." }) }
    let group = Self.groupPosition(seeked.line)
    #expect(
      position != nil && group != nil && abs(position! - group!) < 0.1,
      "carol plays the lent copy where the group is: \(seeked.line)")
    ann.send("pause")
    await carol.waitForLine(containing: [#""event":"sample""#, #""rate":0,"#], within: 10)
    // Everyone sees whose copy carol watches from.
    #expect(await ann.waitForLine(containing: ["carol watches from ann's copy"]) != nil)
    #expect(await ann.waitForLine(containing: [#""name":"carol""#, #""from":"ann""#]) != nil)
    ann.closeInput()
    carol.closeInput()
    #expect(await ann.exitStatus() == 0)
    #expect(await carol.exitStatus() == 0)
  }

  @Test(
    "carol's lender leaves (or stops lending): bob's copy takes over in step (the same file, or another cut carol's player reopens); bob stops lending (or leaves) too: carol steps away saying why",
    arguments: [true, false])
  func movesToAnotherLender(sameFile: Bool) async throws {
    let library = try await MpvTools.library()
    defer { try? FileManager.default.removeItem(atPath: library) }
    // bob's copy: the same file, or the same episode written out again (another size).
    let bobs = sameFile ? library : library + "-bob"
    if !sameFile {
      try FileManager.default.createDirectory(
        atPath: bobs + "/Night Ferry", withIntermediateDirectories: true)
      let remux = Process()
      remux.executableURL = URL(fileURLWithPath: "/usr/bin/env")
      remux.arguments = [
        "ffmpeg", "-hide_banner", "-loglevel", "error", "-y", "-i",
        library + "/Night Ferry/Night.Ferry.S01E01.Departure.mp4", "-c", "copy", "-metadata",
        "comment=bob's own copy", bobs + "/Night Ferry/Night.Ferry.S01E01.Departure.mp4",
      ]
      try remux.run()
      _ = try await blocking { remux.waitUntilExit() }
    }
    defer { if !sameFile { try? FileManager.default.removeItem(atPath: bobs) } }
    let (relay, port) = try await CowatchProcess.relay(["--store", "memory"])
    defer { relay.terminate() }
    setenv("XDG_CACHE_HOME", library + "/cache", 1)
    let common = ["--headless", "--trust-new-relay", "--player", "mpv", "--sample-ms", "200"]
    let lenders = try [("ann", library), ("bob", bobs)].map { name, media in
      try CowatchProcess(
        ["join", "127.0.0.1:\(port)", "--name", name, "--media", media, "--lend"] + common)
    }
    defer { for lender in lenders { lender.terminate() } }
    let carol = try CowatchProcess(["join", "127.0.0.1:\(port)", "--name", "carol"] + common)
    defer { carol.terminate() }
    for person in lenders + [carol] {
      await person.waitForLine(containing: [#""event":"welcome""#], within: 20)
    }
    lenders[0].send("start night-ferry/s1e1")
    for person in [lenders[1], carol] {
      await person.waitForLine(containing: [#""event":"session""#, #""phase":"waiting""#])
      person.send("join")
    }
    let told = try #require(
      await carol.waitForLine(containing: ["carol watches from", "'s copy"], within: 20))
    let first = told.contains("from ann's copy") ? 0 : 1
    let (lender, other) = (lenders[first], lenders[1 - first])
    let otherName = first == 0 ? "bob" : "ann"
    #expect(
      await carol.waitForLine(
        containing: [#""event":"sample""#, #""item":"night-ferry/s1e1""#, #""rate":1"#],
        within: 20) != nil)

    // The lender leaves (with the same file) or stops lending (another cut): carol's reads
    // go to the other's copy.
    let mark = carol.output.count
    if sameFile {
      lender.closeInput()
      #expect(await lender.exitStatus() == 0)
    } else {
      lender.send("lend off")
      #expect(
        await lender.waitForLine(containing: [#""event":"note""#, "carol no longer read"]) != nil)
    }
    let moved = try #require(
      await carol.waitForLine(
        after: mark, containing: ["carol watches from \(otherName)'s copy"], within: 15))
    let playing = try #require(
      await carol.waitForLine(
        after: moved.index, containing: [#""event":"sample""#, #""rate":1"#], within: 15))
    let position = playing.line.components(separatedBy: #""position":"#).dropFirst().first
      .flatMap { Double($0.prefix { $0.isNumber || $0 == "." }) }
    let group = Self.groupPosition(playing.line)
    #expect(
      position != nil && group != nil && abs(position! - group!) < 0.25,
      "carol plays on from the other copy where the group is: \(playing.line)")
    // Another cut is played from its start again: carol's player reopened on it, saying so.
    #expect(
      carol.output[mark...].contains { $0.contains("another cut of it") } == !sameFile,
      "\(carol.output[mark...].filter { !$0.contains("sample") }.joined(separator: "\n"))")

    // Paused, so that the 20 s episode does not end first.
    other.send("pause")
    #expect(
      await carol.waitForLine(
        after: playing.index, containing: [#""event":"sample""#, #""rate":0,"#], within: 10)
        != nil)
    // The other stops lending, or leaves, in turn: nobody lends it now, and carol says why
    // (the last answer heard: the first lender no longer lends).
    if sameFile { other.send("lend off") } else { other.closeInput() }
    #expect(
      await carol.waitForLine(
        after: moved.index,
        containing: [
          "stepping away until the group plays something you have", "lend their copies",
        ],
        within: 20) != nil,
      "\(carol.output.filter { !$0.contains("sample") }.suffix(12).joined(separator: "\n"))")
    lender.closeInput()
    other.closeInput()
    carol.closeInput()
    #expect(await carol.exitStatus() == 0)
  }

  @Test("one whose file differs in duration from the group's is warned, once, and watches on")
  func durationMismatch() async throws {
    let library = try await MpvTools.library()
    defer { try? FileManager.default.removeItem(atPath: library) }
    // bob's copy of the first episode is another cut: 17 s instead of 20.
    let bobs = library + "-bob"
    try FileManager.default.createDirectory(
      atPath: bobs + "/Night Ferry", withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: bobs) }
    let cut = Process()
    cut.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    cut.arguments = [
      "ffmpeg", "-hide_banner", "-loglevel", "error", "-y", "-i",
      library + "/Night Ferry/Night.Ferry.S01E01.Departure.mp4", "-t", "17", "-c", "copy",
      bobs + "/Night Ferry/Night.Ferry.S01E01.mp4",
    ]
    try cut.run()
    _ = try await blocking { cut.waitUntilExit() }
    let (relay, port) = try await CowatchProcess.relay(["--store", "memory"])
    defer { relay.terminate() }
    setenv("XDG_CACHE_HOME", library + "/cache", 1)
    let common = ["--headless", "--trust-new-relay", "--player", "mpv", "--sample-ms", "200"]
    let ann = try CowatchProcess(
      ["join", "127.0.0.1:\(port)", "--name", "ann", "--media", library] + common)
    defer { ann.terminate() }
    let bob = try CowatchProcess(
      ["join", "127.0.0.1:\(port)", "--name", "bob", "--media", bobs] + common)
    defer { bob.terminate() }
    await ann.waitForLine(containing: [#""event":"welcome""#], within: 20)
    await bob.waitForLine(containing: [#""event":"welcome""#], within: 20)
    ann.send("start night-ferry/s1e1")
    await bob.waitForLine(containing: [#""event":"session""#, #""phase":"waiting""#])
    bob.send("join")
    await bob.waitForLine(containing: [
      #""event":"error""#,
      "your file of Night Ferry · Night Ferry S01E01 Departure is 0:17 long and the group's is 0:20",
    ])
    // He plays with the group all the same, and for a second more (his samples say so)
    // is not told again.
    let playing = try #require(
      await bob.waitForLine(
        after: 0,
        containing: [#""event":"sample""#, #""item":"night-ferry/s1e1""#, #""rate":1"#]))
    let start = Self.groupPosition(playing.line) ?? 0
    var next = playing.index
    while let sample = await bob.waitForLine(
      after: next + 1, containing: [#""event":"sample""#, #""rate":1"#]),
      (Self.groupPosition(sample.line) ?? 0) < start + 1
    {
      next = sample.index
    }
    #expect(bob.output.filter { $0.contains("your file of") }.count == 1, "told once")
    #expect(!ann.output.contains { $0.contains("your file of") }, "ann's file is the group's")
    ann.closeInput()
    bob.closeInput()
    #expect(await ann.exitStatus() == 0)
    #expect(await bob.exitStatus() == 0)
  }

  @Test(
    "mpv killed: the group goes on, Cowatch offers a restart, and restart-player brings it back in step"
  )
  func restartAfterCrash() async throws {
    let library = try await MpvTools.library()
    defer { try? FileManager.default.removeItem(atPath: library) }
    let (relay, port) = try await CowatchProcess.relay(["--store", "memory"])
    defer { relay.terminate() }
    setenv("XDG_CACHE_HOME", library + "/cache", 1)
    let options = [
      "--headless", "--trust-new-relay", "--player", "mpv", "--media", library, "--sample-ms",
      "200",
    ]
    let ann = try CowatchProcess(["join", "127.0.0.1:\(port)", "--name", "ann"] + options)
    defer { ann.terminate() }
    let bob = try CowatchProcess(["join", "127.0.0.1:\(port)", "--name", "bob"] + options)
    defer { bob.terminate() }
    await ann.waitForLine(containing: [#""event":"welcome""#], within: 20)
    await bob.waitForLine(containing: [#""event":"welcome""#], within: 20)
    ann.send("start night-ferry/s1e1")
    await bob.waitForLine(containing: [#""event":"session""#, #""phase":"waiting""#])
    bob.send("join")
    await bob.waitForLine(containing: [#""event":"sample""#, #""rate":1"#])

    // bob's mpv dies, as in a crash.
    let pgrep = Process()
    pgrep.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    pgrep.arguments = ["pgrep", "-P", "\(bob.processIdentifier)", "mpv"]
    let out = Pipe()
    pgrep.standardOutput = out
    try pgrep.run()
    _ = try await blocking { pgrep.waitUntilExit() }
    let pid = try #require(
      Int32(
        String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
          .split(separator: "\n").first ?? ""))
    kill(pid, SIGKILL)
    await bob.waitForLine(containing: [
      #""event":"error""#, "your player cannot follow", #""offer":"restart-player""#,
    ])
    await ann.waitForLine(containing: [#""kind":"suspended""#, #""originator":"bob""#])
    let before = bob.output.count
    bob.send("restart-player")
    // He is back with the group: playing the episode where the group is.
    await ann.waitForLine(containing: [#""kind":"resumed""#, #""originator":"bob""#], within: 20)
    await bob.waitForLine(
      after: before,
      containing: [#""event":"sample""#, #""item":"night-ferry/s1e1""#, #""rate":1"#],
      within: 20)
    ann.closeInput()
    bob.closeInput()
    #expect(await ann.exitStatus() == 0)
    #expect(await bob.exitStatus() == 0)
  }

  @Test(
    "--media naming a folder with no video in it (a wrong path, most likely): one clear line, non-zero exit"
  )
  func badOptions() async throws {
    let empty = FileManager.default.temporaryDirectory
      .appendingPathComponent("cowatch-empty-\(UInt64.random(in: 0...UInt64.max))")
    try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: empty) }
    let (relay, port) = try await CowatchProcess.relay(["--store", "memory"])
    defer { relay.terminate() }
    let join = try CowatchProcess([
      "join", "127.0.0.1:\(port)", "--name", "ann", "--player", "mpv", "--media", empty.path,
      "--headless",
    ])
    #expect(await join.exitStatus() != 0)
    #expect(join.standardError.contains("no playable video files"))
    #expect(!join.standardError.contains("Fatal"))
  }

  /// Where the group was, in a headless sample line.
  static func groupPosition(_ line: String) -> Double? {
    line.components(separatedBy: #""group_position":"#).dropFirst().first
      .flatMap { Double($0.prefix { $0.isNumber || $0 == "." }) }
  }
}
