import Foundation
import Media
import ParticipantRuntime
import Participation
import PlaybackCoordination
import Rooms
import TCPRelayClient
import TCPRelayServer
import Transports
import WireProtocol

/// The series every benchmark room watches.
let benchSeries = SeriesInfo(
  id: "bench", title: "Bench",
  items: [
    ItemInfo(id: "bench/e1", title: "One", duration: 3600),
    ItemInfo(id: "bench/e2", title: "Two", duration: 3600),
  ])

let benchResolver: @Sendable (ItemID) -> SimulatedItem? = { id in
  benchSeries.items.first { $0.id == id }.map {
    SimulatedItem(id: $0.id, title: $0.title, duration: $0.duration)
  }
}

/// What a propagation round waits for: the first player command (other than a rate nudge)
/// and the first update carrying the expected change, at every participant but the sender.
final class ArrivalRecorder: @unchecked Sendable {
  enum Kind: String, Sendable { case pause, play, seek }
  private let lock = NSLock()
  private var armed: (kind: Kind, t0: Int64, sender: Int)?
  private var player: [Int: Int64] = [:]
  private var update: [Int: Int64] = [:]

  func arm(_ kind: Kind, sender: Int, t0: Int64) {
    lock.lock()
    armed = (kind, t0, sender)
    player = [:]
    update = [:]
    lock.unlock()
  }

  func disarm() {
    lock.lock()
    armed = nil
    lock.unlock()
  }

  func playerCommand(_ index: Int, _ command: PlayerCommand, at now: Int64) {
    if case .setRate = command { return }
    lock.lock()
    if let a = armed, a.sender != index, now >= a.t0, player[index] == nil { player[index] = now }
    lock.unlock()
  }

  func updateReceived(_ index: Int, _ events: [ChangeEvent], at now: Int64) {
    lock.lock()
    defer { lock.unlock() }
    guard let a = armed, a.sender != index, now >= a.t0, update[index] == nil else { return }
    let hit = events.contains { e in
      switch (a.kind, e.kind) {
      case (.pause, .paused), (.seek, .seeked), (.play, .played), (.play, .waitEnded): true
      default: false
      }
    }
    if hit { update[index] = now }
  }

  /// (player latencies, update latencies) in ms once `expected` participants answered.
  func result(expected: Int) -> (player: [Double], update: [Double])? {
    lock.lock()
    defer { lock.unlock() }
    guard let a = armed, player.count >= expected, update.count >= expected else { return nil }
    return (
      player.values.map { Double($0 - a.t0) / 1e6 }, update.values.map { Double($0 - a.t0) / 1e6 }
    )
  }

  func partial() -> (player: [Double], update: [Double]) {
    lock.lock()
    defer { lock.unlock() }
    guard let a = armed else { return ([], []) }
    return (
      player.values.map { Double($0 - a.t0) / 1e6 }, update.values.map { Double($0 - a.t0) / 1e6 }
    )
  }
}

/// A player that tells a recorder when its coordinator commands it, then passes the command
/// on to a simulated player.
final class RecordingPlayer: PlayerDriver {
  let inner: SimulatedPlayer
  let index: Int
  let recorder: ArrivalRecorder

  init(_ inner: SimulatedPlayer, index: Int, recorder: ArrivalRecorder) {
    self.inner = inner
    self.index = index
    self.recorder = recorder
  }

  func perform(_ command: PlayerCommand, at now: LocalInstant) {
    recorder.playerCommand(index, command, at: monoNow())
    inner.perform(command, at: now)
  }

  func observe(at now: LocalInstant) -> PlayerObservation { inner.observe(at: now) }
}

/// N real participant clients in one room of a relay, with players.
struct Room {
  var clients: [ParticipantClient]
  var players: [SimulatedPlayer]

  /// An ideal simulated player, seeded by its participant's index (reproducible runs).
  static func idealPlayer(_ index: Int) -> SimulatedPlayerConfiguration {
    var c = SimulatedPlayerConfiguration.ideal
    c.seed = UInt64(index + 1)
    return c
  }

  /// Each client's participant id and the relay epoch it was welcomed in: what a
  /// resumption after a relay's death is checked against.
  func identities() async -> (ids: [ParticipantID?], epochs: [String?]) {
    var ids: [ParticipantID?] = []
    var epochs: [String?] = []
    for c in clients {
      ids.append(await c.participantID)
      epochs.append(await c.relayEpoch)
    }
    return (ids, epochs)
  }

  static func make(
    count: Int, transport: any Transport, room: String, recorder: ArrivalRecorder?,
    player configure: (Int) -> SimulatedPlayerConfiguration = Room.idealPlayer
  ) async throws -> Room {
    var clients: [ParticipantClient] = []
    var players: [SimulatedPlayer] = []
    for i in 0..<count {
      let sim = SimulatedPlayer(configuration: configure(i), itemResolver: benchResolver)
      players.append(sim)
      let driver: any PlayerDriver =
        recorder.map { RecordingPlayer(sim, index: i, recorder: $0) } ?? sim
      let configuration = ParticipantConfiguration(name: "p\(i)", room: room, answerTimeout: 10)
      let client = ParticipantClient(
        transport: transport, configuration: configuration, player: driver,
        observer: Self.observer(recorder, index: i))
      try await client.start()
      clients.append(client)
    }
    return Room(clients: clients, players: players)
  }

  /// Timestamps each update where the participant emits it, synchronously on its actor.
  /// Not a task reading `events`: ten such tasks in this one process compete for the same
  /// two cores with the participants they measure, which a front in its own process would
  /// not (the runs both ways: docs/BENCHMARKS.md, 2026-11-25).
  static func observer(_ recorder: ArrivalRecorder?, index: Int) -> (
    @Sendable (ClientEvent) -> Void
  )? {
    guard let recorder else { return nil }
    return { event in
      if case .state(_, let events) = event, !events.isEmpty {
        recorder.updateReceived(index, events, at: monoNow())
      }
    }
  }

  /// Starts a session from the first client, has everyone join, and waits until all
  /// are joined and the group is playing.
  func startPlaying(timeout: Double = 20) async throws {
    _ = await clients[0].send(.start(series: benchSeries, item: benchSeries.items[0].id))
    for c in clients.dropFirst() { _ = await c.send(.join) }
    try await until("everyone joined", timeout: timeout) {
      let s = await clients[0].groupState
      return s.joinedParticipants.count == clients.count
        && s.participants.allSatisfy { $0.readiness == .ready }
    }
    _ = await clients[0].play()
    try await until("the group plays", timeout: timeout) {
      await clients[0].groupState.session?.status == .playing
    }
  }

  func stop() async {
    for c in clients { await c.kill() }
  }
}

struct BenchError: Error, CustomStringConvertible {
  var description: String
  init(_ d: String) { description = d }
}

/// Polls `condition` every 5 ms until it holds; throws after `timeout` seconds.
func until(_ what: String, timeout: Double, _ condition: () async -> Bool) async throws {
  let deadline = monoNow() + Int64(timeout * 1e9)
  while monoNow() < deadline {
    if await condition() { return }
    await sleepSeconds(0.005)
  }
  throw BenchError("timed out after \(timeout) s waiting until \(what)")
}
