import ArgumentParser
import Foundation

struct ScaleCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "scale",
    abstract: "Relay scale: N participants in rooms of five, each room changing once a second.")
  @OptionGroup var common: CommonOptions
  @Option(help: "Participant counts, comma-separated.") var sizes = "100,500,1000,2000,5000,10000"
  @Option(help: "Participants per room.") var roomSize = 5
  @Option(help: "Measured seconds per step.") var seconds = 8.0

  func run() async throws {
    let limit = raiseFileLimit()
    let sizes = common.smoke ? [20] : self.sizes.split(separator: ",").compactMap { Int($0) }
    progress("open-file limit \(limit)")
    let steps = await LoadBench.scale(
      .cowatch, sizes: sizes, roomSize: roomSize, seconds: common.smoke ? 2 : seconds,
      launch: { try ServerProcess.cowatch() })
    let t = LoadBench.scaleTable(steps, name: "cowatch")
    emit("Relay scale", t)
    let best = LoadBench.largestUnder(50, steps).map { "\($0)" } ?? "none of the sizes tried"
    print("\nlargest N with p99 < 50 ms: \(best)")
    Report.write(
      section: "scale", title: "4. Relay scale",
      body: """
        `cowatch serve` (release build) as its own process on 127.0.0.1; one bench process
        holds every participant as a lightweight NIO client (hello, a ping every second as
        heartbeat, reading updates) in rooms of \(roomSize); each room's first participant seeks once
        a second (first at a random phase). Propagation is from the seek's write to the update's arrival at each other
        member of the room. CPU is the relay's user+system time over the \(Int(seconds)) s window
        (/proc/PID/stat); RSS is VmRSS at the end of it. The load generator shares the machine's
        \(ProcessInfo.processInfo.activeProcessorCount) cores with the relay, so its own latency is part of the figures.

        Largest N with p99 < 50 ms: **\(best)**. The open-file limit was \(limit).

        \(t.markdown)
        """, smoke: common.smoke)
  }
}
