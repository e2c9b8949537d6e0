import ArgumentParser
import Foundation

/// Cowatch and Syncplay 1.6.9 side by side: the same propagation and scale workloads,
/// the same lightweight client harness, both servers as separate processes inside a
/// network namespace that has only loopback (Syncplay listens on every interface).
struct SyncplayCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "syncplay",
    abstract: "Cowatch and Syncplay side by side (installs syncplay-server; runs in `unshare -n`).")
  @OptionGroup var common: CommonOptions
  @Option(help: "Propagation room sizes.") var sizes = "2,10,50"
  @Option(help: "Rounds of pause, seek and play per size.") var rounds = 20
  @Option(help: "Scale participant counts.") var scaleSizes = "100,500,1000,2000,5000"
  @Option(help: "Measured seconds per scale step.") var seconds = 8.0

  func run() async throws {
    if NetworkNamespace.isInside {
      try await inside()
      return
    }
    try NetworkNamespace.ensureInstalled("syncplay-server", package: "syncplay-server")
    try NetworkNamespace.rerunInside()
  }

  private func inside() async throws {
    let limit = raiseFileLimit()
    let version = Machine.run("/usr/bin/dpkg-query", ["-W", "-f=${Version}", "syncplay-server"])
    let sizes = common.smoke ? [2] : self.sizes.split(separator: ",").compactMap { Int($0) }
    let rounds = common.smoke ? 2 : self.rounds
    var prop = Table(
      "participants", "Cowatch p50 / p99 / max (ms)", "Syncplay p50 / p99 / max (ms)",
      "Syncplay ÷ Cowatch (p50, p99)")
    for size in sizes {
      progress("side by side propagation: \(size) participants")
      let c = try await LoadBench.propagation(.cowatch, size: size, rounds: rounds) {
        try ServerProcess.cowatch()
      }
      let s = try await LoadBench.propagation(.syncplay, size: size, rounds: rounds) {
        try await ServerProcess.syncplay(port: 8999)
      }
      prop.add(
        "\(size)", c.text(3), s.text(3), "\(fmt(s.p50 / c.p50, 1))×, \(fmt(s.p99 / c.p99, 1))×")
    }
    emit("Propagation, Cowatch vs Syncplay (loopback, lightweight clients)", prop)
    let scaleSizes =
      common.smoke ? [10] : self.scaleSizes.split(separator: ",").compactMap { Int($0) }
    let secs = common.smoke ? 2 : seconds
    let cs = await LoadBench.scale(.cowatch, sizes: scaleSizes, roomSize: 5, seconds: secs) {
      try ServerProcess.cowatch()
    }
    let ss = await LoadBench.scale(.syncplay, sizes: scaleSizes, roomSize: 5, seconds: secs) {
      try await ServerProcess.syncplay(port: 8999)
    }
    var scale = Table(
      "participants", "Cowatch p99 (ms)", "Syncplay p99 (ms)", "p99 ratio", "Cowatch CPU %",
      "Syncplay CPU %",
      "Cowatch KiB/participant", "Syncplay KiB/participant",
      "KiB per added participant, Cowatch / Syncplay", "notes")
    for n in scaleSizes {
      let c = cs.first { $0.participants == n }
      let s = ss.first { $0.participants == n }
      guard c != nil || s != nil else { continue }
      let ratio = (c != nil && s != nil) ? "\(fmt(s!.latency.p99 / c!.latency.p99, 1))×" : "–"
      scale.add(
        "\(n)", c.map { fmt($0.latency.p99) } ?? "–", s.map { fmt($0.latency.p99) } ?? "–", ratio,
        c.map { fmt($0.cpuPercent, 0) } ?? "–", s.map { fmt($0.cpuPercent, 0) } ?? "–",
        c.map { fmt($0.perParticipantKB, 1) } ?? "–", s.map { fmt($0.perParticipantKB, 1) } ?? "–",
        [LoadBench.addedKB(cs, at: n), LoadBench.addedKB(ss, at: n)]
          .map { $0.map { fmt($0, 1) } ?? "–" }.joined(separator: " / "),
        [
          c.map { $0.note.isEmpty ? "" : "cowatch: \($0.note)" } ?? "",
          s.map { $0.note.isEmpty ? "" : "syncplay: \($0.note)" } ?? "",
        ]
        .filter { !$0.isEmpty }.joined(separator: "; "))
    }
    emit("Scale, Cowatch vs Syncplay (rooms of 5, one seek per room per second)", scale)
    let cBest = LoadBench.largestUnder(50, cs).map { "\($0)" } ?? "none tried"
    let sBest = LoadBench.largestUnder(50, ss).map { "\($0)" } ?? "none tried"
    print("\nlargest N with p99 < 50 ms — Cowatch: \(cBest), Syncplay: \(sBest)")
    Report.write(
      section: "syncplay", title: "5. Side by side with Syncplay \(version)",
      body: """
        Both servers run as separate processes inside a network namespace that has only
        loopback (`unshare -n`, then `ip link set lo up`; Syncplay 1.6.9 listens on every
        interface); the bench re-executes itself inside it. Both are driven by the same
        lightweight NIO clients. Cowatch: hello, ping every second, commands, updates. Syncplay
        (protocol read from `/usr/lib/python3/dist-packages/syncplay/protocols.py` and
        `server.py`): one JSON object per line with CRLF, `Hello` with username, room and
        version, then `State` messages — the client answers every server `State` with its own
        (echoing `latencyCalculation` and `ignoringOnTheFly.server`, as the real client does;
        that is also Syncplay's heartbeat, its server pushing state every second); a pause,
        unpause or seek is a `State` with `paused`/`doSeek` set, which the server forwards at
        once as a forced `State` with `setBy`. Propagation is from the sender's write to each
        other member reading the change (Cowatch `update` carrying the event; Syncplay `State`
        from the sender with the new `paused`/`doSeek`). Neither side has a player here, so
        these are relay + protocol figures, not screen-to-screen ones.

        Propagation, one room, \(rounds) rounds of pause, seek and play from the room's first member:

        \(prop.markdown)

        Scale, rooms of five, each room's first member seeking once a second, \(Int(secs)) s measured per step
        (relay CPU from /proc/PID/stat; RSS from VmRSS, above the idle server once ten
        participants have come, sought and left, so that what the first connections cost
        once — code paged in, first allocations — is not counted per participant; "per added
        participant" is the growth of RSS from the size before). Largest N with p99 < 50 ms —
        Cowatch: **\(cBest)**, Syncplay: **\(sBest)** (of the sizes tried). The open-file limit was \(limit).

        \(scale.markdown)
        """, smoke: common.smoke)
  }
}
