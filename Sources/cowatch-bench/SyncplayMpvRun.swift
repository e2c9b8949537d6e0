import Foundation
import SyncplayHarness

/// The mpv workload of ``MpvBenchCommand`` with Syncplay instead of Cowatch: three Syncplay
/// clients (Debian's, `syncplay --no-gui`), each driving its own mpv, in one room of a
/// syncplay-server, inside the bench's network namespace. The players are read through a
/// second connection to each mpv's IPC socket, as Cowatch's are read through its driver.
struct SyncplayMpvRun {
  struct Results {
    /// Where each other player stopped past the originator's stop, after a remote pause, ms.
    var pauseOvershoot: [Double] = []
    /// Spread of the audio clocks in the second after everyone plays again, ms.
    var startSpread: [Double] = []
    /// Spread while playing on, ms, and over its last second.
    var steadySpread: [Double] = []
    var endSpread: [Double] = []
    /// Seeks mpv announced while playing on (Syncplay rewinds a player that is far off).
    var steadySeeks = 0
    var version = ""
  }

  let clip: String
  let rounds: Int
  let seconds: Double
  let driftPpm: Double

  func run() async throws -> Results {
    var results = Results()
    results.version = Machine.run("/usr/bin/dpkg-query", ["-W", "-f=${Version}", "syncplay"])
    guard SyncplayClientProcess.syncplayPath != nil, SyncplayClientProcess.mpvPath != nil else {
      throw BenchError("syncplay or mpv is not installed")
    }
    let server = try await ServerProcess.syncplay(port: 8999)
    defer { server.stop() }
    let dir = FileManager.default.temporaryDirectory
      .appendingPathComponent("cowatch-bench-syncplay-\(getpid())")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    var clients: [SyncplayClientProcess] = []
    defer { for client in clients { client.stop() } }
    var probes: [MpvProbe] = []
    for (i, error) in [-driftPpm, 0, driftPpm].enumerated() {
      let (client, probe) = try SyncplayClientProcess.launch {
        try SyncplayClientProcess(
          server: "127.0.0.1:8999", name: "s\(i)", room: "mpvbench", file: clip, directory: dir,
          mpvArguments: ["--vo=null", "--ao=null", "--speed=\(1 + error * 1e-6)"])
      }
      clients.append(client)
      probes.append(probe)
    }
    func tell(_ i: Int, _ command: String) { clients[i].tell(command) }
    func paused() -> [Bool?] { probes.map { $0.bool("pause") } }
    /// The three audio clocks carried to one instant: their largest difference, ms.
    func spread() -> Double? {
      let readings = probes.compactMap { $0.number("audio-pts") }
      guard readings.count == probes.count, let last = readings.map(\.at).max() else {
        return nil
      }
      let positions = readings.map { $0.value + Double(last - $0.at) / 1e9 }
      return (positions.max()! - positions.min()!) * 1000
    }
    func sampleSecond() async -> [Double] {
      var values: [Double] = []
      for _ in 0..<20 {
        if let s = spread() { values.append(s) }
        await sleepSeconds(0.05)
      }
      return values
    }
    // Everyone has the file open, paused at its start.
    guard
      await pollUntil(30, { probes.allSatisfy { $0.number("duration") != nil } })
    else { throw BenchError("Syncplay's players did not open the clip") }
    await sleepSeconds(2)
    for round in 0..<rounds {
      progress("syncplay with mpv: round \(round + 1) of \(rounds)")
      let starter = (round + 1) % 3
      tell(starter, "p")
      guard await pollUntil(10, { paused().allSatisfy { $0 == false } }) else {
        throw BenchError("Syncplay's players did not all start")
      }
      results.startSpread += await sampleSecond()
      await sleepSeconds(2)
      // The originator pauses in its client; the others follow through the server.
      let originator = round % 3
      tell(originator, "p")
      guard await pollUntil(10, { paused().allSatisfy { $0 == true } }) else {
        throw BenchError("Syncplay's players did not all pause")
      }
      // Let any correcting seek land: positions still for half a second.
      var last: [Double] = []
      _ = await pollUntil(5) {
        let now = probes.map { $0.number("time-pos")?.value ?? -1 }
        defer { last = now }
        return now == last
      }
      await sleepSeconds(0.5)
      let stops = probes.map { $0.number("time-pos")?.value ?? .nan }
      for i in 0..<3 where i != originator {
        results.pauseOvershoot.append((stops[i] - stops[originator]) * 1000)
      }
    }
    progress("syncplay with mpv: \(Int(seconds)) s of playing")
    tell(0, "p")
    guard await pollUntil(10, { paused().allSatisfy { $0 == false } }) else {
      throw BenchError("Syncplay's players did not all start")
    }
    let seeksBefore = probes.map(\.seeks).reduce(0, +)
    let end = monoNow() + Int64(seconds * 1e9)
    while monoNow() < end {
      if let s = spread() {
        results.steadySpread.append(s)
        if end - monoNow() < 1_000_000_000 { results.endSpread.append(s) }
      }
      await sleepSeconds(0.1)
    }
    results.steadySeeks = probes.map(\.seeks).reduce(0, +) - seeksBefore
    return results
  }
}
