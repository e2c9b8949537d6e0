import Foundation
import Media
import ParticipantRuntime
import PlaybackCoordination
import PostgresRoomStore
import RelayRuntime
import Rooms
import SQLiteRoomStore
import Synchronization
import TCPRelayClient
import WireProtocol

/// The room store's cost and what it buys: propagation with and without it, the steps a
/// relay sustains while writing them, and the time from `kill -9` to everyone back in sync.
enum StoreBench {
  /// A temporary SQLite file, removed with its folder.
  struct TemporaryFile {
    let folder: String
    var path: String { folder + "/relay.sqlite" }
    init() throws {
      folder = NSTemporaryDirectory() + "cowatch-bench-store-\(UUID().uuidString)"
      try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }
    func remove() { try? FileManager.default.removeItem(atPath: folder) }
  }

  // MARK: Propagation

  /// `repeats` runs per store, alternating, so that both see the same machine: the p99 of
  /// one run moves by milliseconds from run to run on a shared 2-core machine.
  /// The store of a kind (`memory`: none); PostgreSQL in the shared mode relays run it in,
  /// leases and fencing included.
  static func store(_ kind: String, file: TemporaryFile, postgres: String?, port: Int = 1)
    async throws -> PostgresOrOther
  {
    switch kind {
    case "memory": return .other(nil)
    case "sqlite": return .other(try SQLiteRoomStore(path: file.path))
    default:
      guard let postgres else { throw BenchError("no PostgreSQL server") }
      return .postgres(
        try await PostgresRoomStore.connect(
          url: postgres, advertised: RelayEndpoint(address: "127.0.0.1:\(port)"),
          // The bound is not what is measured: beside the whole suite (its smoke run) the
          // server can take longer than a relay's 10 s to make its tables.
          timeout: 30))
    }
  }

  enum PostgresOrOther {
    case postgres(PostgresRoomStore)
    case other((any RoomStore)?)
    var store: (any RoomStore)? {
      switch self {
      case .postgres(let store): store
      case .other(let store): store
      }
    }
    var directory: (any RoomDirectory)? {
      if case .postgres(let store) = self { store } else { nil }
    }
  }

  static func propagation(size: Int, rounds: Int, repeats: Int, postgres: String? = nil)
    async throws -> Table
  {
    let kinds = postgres == nil ? ["memory", "sqlite"] : ["memory", "sqlite", "postgres"]
    var t = Table(
      "store", "samples", "applied at player p50 / p99 / max (ms)",
      "update received p50 / p99 / max (ms)", "p99 of each run (ms)")
    var player: [String: [Double]] = [:]
    var update: [String: [Double]] = [:]
    var runs: [String: [Double]] = [:]
    for run in 0..<repeats {
      for kind in kinds {
        let file = try TemporaryFile()
        defer { file.remove() }
        let opened = try await store(kind, file: file, postgres: postgres)
        progress("store: propagation run \(run + 1), \(size) participants, --store \(kind)")
        let result = try await PropagationBench.run(
          sizes: [size], rounds: rounds, store: opened.store, directory: opened.directory,
          room: "prop\(run)-")[0]
        player[kind, default: []] += result.allPlayer
        update[kind, default: []] += result.allUpdate
        runs[kind, default: []].append(Summary(result.allPlayer).p99)
      }
    }
    for kind in kinds {
      let p = Summary(player[kind] ?? [])
      t.add(
        kind, "\(p.count)", p.text(3), Summary(update[kind] ?? []).text(3),
        (runs[kind] ?? []).map { String(format: "%.2f", $0) }.joined(separator: ", "))
    }
    return t
  }

  // MARK: Throughput

  /// Writes nothing: the relay's own cost is what is measured.
  final class NullOutlet: RelayOutlet {
    func write(_ line: [UInt8]) -> Int { 0 }
    func close(flush: Bool) {}
  }

  struct Throughput {
    var store: String
    var steps: Int
    var seconds: Double
    var rows: Int
    var batches: Int
    var writeSeconds: Double
    var longestWrite: Double
    var fileBytes: Int
    /// A room's state and one member's row, as stored (JSON bytes), at the end.
    var stateBytes = 0
    var memberBytes = 0
  }

