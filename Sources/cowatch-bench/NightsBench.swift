import ArgumentParser
import Foundation
import PlaybackCoordination
import WatchNights

/// What a room's memory costs: a season of nights written as a participant writes them
/// (``NightRecorder`` deciding, ``RoomMemoryFolder`` writing), and the time from starting
/// `cowatch host --room club` to the offer to continue (its `last-time` line).
enum NightsBench {
  struct Night {
    var fileBytes: Int
    var writes: Int
    var bytesWritten: Int
    var writeMicroseconds: [Double]
  }

  static let names = ["ann", "bob", "carl", "dan", "eve"]

  /// `nights` nights of a 45-minute episode each, looked at once a second as the runtime
  /// does, with `reactions` reactions a night, a queued episode and a pause.
  static func season(nights: Int, reactions: Int, stateDirectory: String) throws -> [Night] {
    let folder = RoomMemoryFolder(stateDirectory: stateDirectory)
    let items = (1...max(nights, 1)).map {
      ItemInfo(
        id: ItemID("harbour/s\(($0 - 1) / 13 + 1)e\(($0 - 1) % 13 + 1)"), title: "Episode \($0)",
        duration: 2700)
    }
    let series = SeriesInfo(id: "harbour", title: "Harbour Lights", items: items)
    var result: [Night] = []
    var wall = Date(timeIntervalSince1970: 1_795_556_400)
    for night in 0..<nights {
      let previous: RoomMemory? =
        if case .memory(let memory) = folder.read(room: "club") { memory } else { nil }
      var recorder = NightRecorder(room: "club", previous: previous)
      let people = Array(names.prefix(2 + night % 3))
      var record = Night(fileBytes: 0, writes: 0, bytesWritten: 0, writeMicroseconds: [])
      func write(_ memory: RoomMemory, at t: Double) throws {
        let started = monoNow()
        try folder.write(memory)
        record.writeMicroseconds.append(Double(monoNow() - started) / 1e3)
        record.writes += 1
        record.bytesWritten += RoomMemoryFile.encode(memory).count
        recorder.written(memory, at: t)
      }
      var position = 0.0
      for second in 0..<2700 {
        let t = Double(second)
        // Paused from minute 20 for a minute; S(n+1) queued at minute 5.
        let paused = second >= 1200 && second < 1260
        if !paused { position += 1 }
        if reactions > 0, second % max(1, 2700 / reactions) == 0, second > 0 {
          recorder.addMoment(
            who: people[second % people.count], text: "what a scene 😮", at: position)
        }
        let queue =
          second >= 300 && night + 1 < items.count
          ? [
            QueueEntry(
              id: 1, series: series, item: items[night + 1].id, addedBy: ParticipantID("p1"),
              addedByName: people[1])
          ] : []
        let state = GroupState(
          participants: people.enumerated().map {
            Participant(id: ParticipantID("p\($0.offset)"), name: $0.element)
          },
          session: WatchSession(
            id: 1, series: series, item: items[night],
            timeline: Timeline(
              itemTime: position, groupTime: GroupInstant(seconds: t), rate: paused ? 0 : 1),
            intendedRate: paused ? 0 : 1),
          queue: queue)
        if let due = recorder.saw(
          state, position: position, at: t, wall: wall.addingTimeInterval(t))
        {
          try write(due, at: t)
        }
      }
      if let last = recorder.finish() { try write(last, at: 2700) }
      let attributes = try FileManager.default.attributesOfItem(atPath: folder.file(for: "club"))
      record.fileBytes = (attributes[.size] as? Int) ?? 0
      result.append(record)
      wall = wall.addingTimeInterval(7 * 86_400)
    }
    return result
  }

