import ArgumentParser
import Foundation
import PostgresRoomStore
import ThrowawayPostgres

struct StoreCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "store",
    abstract:
      "The room store: propagation with and without it, steps sustained while writing, kill -9 to back in sync."
  )
  @OptionGroup var common: CommonOptions
  @Option(help: "Participants in the propagation run.") var size = 10
  @Option(help: "Rounds of pause, seek and play.") var rounds = 30
  @Option(help: "Propagation runs per store (alternating).") var repeats = 5
  @Option(help: "Participants in the throughput run.") var participants = 10_000
  @Option(help: "Participants per room in the throughput run.") var roomSize = 10
  @Option(help: "Seconds of the throughput run per store.") var seconds = 10.0
  @Option(help: "Participants in the restart run.") var restartSize = 10
  @Option(help: "Restart runs.") var runs = 5
  @Option(help: "Seconds between the kill and the restart.") var restartAfter = 1.0
  @Flag(
    help:
      "Measure the PostgreSQL store instead, on a throwaway server (Debian's postgresql), with relays sharing it."
  )
  var postgres = false

  func run() async throws {
    if postgres { return try await runPostgres() }
    let smoke = common.smoke
    let tolerance = 0.05
    let prop = try await StoreBench.propagation(
      size: smoke ? 3 : size, rounds: smoke ? 2 : rounds, repeats: smoke ? 1 : repeats)
    emit("Propagation with each store", prop)
    let count = smoke ? 200 : participants
    var results: [StoreBench.Throughput] = []
    for kind in ["memory", "sqlite"] {
      results.append(
        try await StoreBench.throughput(
          participants: count, roomSize: roomSize, seconds: smoke ? 0.5 : seconds, store: kind))
    }
    let throughput = StoreBench.throughputTable(results, participants: count, roomSize: roomSize)
    emit("Steps sustained while writing (\(count) participants)", throughput)
    var paced: [StoreBench.Throughput] = []
    for rate in smoke ? [1000.0] : [5000.0, 20000.0] {
      var r = try await StoreBench.throughput(
        participants: count, roomSize: roomSize, seconds: smoke ? 0.5 : seconds, store: "sqlite",
        rate: rate)
      r.store = String(format: "%.0f", rate)
      paced.append(r)
    }
    let pacedTable = StoreBench.pacedTable(paced)
    emit("Writing at a paced load (\(count) participants, SQLite)", pacedTable)
    let restart = try await StoreBench.restart(
      size: smoke ? 3 : restartSize, runs: smoke ? 1 : runs, restartAfter: restartAfter,
      tolerance: tolerance)
    let restartTable = StoreBench.restartTable(
      restart, restartAfter: restartAfter, tolerance: tolerance)
    emit("kill -9 and a restart after \(restartAfter) s", restartTable)
    Report.write(
      section: "store", title: "8. The room store",
      body: """
        **Propagation with and without the store.** As §1 (real clients over loopback TCP to
        an in-process relay, \(smoke ? 3 : size) participants, \(smoke ? 2 : rounds) rounds of
        pause, seek and play), \(smoke ? 1 : repeats) runs with `--store memory` and as many
        with an SQLite store in a temporary file, alternating. The relay forwards every step
        before the store sees it; the writer takes the changed rooms every 5 ms and encodes
        and writes them on a thread of its own.

        \(prop.markdown)
        **Steps sustained while writing.** One in-process relay runtime, \(count) participants
        in rooms of \(roomSize), each sending `report` commands (a sequenced step each, as
        every participant sends every few seconds) in turn, as fast as one thread applies
        them, for \(smoke ? 0.5 : seconds) s; writes nothing to connections, so the relay's
        own cost is what is measured. The writer coalesces: a room that changed many times
        between two writes is written once (its row, and the rows of the members that
        changed). *Writer busy* is the share of the time the writer spent in SQLite
        transactions (on the other core).

        \(throughput.markdown)
        **At the load participants cause.** The same, SQLite only, with the steps paced
        (slices every 5 ms): 5,000 steps/s is what \(count) participants send (a report every
        2 s each, plus commands); 20,000 is four times that. *Longest write* bounds what a
        `kill -9` can lose: the changes of one write interval plus one write.

        \(pacedTable.markdown)
        **kill -9 and restart.** A `cowatch serve` process with an SQLite store;
        \(smoke ? 3 : restartSize) `ParticipantClient`s with simulated players playing
        together over loopback TCP; the relay killed with SIGKILL and started again on the
        same port \(restartAfter) s later, \(smoke ? 1 : runs) times. Times are from the
        kill; *playing within \(Int(tolerance * 1000)) ms* means the participant's player is
        playing at rate 1 within that distance of where its group timeline says.

        \(restartTable.markdown)
        """, smoke: smoke)
  }

  /// The PostgreSQL store as relays share it (leases, fencing), on a throwaway server.
  func runPostgres() async throws {
    let smoke = common.smoke
    let tolerance = 0.05
    guard ThrowawayPostgres.available else {
      throw BenchError("PostgreSQL is not installed (apt-get install postgresql)")
    }
    let cluster = try await ThrowawayPostgres.start()
    defer { cluster.stop() }
    let url = cluster.url
    let prop = try await StoreBench.propagation(
      size: smoke ? 3 : size, rounds: smoke ? 2 : rounds, repeats: smoke ? 1 : repeats,
      postgres: url)
    emit("Propagation with each store", prop)
    let count = smoke ? 200 : participants
    var results: [StoreBench.Throughput] = []
    results.append(
      try await StoreBench.throughput(
        participants: count, roomSize: roomSize, seconds: smoke ? 0.5 : seconds,
        store: "postgres", postgres: url))
    var paced = try await StoreBench.throughput(
      participants: count, roomSize: roomSize, seconds: smoke ? 0.5 : seconds,
      store: "postgres", rate: smoke ? 1000 : 5000, postgres: url)
    paced.store = "postgres, \(smoke ? 1000 : 5000) steps/s offered"
    results.append(paced)
    let throughput = StoreBench.throughputTable(results, participants: count, roomSize: roomSize)
    emit("Steps sustained while writing to PostgreSQL (\(count) participants)", throughput)
    let restart = try await StoreBench.restart(
      size: smoke ? 3 : restartSize, runs: smoke ? 1 : runs, restartAfter: restartAfter,
      tolerance: tolerance, postgres: url)
    let restartTable = StoreBench.restartTable(
      restart, restartAfter: restartAfter, tolerance: tolerance)
    emit("kill -9 and a restart after \(restartAfter) s (PostgreSQL)", restartTable)
    let takeover = try await StoreBench.takeover(
      size: smoke ? 3 : restartSize, runs: smoke ? 1 : runs, tolerance: tolerance, postgres: url)
    let takeoverTable = StoreBench.restartTable(
      takeover, restartAfter: 0, tolerance: tolerance)
    emit("kill -9 of the room's relay, taken over by another", takeoverTable)
    let lease = PostgresRoomStore.defaultLeaseDuration
    Report.write(
      section: "store-postgres", title: "11. Rooms in PostgreSQL, shared by relays",
      body: """
        A throwaway PostgreSQL server (Debian's, `initdb` in a temporary directory, `fsync`
        off as in the tests) on the same machine; relays use it as `cowatch serve --store
        postgres://…` does: each room's lease claimed on its first hello and renewed every
        \(lease / 4) s (lease \(lease) s), every write fenced by it in the same transaction.

        **Propagation with each store.** As §8: \(smoke ? 3 : size) participants, real clients
        over loopback TCP to an in-process relay, \(smoke ? 2 : rounds) rounds of pause, seek and
        play, \(smoke ? 1 : repeats) runs per store, alternating.

        \(prop.markdown)
        **Steps sustained while writing.** As §8, PostgreSQL: \(count) participants in rooms of
        \(roomSize) on one in-process runtime, `report` steps as fast as one thread applies
        them, then paced at what that many participants send. *Writer busy* is the share of
        the time spent waiting for PostgreSQL's transactions (the server runs on the same 2
        cores).

        \(throughput.markdown)
        **kill -9 and a restart.** As §8, with the PostgreSQL store: one `cowatch serve`
        process, killed with SIGKILL and started again on the same port \(restartAfter) s
        later (its successor at the same address takes the rooms' leases at once).

        \(restartTable.markdown)
        **kill -9 and a takeover.** Three `cowatch serve` processes on the database;
        \(smoke ? 3 : restartSize) participants playing together through the first, which is
        killed with SIGKILL and not started again. The participants reconnect to the others
        their welcome listed; the lease expires (at most \(lease) s after the last renewal) and
        the next relay asked takes the room over from the database. Times are from the kill.

        \(takeoverTable.markdown)
        """, smoke: smoke)
  }
}