  /// `participants` in rooms of `roomSize` on one in-process runtime; for `seconds`, reports
  /// (each one a sequenced step, as every participant sends every few seconds) from each
  /// participant in turn, as fast as one thread can apply them, while the store's writer runs.
  static func throughput(
    participants: Int, roomSize: Int, seconds: Double, store kind: String, rate: Double? = nil,
    postgres: String? = nil
  ) async throws -> Throughput {
    let file = try TemporaryFile()
    defer { file.remove() }
    let opened = try await store(kind, file: file, postgres: postgres)
    let store = opened.store
    let prefix = "t\(UInt32.random(in: 0...UInt32.max))-"

    var configuration = RelayConfiguration()
    configuration.maximumConnections = participants + 10
    configuration.maximumConnectionsPerAddress = participants + 10
    configuration.maximumRoomsPerAddress = participants
    configuration.messagesPerSecond = 1e6
    configuration.messageBurst = 1e6
    configuration.heartbeatTimeout = 3600
    configuration.reconnectGrace = 3600
    // PostgreSQL as relays share it: each room's lease claimed on its first hello, renewed,
    // every write fenced by it.
    let runtime = RelayRuntime(
      configuration: configuration, store: store, directory: opened.directory)
    let ticker = Task { await runtime.run() }
    progress("store: \(participants) participants with --store \(kind)")
    var ids: [ConnectionID] = []
    for i in 0..<participants {
      guard let id = runtime.open(NullOutlet()) else { throw BenchError("connection refused") }
      runtime.received(
        .hello(
          version: ProtocolVersion.current, name: "p\(i % roomSize)",
          room: "\(prefix)r\(i / roomSize)",
          resume: nil), from: id)
      ids.append(id)
    }
    let rooms = (participants + roomSize - 1) / roomSize
    for _ in 0..<2000 where runtime.roomNames.count < rooms { await sleepSeconds(0.01) }
    guard runtime.roomNames.count == rooms else {
      throw BenchError("only \(runtime.roomNames.count) of \(rooms) rooms were claimed")
    }
    // Everything so far written before the measured run.
    while runtime.storedRooms().count > 0, store != nil {
      let before = runtime.storeWrites.batches
      await sleepSeconds(0.05)
      if runtime.storeWrites.batches == before { break }
    }
    let rowsBefore = runtime.storeWrites.rows
    let batchesBefore = runtime.storeWrites.batches
    let timeBefore = runtime.storeWriteTime.total
    runtime.resetLongestStoreWrite()
    let start = monoNow()
    let end = start + Int64(seconds * 1e9)
    var steps = 0
    var request: UInt64 = 1
    func report(_ id: ConnectionID, _ request: UInt64) {
      runtime.received(
        .command(
          id: request,
          .report(roundTrip: 0.001 * Double(request % 7 + 1), startupLatency: 0, playerOffset: nil)),
        from: id)
    }
    // Paced: `rate` steps a second, in slices every 5 ms, participants in turn.
    if let rate {
      var next = 0
      var due = start
      while monoNow() < end {
        for _ in 0..<max(1, Int(rate * 0.005)) {
          report(ids[next], request)
          steps += 1
          next += 1
          if next == ids.count {
            next = 0
            request += 1
          }
        }
        due += 5_000_000
        let wait = due - monoNow()
        if wait > 0 { await sleepSeconds(Double(wait) / 1e9) }
      }
    }
    while rate == nil, monoNow() < end {
      for id in ids {
        runtime.received(
          .command(
            id: request,
            .report(
              roundTrip: 0.001 * Double(request % 7 + 1), startupLatency: 0, playerOffset: nil)),
          from: id)
        steps += 1
      }
      request += 1
      await Task.yield()
    }
    let elapsed = Double(monoNow() - start) / 1e9
    // What was taken by the writer by now is written; the rest comes with the final flush.
    await runtime.flushStore()
    ticker.cancel()
    await ticker.value
    let writes = runtime.storeWrites
    let times = runtime.storeWriteTime
    let size =
      (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int) ?? 0
    var result = Throughput(
      store: kind, steps: steps, seconds: elapsed, rows: writes.rows - rowsBefore,
      batches: writes.batches - batchesBefore, writeSeconds: times.total - timeBefore,
      longestWrite: times.longest, fileBytes: size)
    if let room = runtime.storedRooms().first, let member = room.members.first {
      let encoder = JSONEncoder()
      result.stateBytes = (try? encoder.encode(room.state).count) ?? 0
      result.memberBytes = (try? encoder.encode(member).count) ?? 0
    }
    return result
  }

