import DemoScript
import Foundation
import Media
import ParticipantRuntime
import Participation
import PlaybackCoordination
import Testing

@Suite("demo script parser")
struct ScriptParserTests {
  @Test("every construct: speed, relay, participants with options, actions, stalls, expectations")
  func everyConstruct() throws {
    let script = try parse(
      """
      # A comment, then a blank line

      speed 2.5
      relay rebuffer-timeout=4s suspension-timeout=3500ms first-load-timeout=0:20
      participant ann autoadvance=on drift=+200ppm latency=50ms load=1s seed=7
      participant bob stall-chance=0.02 stall-length=1s-3s drift=-150ppm arrives-at=0:02
        # indented comment
      at 0:00 ann start harbour/s1e1
      at 0:02 bob join
      at 0:05 bob pause
      at 0:05.5 bob say hello there
      at 6 ann tell bob psst
      at 0:06 expect ann,bob state paused position 0:05±0.5 item harbour/s1e1 together ±0.1
      at 0:07 ann stall 4s
      at 0:08 expect all waiting-for ann within 3s
      at 0:09 expect bob notice "bob paused" chat "ann: psst" prompt none rate 1 autoadvance off
      at 0:10 expect ann position 1:00+-0.25 waiting-for nobody error "nothing" item none state none
      """)
    #expect(script.speed == 2.5)
    #expect(
      script.relay
        == RelaySettings(rebufferTimeout: 4, suspensionTimeout: 3.5, firstLoadTimeout: 20))
    let engine = script.relay.applied()
    #expect(
      engine.rebufferTimeout == 4 && engine.suspensionWaitTimeout == 3.5
        && engine.firstLoadTimeout == 20)

    let ann = try #require(script.participant("ann"))
    #expect(ann.line == 5 && ann.autoAdvance && ann.arrivesAt == 0)
    #expect(ann.player.driftPPM == 200 && ann.player.playLatency == 0.05...0.05)
    #expect(
      ann.player.seekLatency == 0.05...0.05 && ann.player.loadLatency == 1...1
        && ann.player.seed == 7)
    let bob = try #require(script.participant("bob"))
    #expect(!bob.autoAdvance && bob.arrivesAt == 2 && bob.player.driftPPM == -150)
    #expect(bob.player.stallsPerSecond == 0.02 && bob.player.stallDuration == 1...3)
    #expect(bob.player.seed == ParticipantDeclaration.seed(for: "bob"))

    let kinds = script.steps.map(\.kind)
    #expect(
      Array(kinds.prefix(8)) == [
        .arrive(participant: "ann"),
        .act(participant: "ann", action: .start("harbour/s1e1")),
        .arrive(participant: "bob"),
        .act(participant: "bob", action: .join),
        .act(participant: "bob", action: .playback(.pause)),
        .act(participant: "bob", action: .say("hello there")),
        .act(participant: "ann", action: .tell(.line("bob psst"))),
        .expect(
          Expectation(
            who: .some(["ann", "bob"]),
            checks: [
              .state(.paused), .position(5, tolerance: 0.5), .item("harbour/s1e1"),
              .together(tolerance: 0.1),
            ],
            summary: "ann,bob state paused position 0:05±0.5 item harbour/s1e1 together ±0.1")),
      ])
    #expect(kinds[8] == .stall(participant: "ann", duration: 4))
    #expect(
      kinds[9]
        == .expect(
          Expectation(
            who: .all, checks: [.waitingFor(["ann"])], grace: 3,
            summary: "all waiting-for ann within 3s")))
    guard case .expect(let notices) = kinds[10], case .expect(let last) = kinds[11] else {
      Issue.record("expected two expectations, got \(kinds.suffix(2))")
      return
    }
    #expect(
      notices.checks == [
        .notice("bob paused"), .chat("ann: psst"), .prompt(nil), .rate(1), .autoAdvance(false),
      ])
    #expect(
      last.checks == [
        .position(60, tolerance: 0.25), .waitingFor([]), .error("nothing"), .item(nil),
        .state(.none),
      ])
    #expect(script.steps.map(\.line) == [5, 8, 6, 9, 10, 11, 12, 13, 14, 15, 16, 17])
    #expect(script.steps.map(\.time) == [0, 0, 2, 2, 5, 5.5, 6, 6, 7, 8, 9, 10])
    #expect(script.expectationCount == 4 && script.length == 10)
  }

  @Test("the default demo parses against the catalog and uses the harbour series")
  func defaultDemoParses() throws {
    let script = try DemoScript.load(
      from: repositoryRoot + "/Media/demo.cowatch", catalog: testCatalog)
    #expect(script.participants.count >= 3)
    #expect(script.expectationCount >= 20)
    #expect(script.length <= 150)
    for step in script.steps {
      if case .act(_, .start(let item)) = step.kind { #expect(item.rawValue.hasPrefix("harbour/")) }
    }
  }

  @Test("default tolerances and a quoted text with an escaped quote")
  func defaults() throws {
    let script = try parse(
      """
      participant ann
      participant bob
      at 0:01 expect all position 0:01 together
      at 0:02 expect ann notice "said \\"hi\\"" chat word
      """)
    guard case .expect(let first) = script.steps[2].kind,
      case .expect(let second) = script.steps[3].kind
    else {
      Issue.record("expected expectations")
      return
    }
    #expect(first.checks == [.position(1, tolerance: 0.5), .together(tolerance: 0.25)])
    #expect(second.checks == [.notice("said \"hi\""), .chat("word")])
  }

  @Test(
    "a bad line is an error naming its line, before anything runs",
    arguments: [
      (
        "participant ann\nat 0:00 ann start harbour/s1e1\n\nat 0:02 zed join", 4,
        "unknown participant \"zed\""
      ),
      ("participant ann\nat 0:00 ann dance", 2, "unknown action \"dance\""),
      ("participant ann\nat 0:00 ann seek soon", 2, "\"seek soon\": expected a time"),
      ("participant ann\nat 0:00 ann pause now", 2, "takes no argument"),
      ("participant ann\nat 1:75 ann join", 2, "malformed time \"1:75\""),
      ("participant ann\nat later ann join", 2, "malformed time \"later\""),
      (
        "participant ann\nat 0:05 ann join\n# fine\nat 0:04 ann pause", 4,
        "time 0:04 is before 0:05 on line 2"
      ),
      ("participant ann\nat 0:00 ann start harbour/s9e9", 2, "no item harbour/s9e9 in the catalog"),
      ("participant ann\nat 0:00 ann switch nowhere", 2, "expected SERIES/EPISODE"),
      ("participant ann\nparticipant ann", 2, "already declared on line 1"),
      ("participant all", 1, "bad participant name \"all\""),
      ("participant ann!", 1, "bad participant name"),
      ("participant ann drift=fast", 1, "drift=fast: expected parts per million"),
      ("participant ann colour=red", 1, "unknown option \"colour\""),
      ("participant ann latency=50ms latency=60ms", 1, "option \"latency\" is given twice"),
      ("participant ann stall-length=3s-1s", 1, "stall-length=3s-1s"),
      ("participant ann autoadvance=maybe", 1, "expected on or off"),
      ("participant ann arrives-at=0:10\nat 0:05 ann join", 2, "ann only arrives at 0:10"),
      (
        "participant ann arrives-at=0:10\nat 0:05 expect ann state none", 2,
        "ann only arrives at 0:10"
      ),
      ("speed 100", 1, "bad speed \"100\""),
      ("speed", 1, "\"speed\" needs"),
      ("relay rebuffer-timeout=0s", 1, "rebuffer-timeout=0s"),
      ("relay wait=5s", 1, "unknown option \"wait\""),
      ("relay", 1, "\"relay\" needs"),
      ("participant ann\nwhen 0:01 ann join", 2, "unknown line \"when\""),
      ("participant ann\nat", 2, "\"at\" needs a time"),
      ("participant ann\nat 0:01", 2, "needs a participant and an action, or expect"),
      ("participant ann\nat 0:01 ann", 2, "empty action"),
      ("participant ann\nat 0:01 ann stall", 2, "\"stall\" needs a duration"),
      ("participant ann\nat 0:01 ann stall long", 2, "stall=long"),
      ("participant ann\nat 0:01 expect ann", 2, "needs at least one check"),
      ("participant ann\nat 0:01 expect", 2, "\"expect\" needs who"),
      ("participant ann\nat 0:01 expect ann colour red", 2, "unknown check \"colour\""),
      (
        "participant ann\nat 0:01 expect ann state dancing", 2, "\"state dancing\": expected one of"
      ),
      ("participant ann\nat 0:01 expect ann state", 2, "\"state\" needs"),
      ("participant ann\nat 0:01 expect ann position soon", 2, "\"position soon\""),
      ("participant ann\nat 0:01 expect ann position 0:01±lots", 2, "expected a tolerance"),
      ("participant ann\nat 0:01 expect ann together", 2, "\"together\" needs at least two"),
      ("participant ann\nat 0:01 expect ann waiting-for zed", 2, "unknown participant \"zed\""),
      ("participant ann\nat 0:01 expect ann item harbour/s9e9", 2, "no item harbour/s9e9"),
      ("participant ann\nat 0:01 expect ann notice \"open", 2, "a quoted text is not closed"),
      ("participant ann\nat 0:01 expect ann rate fast", 2, "\"rate fast\""),
      ("participant ann\nat 0:01 expect zed state none", 2, "unknown participant \"zed\""),
      ("participant ann\nat 0:01 ann tell zed hi", 2, "unknown participant \"zed\""),
    ])
  func errors(text: String, line: Int, message: String) throws {
    let error = try #require(failure(text))
    #expect(error.line == line)
    #expect(error.message.hasPrefix("test.cowatch:\(line): "))
    #expect(error.message.contains(message), "\(error.message)")
  }

  @Test("a missing file is named without a line")
  func missingFile() {
    #expect(throws: ScriptError.self) { try DemoScript.load(from: "/nonexistent/demo.cowatch") }
    do {
      _ = try DemoScript.load(from: "/nonexistent/demo.cowatch")
    } catch {
      #expect(
        error.description == "/nonexistent/demo.cowatch: cannot read the script: no such file")
    }
  }

  @Test("a directory, or a file that is not text, is said in words")
  func notAScript() throws {
    let directory = FileManager.default.temporaryDirectory.path
    #expect {
      _ = try DemoScript.load(from: directory)
    } throws: { error in
      "\(error)" == "\(directory): cannot read the script: it is a directory"
    }
    let binary = directory + "/cowatch-not-text-\(getpid()).cowatch"
    try Data([0xFF, 0xFE, 0x00, 0xC3]).write(to: URL(fileURLWithPath: binary))
    defer { try? FileManager.default.removeItem(atPath: binary) }
    #expect {
      _ = try DemoScript.load(from: binary)
    } throws: { error in
      "\(error)" == "\(binary): cannot read the script: it is not UTF-8 text"
    }
  }

  @Test("arrivals come before anything else at their time; declaration order breaks ties")
  func arrivalsFirst() throws {
    let script = try parse(
      """
      participant ann
      at 0:00 ann start harbour/s1e1
      participant bob arrives-at=0:03
      participant cat arrives-at=0:03
      at 0:03 bob join
      at 0:03 cat join
      """)
    #expect(
      script.steps.map(\.kind) == [
        .arrive(participant: "ann"), .act(participant: "ann", action: .start("harbour/s1e1")),
        .arrive(participant: "bob"), .arrive(participant: "cat"),
        .act(participant: "bob", action: .join), .act(participant: "cat", action: .join),
      ])
  }

  @Test("durations and script times read as people write them")
  func durations() {
    #expect(ScriptTime.parseDuration("3s") == 3)
    #expect(ScriptTime.parseDuration("1.5s") == 1.5)
    #expect(ScriptTime.parseDuration("250ms") == 0.25)
    #expect(ScriptTime.parseDuration("0:03") == 3)
    #expect(ScriptTime.parseDuration("2") == 2)
    #expect(ScriptTime.parseDuration("-1s") == nil)
    #expect(ScriptTime.parseDuration("soon") == nil)
    #expect(ScriptTime.format(65) == "1:05")
    #expect(ScriptTime.format(65.5) == "1:05.5")
    #expect(ScriptTime.stamp(92.7) == "[1:32]")
  }
}
