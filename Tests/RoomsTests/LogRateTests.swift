import Clocks
import Logging
import PlaybackCoordination
import Synchronization
import Testing
import WireProtocol

@testable import RelayRuntime
@testable import Rooms

/// Keeps every line logged through it.
struct CapturingLogHandler: LogHandler {
  let store: LogStore
  var logLevel: Logger.Level = .trace
  var metadata: Logger.Metadata = [:]
  subscript(metadataKey key: String) -> Logger.Metadata.Value? {
    get { metadata[key] }
    set { metadata[key] = newValue }
  }

  func log(event: LogEvent) {
    store.lines.withLock { $0.append("\(event.message)") }
  }
}

final class LogStore: Sendable {
  let lines = Mutex<[String]>([])
}

@Suite("The relay's log under a flood")
struct LogRateTests {
  @Test(
    "a thousand bad connections write at most a burst of lines, then one line counting the rest")
  func floodIsBounded() {
    let store = LogStore()
    let clock = ManualClock()
    let runtime = RelayRuntime(
      clock: clock, logger: Logger(label: "test") { _ in CapturingLogHandler(store: store) },
      epoch: "test")
    func attack(_ count: Int) {
      for _ in 0..<count {
        guard let id = runtime.open(RelayDriver.RecordingOutlet()) else { continue }
        runtime.received(Array("not json\u{1B}[2J".utf8), from: id)
        runtime.closed(id)
      }
    }
    attack(1000)
    let during = store.lines.withLock { $0.count }
    #expect(during <= Int(RelayRuntime.logBurst) + 1)
    #expect(during >= Int(RelayRuntime.logBurst) / 2, "the first lines are written")
    // A second later the budget has refilled a little: the next line is preceded by the
    // count of those left out.
    clock.advance(bySeconds: 1)
    attack(1)
    let lines = store.lines.withLock { $0 }
    #expect(lines.contains { $0.hasSuffix("log lines left out (over the log's rate limits)") })
    #expect(lines.allSatisfy { !$0.contains("\u{1B}") }, "peer text is escaped")
  }

  @Test("refused connections count against the same budget")
  func refusedConnectionsAreBounded() {
    let store = LogStore()
    var configuration = RelayConfiguration()
    configuration.maximumConnectionsPerAddress = 1
    let runtime = RelayRuntime(
      configuration: configuration, clock: ManualClock(),
      logger: Logger(label: "test") { _ in CapturingLogHandler(store: store) }, epoch: "test")
    _ = runtime.open(RelayDriver.RecordingOutlet(), address: "10.0.0.9")
    for _ in 0..<5000 {
      #expect(runtime.open(RelayDriver.RecordingOutlet(), address: "10.0.0.9") == nil)
    }
    #expect(store.lines.withLock { $0.count } <= Int(RelayRuntime.logBurst))
  }

  @Test("a log budget gives its burst at once, then its rate, and never more than its burst")
  func budget() {
    var b = RelayRuntime.LogBudget(burst: 10)
    let t0: Int64 = 1_000_000_000
    func takes(_ tries: Int, at t: Int64) -> Int {
      var taken = 0
      for _ in 0..<tries where b.take(at: t, rate: 1, burst: 10) { taken += 1 }
      return taken
    }
    #expect(takes(15, at: t0) == 10)
    #expect(takes(1, at: t0 + 500_000_000) == 0)
    #expect(takes(1, at: t0 + 1_000_000_000) == 1)
    // A long quiet spell refills to the burst, not beyond.
    #expect(takes(15, at: t0 + 3_600_000_000_000) == 10)
  }
}