  static func throughputTable(_ results: [Throughput], participants: Int, roomSize: Int) -> Table {
    var t = Table(
      "store", "steps/s applied", "rows written/s", "batches/s", "rows per batch",
      "writer busy", "longest write (ms)", "file (MiB)", "room row / member row (bytes)")
    for r in results {
      let busy = r.seconds > 0 ? r.writeSeconds / r.seconds : 0
      t.add(
        r.store, String(format: "%.0f", Double(r.steps) / r.seconds),
        r.store == "memory" ? "—" : String(format: "%.0f", Double(r.rows) / r.seconds),
        r.store == "memory" ? "—" : String(format: "%.0f", Double(r.batches) / r.seconds),
        r.store == "memory" || r.batches == 0
          ? "—" : String(format: "%.0f", Double(r.rows) / Double(r.batches)),
        r.store == "memory" ? "—" : String(format: "%.0f %%", busy * 100),
        r.store == "memory" ? "—" : String(format: "%.1f", r.longestWrite * 1000),
        r.store == "memory" ? "—" : String(format: "%.1f", Double(r.fileBytes) / 1_048_576),
        r.store == "memory" ? "—" : "\(r.stateBytes) / \(r.memberBytes)")
    }
    return t
  }

  /// The paced runs: what the writer does at the load real participants cause.
  static func pacedTable(_ results: [Throughput]) -> Table {
    var t = Table(
      "steps/s offered", "steps/s applied", "rows written/s", "batches/s", "rows per batch",
      "writer busy", "longest write (ms)")
    for r in results {
      t.add(
        r.store, String(format: "%.0f", Double(r.steps) / r.seconds),
        String(format: "%.0f", Double(r.rows) / r.seconds),
        String(format: "%.0f", Double(r.batches) / r.seconds),
        r.batches == 0 ? "—" : String(format: "%.0f", Double(r.rows) / Double(r.batches)),
        String(format: "%.0f %%", r.writeSeconds / r.seconds * 100),
        String(format: "%.1f", r.longestWrite * 1000))
    }
    return t
  }

  // MARK: Restart

  struct Restart {
    var resumed: [Double] = []
    var inSync: [Double] = []
    var spreadAfter: [Double] = []
    var failures = 0
  }

  /// `size` participants playing together through a `cowatch serve` process with an SQLite
  /// store; the relay is killed with SIGKILL and started again on the same port
  /// `restartAfter` seconds later. Per participant: the time from the kill to its welcome
  /// from the new relay as the same member, and to its player being within `tolerance` of
  /// the group's timeline; then the spread of all players' positions one second later.
  static func restart(
    size: Int, runs: Int, restartAfter: Double, tolerance: Double, postgres: String? = nil
  )
    async throws -> Restart
  {
    var result = Restart()
    for run in 0..<runs {
      progress("store: restart run \(run + 1) of \(runs), \(size) participants")
      let file = try TemporaryFile()
      defer { file.remove() }
      let storeArgument = postgres ?? file.path
      var server = try ServerProcess.cowatch(store: storeArgument)
      let port = server.port
      let transport = TCPTransport(host: "127.0.0.1", port: port)
      let room = try await Room.make(
        count: size, transport: transport, room: "restart\(run)", recorder: nil)
      try await room.startPlaying()
      await sleepSeconds(2)
      let (before, epochs) = await room.identities()
      let killed = monoNow()
      server.killNow()
      // Watched from the kill on, while the new relay starts.
      let watch = Task {
        await watchBack(
          room.clients, ids: before, epochs: epochs, killed: killed, tolerance: tolerance)
      }
      await sleepSeconds(restartAfter)
      server = try ServerProcess.cowatch(port: port, store: storeArgument)
      let (resumedAt, syncedAt, wrongID) = await watch.value
      result.failures += wrongID
      result.failures += syncedAt.filter { $0 == nil }.count
      result.resumed += resumedAt.compactMap { $0 }.map { Double($0 - killed) / 1e9 }
      result.inSync += syncedAt.compactMap { $0 }.map { Double($0 - killed) / 1e9 }
      await sleepSeconds(1)
      var positions: [Double] = []
      for c in room.clients {
        if let p = await c.snapshot().player?.position { positions.append(p) }
      }
      if let low = positions.min(), let high = positions.max() {
        result.spreadAfter.append((high - low) * 1000)
      }
      await room.stop()
      server.stop()
    }
    return result
  }

