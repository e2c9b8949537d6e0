import ArgumentParser
import ParticipantRuntime
import Participation
import PlaybackCoordination
import RelayTLS
import Synchronization
import TCPRelayClient
import TCPRelayServer

/// When each entry reached each participant (monotonic nanoseconds).
final class Arrivals: Sendable {
  let seen = Mutex<[UInt64: [Int64]]>([:])
}

/// A queue edit reaching everyone: from one participant's `queueAdd` to the entry in every
/// other participant's replica (what each front draws from, next frame).
enum QueueBench {
  static let series = SeriesInfo(
    id: "harbour", title: "Harbour Lights",
    items: (1...8).map {
      ItemInfo(id: ItemID("harbour/s1e\($0)"), title: "Episode \($0)", duration: 2400)
    })

  /// Per edit, milliseconds until the last of the others had it; and every other's.
  static func run(participants: Int, edits: Int, port: Int, fingerprint: String) async throws
    -> (last: [Double], each: [Double])
  {
    let arrivals = Arrivals()
    var clients: [ParticipantClient] = []
    var listeners: [Task<Void, Never>] = []
    for i in 0..<participants {
      let client = ParticipantClient(
        transport: TCPTransport(
          host: "127.0.0.1", port: port,
          tls: RelayVerification(pinned: fingerprint, knownRelays: nil)),
        configuration: ParticipantConfiguration(name: "p\(i)", room: "queue"),
        logger: InviteBench.quietLogger())
      try await client.start()
      clients.append(client)
      if i > 0 {
        listeners.append(
          Task {
            for await case .state(_, let events) in client.events {
              let now = monoNow()
              for event in events {
                if case .queueAdded(let entry, _) = event.kind {
                  arrivals.seen.withLock { $0[entry, default: []].append(now) }
                }
              }
            }
          })
      }
    }
    var last: [Double] = []
    var each: [Double] = []
    let others = participants - 1
    for edit in 0..<edits {
      let entry = UInt64(edit + 1)
      let item = series.items[edit % series.items.count].id
      let started = monoNow()
      _ = await clients[0].send(.queueAdd(series: series, item: item))
      // The answer came back to the sender; wait (bounded) for the others' copies.
      let deadline = monoNow() + 5_000_000_000
      while arrivals.seen.withLock({ $0[entry]?.count ?? 0 }) < others, monoNow() < deadline {
        await sleepSeconds(0.0002)
      }
      let times = arrivals.seen.withLock { $0[entry] ?? [] }.map { Double($0 - started) / 1e6 }
      guard times.count == others else {
        throw BenchError("entry \(entry) reached \(times.count) of \(others) participants")
      }
      each += times
      last.append(times.max() ?? 0)
      // The queue holds at most 100: clear it now and then (not timed).
      if edit % 50 == 49 { _ = await clients[0].send(.queueClear) }
    }
    for listener in listeners { listener.cancel() }
    for client in clients { await client.stop() }
    return (last, each)
  }
}

struct QueueCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "queue",
    abstract: "From one participant's queue add to the entry at every other participant.")
  @OptionGroup var common: CommonOptions
  @Option(help: "Participants in the room.") var participants = 10
  @Option(help: "Entries added, one after another.") var edits = 200

  func run() async throws {
    let edits = common.smoke ? 10 : self.edits
    let participants = common.smoke ? 3 : self.participants
    let identity = try RelayIdentity.makeSelfSigned()
    let server = try await RelayServer.start(
      host: "127.0.0.1", port: 0, logger: InviteBench.quietLogger(),
      identity: identity)
    let (last, each) = try await QueueBench.run(
      participants: participants, edits: edits, port: server.port,
      fingerprint: identity.fingerprint)
    await server.stop()
    var table = Table(
      "participants", "edits", "to every other p50 / p99 / max (ms)",
      "to each other p50 / p99 / max (ms)")
    table.add(
      "\(participants)", "\(edits)", Summary(last).text(2), Summary(each).text(2))
    emit("A queue edit reaching everyone", table)
    Report.write(
      section: "queue", title: "19. A queue edit reaching everyone",
      body: """
        A relay with TLS on loopback and \(participants) participants in one room; one adds
        an entry to the room's queue (`queueAdd`, a whole series' description), \(edits)
        times one after another, and the time from the send to the entry in each other
        participant's replica is taken (what a front draws from at its next frame; the
        frame itself is §12's keys-to-screen). *To every other*: until the last of them had
        it.

        \(table.markdown)
        """, smoke: common.smoke)
  }
}
