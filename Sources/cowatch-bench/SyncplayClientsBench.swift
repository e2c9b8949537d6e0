import ArgumentParser
import Foundation
import Logging
import RelayRuntime
import SyncplayHarness
import SyncplayServer

/// The same two Syncplay clients (Debian's, `syncplay --no-gui`, each with its mpv) served
/// by syncplay-server and then by Cowatch's Syncplay port: one pauses and plays in its
/// client, the other is measured — where it stops after the remote pause, how far it is
/// from the first after a minute of playing, and how often it was made to seek.
struct SyncplayClientsCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "syncplay-clients",
    abstract:
      "Syncplay's own client served by syncplay-server and by Cowatch's Syncplay port, side by side (installs Debian's syncplay; runs in `unshare -n`)."
  )
  @OptionGroup var common: CommonOptions
  @Option(help: "Seconds of playing before the drift is read.") var seconds = 60.0
  @Option(help: "Remote pauses measured.") var rounds = 6

  struct Results {
    var overshoot: [Double] = []
    var drift: [Double] = []
    var endDrift = Double.nan
    var seeks = 0
    var startSpread: [Double] = []
  }

  func run() async throws {
    if !NetworkNamespace.isInside {
      try NetworkNamespace.ensureInstalled("syncplay-server", package: "syncplay-server")
      try NetworkNamespace.ensureInstalled("syncplay", package: "syncplay")
      try NetworkNamespace.rerunInside()
      return
    }
    BenchLogging.setup()
    let seconds = common.smoke ? 5 : seconds
    let rounds = common.smoke ? 1 : rounds
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("cowatch-bench-syncplay-clients-\(getpid())")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let clip = directory.appendingPathComponent("Night.Ferry.S01E03.mp4").path
    try TestClip.make(clip, seconds: max(240, seconds + Double(rounds) * 12 + 60))

    progress("syncplay-server: \(rounds) remote pauses, \(Int(seconds)) s of playing")
    let server = try await ServerProcess.syncplay(port: 8999)
    let theirs = try await Self.workload(
      port: 8999, clip: clip, directory: directory, rounds: rounds, seconds: seconds)
    server.stop()

    progress("Cowatch's Syncplay port: the same")
    let relay = InMemoryRelay()
    relay.start()
    let port = try await SyncplayServer.start(
      runtime: relay.runtime, host: "127.0.0.1", port: 8998,
      logger: Logger(label: "bench.syncplay") { _ in SwiftLogNoOpLogHandler() })
    let ours = try await Self.workload(
      port: 8998, clip: clip, directory: directory, rounds: rounds, seconds: seconds)
    await port.stop()
    await relay.stop()

    func row(_ values: [Double]) -> String {
      guard !values.isEmpty else { return "–" }
      let s = values.sorted()
      let p50 = s[s.count / 2]
      return String(format: "%.1f / %.1f / %.1f", p50, s.last!, s.first!)
    }
    var table = Table(
      "measure (the measured client, ms)", "served by syncplay-server", "served by Cowatch")
    table.add(
      "stop past the originator's after a remote pause (p50 / max / min)", row(theirs.overshoot),
      row(ours.overshoot))
    table.add(
      "behind (−) or ahead of the originator, 1 s after a play (p50 / max / min)",
      row(theirs.startSpread), row(ours.startSpread))
    table.add(
      "behind (−) or ahead while playing on (p50 / max / min)", row(theirs.drift), row(ours.drift))
    table.add(
      "after \(Int(seconds)) s of playing", String(format: "%.1f", theirs.endDrift),
      String(format: "%.1f", ours.endDrift))
    table.add("seeks its mpv made while playing on", "\(theirs.seeks)", "\(ours.seeks)")
    emit("Syncplay's client, served by syncplay-server and by Cowatch", table)
    let version = Machine.run("/usr/bin/dpkg-query", ["-W", "-f=${Version}", "syncplay"])
    Report.write(
      section: "syncplay-clients", title: "13. Syncplay's client served by Cowatch",
      body: """
        Two of Debian's Syncplay \(version) clients (`syncplay --no-gui`, commands on stdin),
        each driving its own mpv (`--vo=null --ao=null`, a 24 fps clip), in one room: first of
        syncplay-server, then of Cowatch's Syncplay port (`cowatch serve --syncplay-port`,
        here in-process), in one run inside a network namespace with only loopback. The
        first client pauses and plays in its own console (\(rounds) times); the second is
        measured through a second connection to its mpv: where its frame stops after the
        remote pause, compared with the first's (time-pos, after the players settle), and
        its audio clock against the first's while playing (both carried to one instant).
        Then \(Int(seconds)) s of playing on, counting the seeks the measured mpv made.

        \(table.markdown)

        Served by syncplay-server, the remote client seeks to the originator's point and
        pauses 50 ms later (its mpv commands are throttled), so it stops past it; served by
        Cowatch, the bridge sees where it stopped and moves its paused frame onto the
        group's point with one exact seek (docs/SYNCPLAY.md). While playing, Syncplay
        corrects nothing under 1.5 s; Cowatch's bridge learns how late each client's player
        starts and sends its starts that much earlier, and seeks a client that drifted more
        than 0.2 s at most once a minute.
        """, smoke: common.smoke)
  }

  static func workload(port: Int, clip: String, directory: URL, rounds: Int, seconds: Double)
    async throws -> Results
  {
    var results = Results()
    let tag = "\(port)"
    let (originator, a) = try SyncplayClientProcess.launch {
      try SyncplayClientProcess(
        server: "127.0.0.1:\(port)", name: "lead\(tag)", room: "bench", file: clip,
        directory: directory)
    }
    defer { originator.stop() }
    let (measured, b) = try SyncplayClientProcess.launch {
      try SyncplayClientProcess(
        server: "127.0.0.1:\(port)", name: "far\(tag)", room: "bench", file: clip,
        directory: directory)
    }
    defer { measured.stop() }
    /// The measured clock minus the originator's, carried to one instant, ms.
    func offset() -> Double? {
      guard let x = a.number("audio-pts"), let y = b.number("audio-pts") else { return nil }
      return (y.value + Double(x.at - y.at) / 1e9 - x.value) * 1000
    }
    func still() async {
      var last: [Double] = []
      _ = await pollUntil(6) {
        let now = [a, b].map { $0.number("time-pos")?.value ?? -1 }
        defer { last = now }
        return now == last
      }
    }
    guard await pollUntil(30, { a.number("duration") != nil && b.number("duration") != nil }) else {
      throw BenchError("the Syncplay clients did not open the clip")
    }
    await sleepSeconds(3)
    for round in 0..<rounds {
      progress("  round \(round + 1) of \(rounds)")
      originator.tell("p")
      guard await pollUntil(15, { a.bool("pause") == false && b.bool("pause") == false }) else {
        throw BenchError("the clients did not both play")
      }
      await sleepSeconds(1)
      if let o = offset() { results.startSpread.append(o) }
      await sleepSeconds(2)
      originator.tell("p")
      guard await pollUntil(15, { a.bool("pause") == true && b.bool("pause") == true }) else {
        throw BenchError("the clients did not both pause")
      }
      // Let a correcting seek land (Cowatch's comes with the client's next report, which
      // comes within a second).
      await sleepSeconds(2.5)
      await still()
      if let x = a.number("time-pos"), let y = b.number("time-pos") {
        results.overshoot.append((y.value - x.value) * 1000)
      }
    }
    originator.tell("p")
    guard await pollUntil(15, { a.bool("pause") == false && b.bool("pause") == false }) else {
      throw BenchError("the clients did not both play")
    }
    let seeksBefore = b.seeks
    let end = monoNow() + Int64(seconds * 1e9)
    while monoNow() < end {
      if let o = offset() { results.drift.append(o) }
      await sleepSeconds(0.5)
    }
    results.endDrift = offset() ?? .nan
    results.seeks = b.seeks - seeksBefore
    return results
  }
}
