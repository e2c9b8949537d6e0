import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import WireProtocol

/// Each attack the hardening work answered, replayed against a real `cowatch serve` (with
/// its default limits) while a victim room of three keeps pausing, seeking and playing:
/// the victim's propagation, the relay's peak RSS and its CPU during the attack, and
/// whether the victim room kept working. Attackers connect from other loopback addresses
/// (127.0.0.2 and up) than the victim (127.0.0.1), as strangers would.
enum AttackBench {
  struct Outcome {
    var attack: String
    var victim: Summary
    var victimRounds: Int
    var victimMissed: Int
    var peakRSSMiB: Double
    var cpuPercent: Double
    var relayAlive: Bool
    var logKiB: Double
    var note: String
    /// The victim room kept working: every round reached everyone and the relay lived.
    var held: Bool { relayAlive && victimMissed == 0 && victimRounds > 0 }
  }

  /// What one attack does, given the relay's port and how long to keep at it.
  struct Attack: Sendable {
    var name: String
    /// Seconds the attack holds the relay stopped at its start: nothing can pass then, so
    /// the victim is measured from when the relay runs again (what matters is that nobody
    /// was dropped for the stop).
    var stopsRelay: Double = 0
    /// `scale` shrinks the biggest crowds for a quick smoke run (1: as measured).
    var run:
      @Sendable (_ port: Int, _ seconds: Double, _ server: ServerProcess, _ scale: Double) async
        -> String
  }

