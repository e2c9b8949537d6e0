import Clocks
import RelayRuntime
import Rooms
import Testing

/// A relay that stopped (or was killed) while a participant was connecting: the new
/// connection must close at once, or the participant waits for a welcome that never comes
/// (seen as a takeover that timed out in CI: carl reconnected in the instant between the
/// relay's death and its listening socket's closing, and waited there).
@Suite("Connections to a stopped relay")
struct StoppedRelayTests {
  @Test("a connection opened after the relay was killed is closed, without a word")
  func killed() {
    let driver = RelayDriver()
    driver.runtime.abandon()
    let outlet = RelayDriver.RecordingOutlet()
    #expect(driver.runtime.open(outlet, address: "127.0.0.1") == nil)
    #expect(outlet.closed.withLock { $0 })
    #expect(outlet.lines.withLock { $0.isEmpty })
  }

  @Test("a connection opened after the relay stopped is told why and closed")
  func stopped() throws {
    let driver = RelayDriver()
    driver.runtime.stop(reason: "the host left", final: true)
    let outlet = RelayDriver.RecordingOutlet()
    #expect(driver.runtime.open(outlet, address: "127.0.0.1") == nil)
    #expect(outlet.closed.withLock { $0 })
    let lines = outlet.lines.withLock { $0 }
    try #require(lines.count == 1)
    #expect(String(decoding: lines[0], as: UTF8.self).contains("the host left"))
  }
}