  /// Watches participants from a kill on: when each is back (welcomed by another relay run
  /// than before: a new epoch) and when its player plays within `tolerance` of the timeline.
  static func watchBack(
    _ clients: [ParticipantClient], ids beforeIDs: [ParticipantID?], epochs beforeEpochs: [String?],
    killed: Int64, tolerance: Double
  ) async -> (resumed: [Int64?], synced: [Int64?], wrongID: Int) {
    let size = clients.count
    var resumedAt: [Int64?] = Array(repeating: nil, count: size)
    var syncedAt: [Int64?] = Array(repeating: nil, count: size)
    var wrongID = 0
    let deadline = killed + 30_000_000_000
    while monoNow() < deadline, syncedAt.contains(where: { $0 == nil }) {
      for (i, c) in clients.enumerated() where syncedAt[i] == nil {
        let epoch = await c.relayEpoch
        let status = await c.connectionStatus
        guard epoch != beforeEpochs[i], status == .connected else { continue }
        if resumedAt[i] == nil {
          resumedAt[i] = monoNow()
          if await c.participantID != beforeIDs[i] { wrongID += 1 }
        }
        let s = await c.snapshot()
        // The player may run a little fast or slow while it corrects: playing is enough.
        if let player = s.player, let group = s.groupPosition, abs(player.rate - 1) < 0.1,
          s.state.session?.status == .playing, abs(player.position - group) <= tolerance
        {
          syncedAt[i] = monoNow()
        }
      }
      await sleepSeconds(0.002)
    }
    return (resumedAt, syncedAt, wrongID)
  }

  /// `size` participants playing together through the first of three `cowatch serve`
  /// processes sharing one PostgreSQL database; that relay is killed with SIGKILL and not
  /// started again: the room's lease expires and another relay takes it over when the
  /// participants (who know the others from their welcome) ask.
  static func takeover(size: Int, runs: Int, tolerance: Double, postgres: String) async throws
    -> Restart
  {
    var result = Restart()
    for run in 0..<runs {
      progress("store: takeover run \(run + 1) of \(runs), \(size) participants, 3 relays")
      var relays: [ServerProcess] = []
      // Stopped however the run ends: a run that failed half way left three relays running
      // for the rest of the suite.
      defer { for relay in relays { relay.stop() } }
      for _ in 0..<3 { relays.append(try ServerProcess.cowatch(store: postgres)) }
      // The relays find each other (a renewal, a quarter of a lease) before anyone joins.
      await sleepSeconds(PostgresRoomStore.defaultLeaseDuration / 4 + 0.5)
      let transport = TCPTransport(host: "127.0.0.1", port: relays[0].port)
      let room = try await Room.make(
        count: size, transport: transport, room: "takeover\(run)", recorder: nil)
      try await room.startPlaying()
      await sleepSeconds(2)
      let (before, epochs) = await room.identities()
      let killed = monoNow()
      relays[0].killNow()
      let (resumedAt, syncedAt, wrongID) = await watchBack(
        room.clients, ids: before, epochs: epochs, killed: killed, tolerance: tolerance)
      result.failures += wrongID
      result.failures += syncedAt.filter { $0 == nil }.count
      result.resumed += resumedAt.compactMap { $0 }.map { Double($0 - killed) / 1e9 }
      result.inSync += syncedAt.compactMap { $0 }.map { Double($0 - killed) / 1e9 }
      await sleepSeconds(1)
      var positions: [Double] = []
      for c in room.clients {
        if let p = await c.snapshot().player?.position { positions.append(p) }
      }
      if let low = positions.min(), let high = positions.max() {
        result.spreadAfter.append((high - low) * 1000)
      }
      await room.stop()
    }
    return result
  }

  static func restartTable(_ r: Restart, restartAfter: Double, tolerance: Double) -> Table {
    var t = Table("measure", "samples", "p50 / p99 / max")
    let resumed = Summary(r.resumed)
    t.add("kill -9 → welcomed back as the same member (s)", "\(resumed.count)", resumed.text(2))
    let synced = Summary(r.inSync)
    t.add(
      "kill -9 → playing within \(Int(tolerance * 1000)) ms of the timeline (s)",
      "\(synced.count)", synced.text(2))
    let spread = Summary(r.spreadAfter)
    t.add("spread of all players 1 s after (ms)", "\(spread.count)", spread.text(1))
    if r.failures > 0 { t.add("failures (not back, or another id)", "\(r.failures)", "") }
    return t
  }
}