  /// Milliseconds from starting `cowatch host --room club` (headless, on loopback) to its
  /// `last-time` line, and to its invite line, `runs` times, with the season's memory in
  /// `stateDirectory`.
  static func offers(runs: Int, stateDirectory: String) async throws -> (
    offer: [Double], invite: [Double]
  ) {
    var environment = ProcessInfo.processInfo.environment
    environment["XDG_STATE_HOME"] = (stateDirectory as NSString).deletingLastPathComponent
    var offer: [Double] = []
    var invite: [Double] = []
    for _ in 0..<runs {
      let started = monoNow()
      let host = try HeadlessProcess(
        [
          "host", "--bind", "127.0.0.1", "--port", "0", "--name", "bob", "--room", "club",
          "--headless", "--no-carry", "--log-level", "error",
        ], environment: environment)
      guard let line = await host.wait(for: [#""event":"last-time""#], timeout: 20),
        let shown = await host.wait(for: [#""event":"invite""#], timeout: 20)
      else {
        host.kill()
        throw BenchError("no offer to continue from cowatch host within 20 s")
      }
      offer.append(Double(line.at - started) / 1e6)
      invite.append(Double(shown.at - started) / 1e6)
      host.closeInput()
      for _ in 0..<400 where host.process.isRunning { await sleepSeconds(0.01) }
      host.kill()
    }
    return (offer, invite)
  }
}

struct NightsCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "nights",
    abstract:
      "A room's memory: bytes on disk after a season of nights, and the time from cowatch host to the offer to continue."
  )
  @OptionGroup var common: CommonOptions
  @Option(help: "Nights in the season.") var nights = 26
  @Option(help: "Reactions a night.") var reactions = 60
  @Option(help: "Starts of cowatch host measured.") var runs = 10

  func run() async throws {
    let nights = common.smoke ? 3 : self.nights
    let base = NSTemporaryDirectory() + "cowatch-bench-nights-\(UUID().uuidString)"
    defer { try? FileManager.default.removeItem(atPath: base) }
    let state = base + "/cowatch"
    let season = try NightsBench.season(nights: nights, reactions: reactions, stateDirectory: state)
    var table = Table(
      "after night", "file (bytes)", "bytes per night", "writes that night",
      "bytes written that night", "write p50 / max (µs)")
    for (index, night) in season.enumerated()
    where index == 0 || index == season.count - 1 || (index + 1) % 13 == 0 {
      let writes = Summary(night.writeMicroseconds)
      table.add(
        "\(index + 1)", "\(night.fileBytes)", "\(night.fileBytes / (index + 1))", "\(night.writes)",
        "\(night.bytesWritten)",
        String(format: "%.0f / %.0f", writes.p50, writes.max))
    }
    emit("A room's memory over a season (\(nights) nights, \(reactions) reactions a night)", table)
    let (offer, invite) = try await NightsBench.offers(
      runs: common.smoke ? 1 : runs, stateDirectory: state)
    var times = Table("from starting `cowatch host --room club`", "runs", "p50 / p99 / max (ms)")
    times.add("to the `last-time` line (the offer)", "\(offer.count)", Summary(offer).text(1))
    times.add("to the `invite` line", "\(invite.count)", Summary(invite).text(1))
    emit("From cowatch host to the offer to continue", times)
    Report.write(
      section: "nights", title: "23. A room's memory across nights",
      body: """
        A season of \(nights) weekly nights of one room (docs/NIGHTS.md), each a 45-minute
        episode looked at once a second as a participant's `NightKeeper` does, with 2 to 4
        people, an episode queued at minute 5, a minute's pause at minute 20 and
        \(reactions) reactions a night; `NightRecorder` decides the writes and
        `RoomMemoryFolder` makes them (a temporary file, `fsync`, renamed over the room's
        file). The file holds the last night whole (its reactions among it) and each earlier
        night in a line, so it grows by that line a night, up to 100 nights.

        \(table.markdown)

        Then the release `cowatch host --room club --headless` is started \(common.smoke ? 1 : runs) times on
        that state directory (loopback, no carrying), and the time to its `last-time` line
        (the offer to continue, printed as the participant starts, after it entered its
        own relay's room) and to its `invite` line is read from its output.

        \(times.markdown)
        """, smoke: common.smoke)
  }
}
