import ArgumentParser
import Foundation
import Logging
import Media
import ParticipantRuntime
import Participation
import PlaybackCoordination
import RoomCarrying
import Synchronization
import TCPRelayClient
import TCPRelayServer
import WireProtocol

/// A participant's own relay that counts what the room's relay feeds it.
final class CountingCarrier: RoomCarrier {
  let inner: StandbyRelay
  let replicaBytes = Atomic<Int>(0)
  let replicaLines = Atomic<Int>(0)
  private let codec = WireCodec()

  init(_ inner: StandbyRelay) { self.inner = inner }

  var relayEpoch: String { inner.relayEpoch }

  func perform(_ effect: CarrierEffect, groupClock: ClockOffsetEstimate?, at now: LocalInstant) {
    if case .replica(let change) = effect {
      replicaBytes.add(codec.encode(ServerMessage.replica(change)).count, ordering: .relaxed)
      replicaLines.add(1, ordering: .relaxed)
    }
    inner.perform(effect, groupClock: groupClock, at: now)
  }
}

/// A host's room handed to the next machine while it plays: what the successor is fed
/// meanwhile, how far each player's picture jumps at the handover, how long until everyone
/// is back, and how well they keep together in the seconds after.
enum HandoverBench {
  struct Result {
    var size: Int
    var feedSeconds: Double
    var replicaBytesPerSecond: Double
    var replicaLinesPerSecond: Double
    var chats: Int
    var timelineJumps: [Double]
    var playerJumps: [Double]
    var backAfter: Double
    var syncErrors: [Double]
  }

  static func quiet(_ label: String) -> Logger {
    var logger = Logger(label: label)
    logger.logLevel = .error
    return logger
  }

  /// `killed`: the host's relay dies without a word (as `kill -9` would) instead of
  /// handing the room over, and the others elect a successor.
  static func run(size: Int, feedSeconds: Double, killed: Bool = false) async throws -> Result {
    let host = try await RelayServer.start(
      host: "127.0.0.1", port: 0, logger: quiet("bench.host"), feedsSuccessors: true)
    var clients: [ParticipantClient] = []
    var players: [SimulatedPlayer] = []
    var carriers: [CountingCarrier?] = []
    for i in 0..<size {
      let carrier: CountingCarrier? =
        i == 0
        ? nil
        : CountingCarrier(
          try await StandbyRelay.start(
            host: "127.0.0.1", port: 0, tls: nil, fingerprint: nil, logger: quiet("bench.carry")))
      let player = SimulatedPlayer(configuration: Room.idealPlayer(i), itemResolver: benchResolver)
      var configuration = ParticipantConfiguration(name: "p\(i)", answerTimeout: 10)
      configuration.carry = carrier?.inner.offer
      let client = ParticipantClient(
        transport: TCPTransport(host: "127.0.0.1", port: host.port), configuration: configuration,
        player: player, logger: quiet("bench.p\(i)"), carrier: carrier)
      carrier?.inner.attach(client)
      try await client.start()
      clients.append(client)
      players.append(player)
      carriers.append(carrier)
    }
    let room = Room(clients: clients, players: players)
    try await room.startPlaying()
    try await until("the successors are named", timeout: 20) {
      await clients[0].successors.count == min(size - 1, Successor.maximumCount)
    }
    let heir = try requireBench(await clients[0].successors.first?.participant, "a successor")
    var heirIndex = 0
    for (i, c) in clients.enumerated() where await c.participantID == heir { heirIndex = i }
    let heirCarrier = try requireBench(carriers[heirIndex], "the successor's relay")

    // The room plays and chats: one line a second from each in turn, reports as usual.
    heirCarrier.replicaBytes.store(0, ordering: .relaxed)
    heirCarrier.replicaLines.store(0, ordering: .relaxed)
    let feedStart = monoNow()
    var chats = 0
    while Double(monoNow() - feedStart) / 1e9 < feedSeconds {
      await clients[chats % size].sendMessage(kind: .chat, body: "line \(chats) of the evening")
      chats += 1
      await sleepSeconds(1)
    }
    let fed = Double(monoNow() - feedStart) / 1e9
    let bytes = Double(heirCarrier.replicaBytes.load(ordering: .relaxed)) / fed
    let lines = Double(heirCarrier.replicaLines.load(ordering: .relaxed)) / fed

    // Where each player and each timeline is against the local clock, just before.
    func offsets() async -> [(timeline: Double, player: Double)] {
      var values: [(Double, Double)] = []
      for i in 1..<size {
        let s = await clients[i].snapshot()
        let now = s.localTime
        let seconds = Double(now.nanoseconds) / 1e9
        let player = players[i].observe(at: now).position
        values.append(((s.groupPosition ?? .nan) - seconds, player - seconds))
      }
      return values
    }
    let before = await offsets()
    let me = await clients[0].participantID
    let handoverStart = monoNow()
    if killed {
      await host.kill()
      await clients[0].kill()
    } else {
      await clients[0].stop()
      try await until("the host's goodbye is taken", timeout: 5) {
        !(host.state(ofRoom: "lobby")?.participants.contains { $0.id == me } ?? false)
      }
      host.runtime.handOver()
      await host.stop()
    }
    let epoch = heirCarrier.inner.server.runtime.epoch
    try await until("everyone is back on the successor's relay", timeout: 20) {
      for c in clients.dropFirst() {
        guard await c.relayEpoch == epoch, await c.connectionStatus == .connected else {
          return false
        }
      }
      return true
    }
    let backAfter = Double(monoNow() - handoverStart) / 1e6
    let after = await offsets()
    let timelineJumps = zip(before, after).map { abs($1.timeline - $0.timeline) * 1000 }
    let playerJumps = zip(before, after).map { abs($1.player - $0.player) * 1000 }

    // Five seconds together on the new relay: each player against its group position.
    var errors: [Double] = []
    let syncStart = monoNow()
    while Double(monoNow() - syncStart) / 1e9 < 5 {
      for i in 1..<size {
        let s = await clients[i].snapshot()
        if let group = s.groupPosition {
          errors.append(abs(players[i].observe(at: s.localTime).position - group) * 1000)
        }
      }
      await sleepSeconds(0.05)
    }
    for c in clients.dropFirst() { await c.stop() }
    for carrier in carriers { await carrier?.inner.stop() }
    return Result(
      size: size, feedSeconds: fed, replicaBytesPerSecond: bytes, replicaLinesPerSecond: lines,
      chats: chats, timelineJumps: timelineJumps, playerJumps: playerJumps, backAfter: backAfter,
      syncErrors: errors)
  }
}

