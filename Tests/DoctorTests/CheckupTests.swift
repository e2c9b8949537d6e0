import Foundation
import Testing

@testable import Doctor

/// A machine with everything a watch night needs; each test changes one fact.
private func healthy() -> MachineFacts {
  MachineFacts(
    mpv: .found(path: "/usr/bin/mpv", version: "mpv 0.35.1 Copyright © 2000-2023 mpv/MPlayer"),
    playback: .played(what: "a test picture"),
    ytdlp: .found(path: "/usr/bin/yt-dlp", version: "2023.03.04"),
    terminal: .init(isTerminal: true, columns: 120, rows: 35, colors: 256, term: "xterm-256color"),
    directories: [
      .init(role: "state", path: "/home/ann/.local/state/cowatch"),
      .init(role: "config", path: "/home/ann/.config/cowatch"),
    ],
    knownRelays: .init(path: "/home/ann/.config/cowatch/known-relays", count: 2),
    router: .answered(method: "upnp", outside: "203.0.113.5"),
    listening: .init(port: 7700, addresses: ["192.168.1.5"]),
    clockSynchronised: true)
}

private func finding(_ check: String, _ facts: MachineFacts) throws -> DoctorFinding {
  try #require(Checkup.findings(facts).first { $0.check == check })
}

@Suite struct CheckupTests {
  @Test("a healthy machine: every check ok, exit status 0, ready for a watch night")
  func healthyMachine() {
    let findings = Checkup.findings(healthy())
    #expect(
      findings.map(\.check) == [
        "mpv", "playback", "yt-dlp", "terminal", "state-directory", "config-directory",
        "known-relays", "router", "listen", "clock",
      ])
    #expect(findings.allSatisfy { $0.status == .ok }, "\(findings.filter { $0.status != .ok })")
    #expect(Checkup.exitStatus(findings) == 0)
    #expect(DoctorReport.text(findings).hasSuffix("Ready for a watch night."))
  }

  @Test("mpv missing or too old is a problem that says what to install; a new one is fine")
  func mpv() throws {
    var facts = healthy()
    facts.mpv = .missing
    let missing = try finding("mpv", facts)
    #expect(missing.status == .problem)
    #expect(missing.advice?.contains("apt install mpv") == true)
    #expect(Checkup.exitStatus(Checkup.findings(facts)) == 1)

    facts.mpv = .found(path: "/opt/mpv", version: "mpv 0.33.1 Copyright")
    let old = try finding("mpv", facts)
    #expect(old.status == .problem)
    #expect(old.summary == "/opt/mpv is mpv 0.33.1, too old: Cowatch needs mpv 0.34 or later")

    facts.mpv = .found(path: "/usr/bin/mpv", version: "mpv v0.39.0 Copyright")
    #expect(try finding("mpv", facts).status == .ok)
    facts.mpv = .found(path: "/usr/bin/mpv", version: "mpv v0.42.0 Copyright")
    let newer = try finding("mpv", facts)
    #expect(newer.status == .ok)
    #expect(newer.summary.contains("newer than 0.40"))
    facts.mpv = .found(path: "/usr/bin/mpv", version: nil)
    #expect(try finding("mpv", facts).status == .warning)
  }

  @Test("playback: played is ok, a failure is a problem with mpv's reason, not tried a warning")
  func playback() throws {
    var facts = healthy()
    #expect(try finding("playback", facts).summary.contains("a second of a test picture"))
    facts.playback = .failed(what: "e1.mkv", reason: "mpv could not open e1.mkv")
    let failed = try finding("playback", facts)
    #expect(failed.status == .problem)
    #expect(failed.summary.contains("mpv could not open e1.mkv"))
    facts.playback = .notTried("mpv is not installed")
    #expect(try finding("playback", facts).status == .warning)
  }

  @Test("yt-dlp missing is a warning: plain links still play")
  func ytdlp() throws {
    var facts = healthy()
    facts.ytdlp = .missing
    let missing = try finding("yt-dlp", facts)
    #expect(missing.status == .warning)
    #expect(missing.advice?.contains("apt install yt-dlp") == true)
    #expect(Checkup.exitStatus(Checkup.findings(facts)) == 0)
  }

  @Test(
    "the terminal: too small for panes, squeezed, no colours, or not a terminal are warnings",
    arguments: [
      (
        MachineFacts.Terminal(isTerminal: true, columns: 30, rows: 10, colors: 256, term: "xterm"),
        "compact list"
      ),
      (
        MachineFacts.Terminal(isTerminal: true, columns: 60, rows: 15, colors: 256, term: "xterm"),
        "squeezed"
      ),
      (
        MachineFacts.Terminal(isTerminal: true, columns: 120, rows: 35, colors: 2, term: "vt100"),
        "no colours"
      ),
      (MachineFacts.Terminal(isTerminal: false), "not run in a terminal"),
    ])
  func terminal(shape: MachineFacts.Terminal, words: String) throws {
    var facts = healthy()
    facts.terminal = shape
    let found = try finding("terminal", facts)
    #expect(found.status == .warning)
    #expect(found.summary.contains(words), "\(found.summary)")
  }

  @Test("a directory Cowatch cannot write to is a problem naming the variable that moves it")
  func directories() throws {
    var facts = healthy()
    facts.directories[0].problem = "/home/ann/.local: Permission denied"
    let state = try finding("state-directory", facts)
    #expect(state.status == .problem)
    #expect(state.advice?.contains("XDG_STATE_HOME") == true)
  }

  @Test("known relays: none yet is fine, an unreadable file a warning")
  func knownRelays() throws {
    var facts = healthy()
    facts.knownRelays = .init(path: "/k", count: 0)
    #expect(try finding("known-relays", facts).summary.contains("no relay trusted yet"))
    facts.knownRelays = .init(path: "/k", count: 0, problem: "Permission denied")
    #expect(try finding("known-relays", facts).status == .warning)
  }

  @Test(
    "the router: no answer, carrier-grade NAT and an address that is no address are warnings",
    arguments: [
      (
        MachineFacts.Router.silent(["UPnP: no router answered", "NAT-PMP: timed out"]),
        "no home router answered"
      ),
      (MachineFacts.Router.answered(method: "upnp", outside: "100.64.3.2"), "carrier-grade NAT"),
      (MachineFacts.Router.answered(method: "natpmp", outside: nil), "carrier-grade NAT"),
      (
        MachineFacts.Router.answered(method: "upnp", outside: "1.2.3.4;reboot"),
        "not the internet's"
      ),
    ])
  func router(router: MachineFacts.Router, words: String) throws {
    var facts = healthy()
    facts.router = router
    let found = try finding("router", facts)
    #expect(found.status == .warning)
    #expect(found.summary.contains(words), "\(found.summary)")
    #expect(found.advice?.contains("cowatch serve") == true)
  }

  @Test("a port in use, or no address beyond loopback, is a warning")
  func listening() throws {
    var facts = healthy()
    facts.listening = .init(port: 7700, problem: "it is in use", addresses: ["192.168.1.5"])
    #expect(try finding("listen", facts).status == .warning)
    #expect(try finding("listen", facts).advice?.contains("--port") == true)
    facts.listening = .init(port: 7700, addresses: [])
    #expect(try finding("listen", facts).summary.contains("no address beyond loopback"))
  }

  @Test("an unsynchronised clock is a warning, an unknown one is not")
  func clock() throws {
    var facts = healthy()
    facts.clockSynchronised = false
    #expect(try finding("clock", facts).status == .warning)
    facts.clockSynchronised = nil
    #expect(try finding("clock", facts).status == .ok)
  }

  @Test("--json: one object per check with check, status, summary and advice when there is one")
  func json() throws {
    var facts = healthy()
    facts.ytdlp = .missing
    let lines = DoctorReport.jsonLines(Checkup.findings(facts))
    #expect(lines.count == 10)
    for line in lines {
      let object = try #require(
        try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String])
      #expect(object["check"] != nil && object["summary"] != nil)
      #expect(["ok", "warning", "problem"].contains(object["status"] ?? ""))
    }
    #expect(lines[2].contains(#""advice":"links to video sites"#))
    let text = DoctorReport.text(Checkup.findings(facts))
    #expect(text.hasSuffix("1 warning: a watch night can go ahead."))
  }
}