  static let attacks: [Attack] = [
    Attack(name: "time bomb: an item of 1e10 s, then ready (×20)") { port, seconds, _, _ in
      let lines = [
        #"{"type":"hello","version":\#(ProtocolVersion.current),"name":"m","room":"bomb"}"#,
        #"{"type":"command","id":1,"command":{"type":"start","series":{"id":"x","title":"x","items":[{"id":"x/1","title":"t","duration":1e10}]},"item":"x/1"}}"#,
        #"{"type":"command","id":2,"command":{"type":"setReadiness","readiness":"ready"}}"#,
      ]
      let fleet = AttackerFleet(port: port)
      for i in 0..<20 {
        var named = lines
        named[0] = named[0].replacingOccurrences(of: "\"bomb\"", with: "\"bomb\(i)\"")
        await fleet.open(sending: named.joined(separator: "\n") + "\n", from: 2 + i % 8)
      }
      await sleepSeconds(seconds)
      return await fleet.close()
    },
    Attack(name: "resume guessing: hellos with wrong secrets for the victim's ids") {
      port, seconds, _, _ in
      let fleet = AttackerFleet(port: port)
      let end = monoNow() + Int64(seconds * 1e9)
      var tries = 0
      while monoNow() < end {
        for p in 1...3 {
          let hello =
            #"{"type":"hello","version":\#(ProtocolVersion.current),"name":"v\#(p)","room":"victim0","resume":{"participant":"p\#(p)","secret":"\#(String(format: "%032x", tries))","messagesReceived":0}}"#
          await fleet.open(sending: hello + "\n", from: 2 + tries % 16, keep: false)
          tries += 1
        }
        await sleepSeconds(0.005)
      }
      return "\(tries) wrong resumes; " + (await fleet.close())
    },
    Attack(name: "resync flood from 20 members that never read") { port, seconds, _, _ in
      let fleet = AttackerFleet(port: port)
      for i in 0..<20 {
        await fleet.open(
          sending:
            #"{"type":"hello","version":\#(ProtocolVersion.current),"name":"r\#(i)","room":"victim0"}"#
            + "\n",
          from: 2 + i % 4, reads: false)
      }
      let resync = String(repeating: #"{"type":"resync"}"# + "\n", count: 50)
      let end = monoNow() + Int64(seconds * 1e9)
      while monoNow() < end {
        fleet.writeAll(resync)
        await sleepSeconds(0.01)
      }
      return await fleet.close()
    },
    Attack(name: "empty-line flood on 4 connections") { port, seconds, _, _ in
      let fleet = AttackerFleet(port: port)
      for i in 0..<4 {
        await fleet.open(
          sending:
            #"{"type":"hello","version":\#(ProtocolVersion.current),"name":"e\#(i)","room":"noise"}"#
            + "\n",
          from: 2 + i)
      }
      let blank = String(repeating: "\n", count: 65536)
      let end = monoNow() + Int64(seconds * 1e9)
      while monoNow() < end {
        fleet.writeAll(blank)
        await sleepSeconds(0.001)
      }
      return await fleet.close()
    },
    Attack(name: "2,000 connections holding 63 KB partial lines") { port, seconds, _, scale in
      let fleet = AttackerFleet(port: port)
      let partial = String(repeating: "x", count: 63 * 1024)
      for i in 0..<Int(2000 * scale) { await fleet.open(sending: partial, from: 2 + i / 60) }
      await sleepSeconds(seconds)
      return await fleet.close()
    },
    Attack(name: "connection flood from one address") { port, seconds, _, _ in
      let fleet = AttackerFleet(port: port)
      let end = monoNow() + Int64(seconds * 1e9)
      var opened = 0
      while monoNow() < end {
        for _ in 0..<50 {
          await fleet.open(sending: "", from: 2)
          opened += 1
        }
        await sleepSeconds(0.01)
      }
      return "\(opened) connections tried; " + (await fleet.close())
    },
    Attack(name: "log flood: garbage from fresh connections") { port, seconds, _, _ in
      let fleet = AttackerFleet(port: port)
      let end = monoNow() + Int64(seconds * 1e9)
      var sent = 0
      while monoNow() < end {
        for i in 0..<20 {
          await fleet.open(
            sending: "\u{1B}[2J forged line \(sent)\n", from: 2 + i % 16, keep: false)
          sent += 1
        }
        await sleepSeconds(0.005)
      }
      return "\(sent) garbage lines; " + (await fleet.close())
    },
    Attack(
      name: "the relay stopped by the OS for 8 s (SIGSTOP, SIGCONT)", stopsRelay: stopSeconds
    ) { _, seconds, server, _ in
      kill(server.pid, SIGSTOP)
      await sleepSeconds(stopSeconds)
      kill(server.pid, SIGCONT)
      await sleepSeconds(seconds)
      return "stopped \(Int(stopSeconds)) s"
    },
  ]

  /// Longer than the relay's heartbeat timeout (6 s).
  static let stopSeconds = 8.0

  static func run(seconds: Double, only: String?, scale: Double = 1) async throws -> [Outcome] {
    var outcomes: [Outcome] = []
    for attack in attacks where only.map({ attack.name.contains($0) }) ?? true {
      progress("attack: \(attack.name)")
      let server = try ServerProcess.cowatch(defaultLimits: true)
      let fleet = LoadFleet(
        proto: .cowatch, host: "127.0.0.1", port: server.port, roomPrefix: "victim")
      let welcomed = await fleet.connect(
        participants: 3, roomSize: 3, commandInterval: nil, heartbeat: 1, timeout: 10)
      guard welcomed == 3 else {
        server.stop()
        throw BenchError("the victim room did not form (\(welcomed) of 3)")
      }
      let room = fleet.rooms[0]
      await sleepSeconds(0.5)
      let cpu0 = server.cpuSeconds
      let log0 = server.logBytes
      let t0 = monoNow()
      let peak = NIOLockedValueBox(server.residentKB)
      let sampler = Task {
        while !Task.isCancelled {
          let rss = server.residentKB
          peak.withLockedValue { $0 = max($0, rss.isFinite ? rss : 0) }
          await sleepSeconds(0.1)
        }
      }
      fleet.shared.measuring.withLockedValue { $0 = true }
      let attackTask = Task { await attack.run(server.port, seconds, server, scale) }
      var rounds = 0
      var missed = 0
      let kinds: [LoadCommand] = [.pause, .seek, .play]
      if attack.stopsRelay > 0 { await sleepSeconds(attack.stopsRelay + 0.5) }
      let measured = monoNow()
      while monoNow() - measured < Int64(seconds * 1e9) {
        let kind = kinds[rounds % 3]
        fleet.issue(kind, room: 0)
        let deadline = monoNow() + 3_000_000_000
        while room.arrivalCount < 2, monoNow() < deadline { await sleepSeconds(0.0005) }
        if room.arrivalCount < 2 { missed += 1 }
        rounds += 1
        await sleepSeconds(0.1)
      }
      let note = await attackTask.value
      fleet.shared.measuring.withLockedValue { $0 = false }
      let elapsed = Double(monoNow() - t0) / 1e9
      let cpu = (server.cpuSeconds - cpu0) / elapsed * 100
      sampler.cancel()
      let alive = server.process.isRunning
      let logKiB = Double(server.logBytes - log0) / 1024
      let samples = fleet.shared.samples.take()
      await fleet.close()
      server.stop()
      outcomes.append(
        Outcome(
          attack: attack.name, victim: Summary(samples), victimRounds: rounds, victimMissed: missed,
          peakRSSMiB: peak.withLockedValue { $0 } / 1024, cpuPercent: cpu, relayAlive: alive,
          logKiB: logKiB, note: note))
      progress(
        "  victim p99 \(fmt(Summary(samples).p99)) ms, missed \(missed)/\(rounds), alive \(alive)")
    }
    return outcomes
  }

  static func table(_ outcomes: [Outcome]) -> Table {
    var t = Table(
      "attack", "victim pause/seek/play p50 / p99 / max (ms)", "victim rounds missed",
      "relay peak RSS (MiB)", "relay CPU %", "relay log written (KiB)", "victim room held", "notes")
    for o in outcomes {
      t.add(
        o.attack, o.victim.text(2), "\(o.victimMissed) of \(o.victimRounds)", fmt(o.peakRSSMiB, 1),
        fmt(o.cpuPercent, 0), fmt(o.logKiB, 1), o.held ? "yes" : "**no**", o.note)
    }
    return t
  }
}

/// Raw attacker connections from chosen loopback addresses (127.0.0.N): they write what
/// they are told and read (and drop) what comes back, or never read at all.
final class AttackerFleet: @unchecked Sendable {
  let port: Int
  let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
  private let lock = NIOLock()
  private var channels: [any Channel] = []
  private var refused = 0