/// `#require` for benchmarks: a missing value ends the run with a clear error.
func requireBench<T>(_ value: T?, _ what: String = "a value the run needs") throws -> T {
  guard let value else { throw BenchError("missing \(what)") }
  return value
}

struct HandoverCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "handover",
    abstract:
      "A host's room handed over while it plays: successor feed, jumps, time back, sync after.")
  @OptionGroup var common: CommonOptions
  @Option(help: "Participants in the room, the host included.") var size = 10
  @Option(help: "Seconds of playing and chatting while the feed is measured.") var seconds = 10.0

  func run() async throws {
    let size = common.smoke ? 3 : self.size
    let r = try await HandoverBench.run(size: size, feedSeconds: common.smoke ? 1 : seconds)
    // Playing for a while first: the group's first start is scheduled a moment ahead.
    let k = try await HandoverBench.run(size: size, feedSeconds: 2, killed: true)
    var feed = Table("participants", "seconds", "chat lines", "replica lines/s", "replica bytes/s")
    feed.add(
      "\(r.size)", fmt(r.feedSeconds, 1), "\(r.chats)", fmt(r.replicaLinesPerSecond, 1),
      fmt(r.replicaBytesPerSecond, 0))
    var move = Table(
      "how, participants", "timeline jump p50 / p99 / max (ms)", "player jump p50 / p99 / max (ms)",
      "all back after (ms)", "sync error, 5 s after, p50 / p99 / max (ms)")
    move.add(
      "host leaves, \(r.size)", Summary(r.timelineJumps).text(3), Summary(r.playerJumps).text(3),
      fmt(r.backAfter, 1), Summary(r.syncErrors).text(2))
    move.add(
      "host's relay killed, \(k.size)", Summary(k.timelineJumps).text(3),
      Summary(k.playerJumps).text(3), fmt(k.backAfter, 1), Summary(k.syncErrors).text(2))
    emit("What the first successor is fed while the room plays and chats", feed)
    emit("The host leaves, or its relay dies: the room moves to the first successor", move)
    Report.write(
      section: "handover", title: "14. A host's room handed over",
      body: """
        A room run by an in-process relay (as `cowatch host` runs it), over TCP on loopback;
        every participant but the host's with its own relay ready to carry the room (as
        `cowatch join` runs it), all with ideal simulated players. The room plays while one
        chat line a second goes round; the first successor's feed (`replica` lines, as
        encoded) is counted. Then the host leaves "only me": goodbye, handover, relay stops;
        in a second room, the host's relay is killed instead (its connections cut without a
        word, as `kill -9` cuts them) and the others elect the first successor.
        *Timeline jump*: how far each remaining participant's group position moved against
        its own clock across the move (the new relay's timeline is the old one moved by the
        successor's clock-offset estimate); *player jump*: the same for its player; *all back
        after*: from the host's goodbye (or the kill) to everyone welcomed on the successor's
        relay; *sync
        error*: each player against its group position, every 50 ms for 5 s after.

        \(feed.markdown)
        \(move.markdown)
        """, smoke: common.smoke)
  }
}
