import Foundation

/// Propagation and scale workloads with lightweight clients against a relay process
/// (`cowatch serve` or `syncplay-server`).
enum LoadBench {
  struct Step {
    var participants: Int
    var connected: Int
    var latency: Summary
    var cpuPercent: Double
    var residentKB: Double
    var idleResidentKB: Double
    var note: String = ""
    var perParticipantKB: Double { (residentKB - idleResidentKB) / Double(max(1, connected)) }
  }

  typealias Launch = () async throws -> ServerProcess

  /// One room of `size`: the sender issues pause, seek and play in turn; each waits until
  /// everyone has it (or 3 s). Latencies in ms.
  static func propagation(_ proto: LoadProtocol, size: Int, rounds: Int, launch: Launch)
    async throws -> Summary
  {
    let server = try await launch()
    defer { server.stop() }
    let fleet = LoadFleet(proto: proto, host: "127.0.0.1", port: server.port)
    let welcomed = await fleet.connect(
      participants: size, roomSize: size, commandInterval: nil, heartbeat: 1, timeout: 30)
    guard welcomed == size else {
      await fleet.close()
      throw BenchError("\(proto.rawValue): only \(welcomed) of \(size) connected")
    }
    let room = fleet.rooms[0]
    await sleepSeconds(0.5)
    func step(_ kind: LoadCommand) async {
      fleet.issue(kind, room: 0)
      let deadline = monoNow() + 3_000_000_000
      while room.arrivalCount < size - 1, monoNow() < deadline { await sleepSeconds(0.0005) }
      await sleepSeconds(0.05)
    }
    await step(.play)
    await sleepSeconds(0.3)
    fleet.shared.measuring.withLockedValue { $0 = true }
    for _ in 0..<rounds {
      for kind in [LoadCommand.pause, .seek, .play] { await step(kind) }
    }
    fleet.shared.measuring.withLockedValue { $0 = false }
    let samples = fleet.shared.samples.take()
    await fleet.close()
    return Summary(samples)
  }

  /// N participants in rooms of `roomSize`, each room's sender seeking once a second.
  static func scale(
    _ proto: LoadProtocol, sizes: [Int], roomSize: Int, seconds: Double, launch: Launch
  ) async -> [Step] {
    var steps: [Step] = []
    for n in sizes {
      progress("\(proto.rawValue) scale: \(n) participants in rooms of \(roomSize)")
      let server: ServerProcess
      do { server = try await launch() } catch {
        steps.append(
          Step(
            participants: n, connected: 0, latency: Summary([]), cpuPercent: .nan, residentKB: .nan,
            idleResidentKB: .nan, note: "\(error)"))
        break
      }
      await sleepSeconds(0.3)
      let idle = await warmedIdleKB(proto, server: server)
      let fleet = LoadFleet(proto: proto, host: "127.0.0.1", port: server.port)
      let timeout = max(30, Double(n) / 100)
      let welcomed = await fleet.connect(
        participants: n, roomSize: roomSize, commandInterval: 1, heartbeat: 1, timeout: timeout)
      var note = ""
      if welcomed < n {
        note =
          "only \(welcomed) of \(n) were welcomed within \(Int(timeout)) s (\(fleet.shared.failures.withLockedValue { $0 }) connection failures)"
      }
      await sleepSeconds(3)
      let cpu0 = server.cpuSeconds
      let t0 = monoNow()
      fleet.shared.measuring.withLockedValue { $0 = true }
      await sleepSeconds(seconds)
      fleet.shared.measuring.withLockedValue { $0 = false }
      let cpu1 = server.cpuSeconds
      let wall = Double(monoNow() - t0) / 1e9
      let rss = server.residentKB
      let alive = server.process.isRunning
      let samples = fleet.shared.samples.take()
      await fleet.close()
      server.stop()
      if !alive { note += (note.isEmpty ? "" : "; ") + "the server died" }
      let step = Step(
        participants: n, connected: welcomed, latency: Summary(samples),
        cpuPercent: (cpu1 - cpu0) / wall * 100, residentKB: rss, idleResidentKB: idle, note: note)
      progress(
        "  p99 \(fmt(step.latency.p99)) ms, cpu \(fmt(step.cpuPercent, 0)) %, rss \(fmt(rss / 1024, 1)) MiB"
      )
      steps.append(step)
      if welcomed < n || !alive { break }
      await sleepSeconds(1)
    }
    return steps
  }

  /// The server's resident memory once ten participants have come, changed something and
  /// left (both servers alike): what it pays once — code paged in, its threads' first
  /// allocations — is then in the baseline, not spread over the participants measured.
  static func warmedIdleKB(_ proto: LoadProtocol, server: ServerProcess) async -> Double {
    let warm = LoadFleet(proto: proto, host: "127.0.0.1", port: server.port, roomPrefix: "warm")
    _ = await warm.connect(
      participants: 10, roomSize: 5, commandInterval: 0.5, heartbeat: 1, timeout: 10)
    await sleepSeconds(1.2)
    await warm.close()
    await sleepSeconds(0.5)
    return server.residentKB
  }

  static func scaleTable(_ steps: [Step], name: String) -> Table {
    var t = Table(
      "relay", "participants", "connected", "propagation p50 / p99 / max (ms)", "updates",
      "relay CPU (% of a core)",
      "relay RSS (MiB)", "RSS per participant above idle (KiB)", "note")
    for s in steps {
      t.add(
        name, "\(s.participants)", "\(s.connected)", s.latency.text(2), "\(s.latency.count)",
        fmt(s.cpuPercent, 0),
        fmt(s.residentKB / 1024, 1), fmt(s.perParticipantKB, 1), s.note)
    }
    return t
  }

  /// What each participant added between the step before `n` and `n` (KiB): the slope of
  /// resident memory, which no baseline affects.
  static func addedKB(_ steps: [Step], at n: Int) -> Double? {
    guard let index = steps.firstIndex(where: { $0.participants == n }), index > 0 else {
      return nil
    }
    let (previous, step) = (steps[index - 1], steps[index])
    guard step.connected > previous.connected else { return nil }
    return (step.residentKB - previous.residentKB) / Double(step.connected - previous.connected)
  }

  static func largestUnder(_ limit: Double, _ steps: [Step]) -> Int? {
    steps.filter {
      $0.connected == $0.participants && $0.latency.count > 0 && $0.latency.p99 < limit
    }
    .map(\.participants).max()
  }
}