  init(port: Int) { self.port = port }

  /// Opens a connection from 127.0.0.`from` and writes `text`; keeps it open unless
  /// `keep` is false (then it is closed once the relay has had a moment to answer).
  func open(sending text: String, from: Int, reads: Bool = true, keep: Bool = true) async {
    do {
      let channel = try await ClientBootstrap(group: group)
        .channelOption(.autoRead, value: reads)
        .bind(to: try SocketAddress(ipAddress: "127.0.0.\(min(254, from))", port: 0))
        .connectTimeout(.seconds(2))
        .channelInitializer { ch in
          ch.eventLoop.makeCompletedFuture {
            try ch.pipeline.syncOperations.addHandler(DiscardingHandler())
          }
        }
        .connect(host: "127.0.0.1", port: port).get()
      if !text.isEmpty {
        channel.writeAndFlush(channel.allocator.buffer(string: text), promise: nil)
      }
      if keep {
        lock.withLock { channels.append(channel) }
      } else {
        channel.eventLoop.scheduleTask(in: .milliseconds(50)) { channel.close(promise: nil) }
      }
    } catch {
      lock.withLock { refused += 1 }
    }
  }

  /// Writes `text` on every kept connection that is still open.
  func writeAll(_ text: String) {
    for channel in lock.withLock({ channels }) where channel.isActive {
      channel.writeAndFlush(channel.allocator.buffer(string: text), promise: nil)
    }
  }

  /// Closes everything; says how the relay dealt with the connections.
  func close() async -> String {
    let (all, refusedCount) = lock.withLock { (channels, refused) }
    let stillOpen = all.filter(\.isActive).count
    for c in all { c.close(promise: nil) }
    await sleepSeconds(0.2)
    try? await group.shutdownGracefully()
    return
      "\(all.count) kept open by the attacker: \(all.count - stillOpen) closed by the relay; \(refusedCount) not accepted"
  }
}

/// Reads and forgets.
final class DiscardingHandler: ChannelInboundHandler, Sendable {
  typealias InboundIn = ByteBuffer
  func errorCaught(context: ChannelHandlerContext, error: any Error) {
    context.close(promise: nil)
  }
}
