import PlaybackCoordination
import Testing
import WireProtocol

@testable import Participation

@Suite("Clock sync: pings and the relay clock's estimate")
struct ClockSyncTests {
  let at = Fixture.at

  /// The relay's clock reads 1000 s more than this one; each way takes `oneWay` seconds.
  func answer(_ sync: inout ClockSync, pingAt t0: Double, oneWay: Double) -> Bool {
    let relay = GroupInstant(seconds: 1000 + 100 + t0 + oneWay)
    return sync.pong(t0: at(t0), t1: relay, t2: relay, at: at(t0 + 2 * oneWay))
  }

  @Test("pings go quickly until the window fills, then at the steady interval")
  func pace() {
    var sync = ClockSync(pingInterval: 1, jitteryPingInterval: 0.25, jitterThreshold: 0.002)
    #expect(sync.nextPing == nil, "the first ping is due at once")
    var sentAt: [Double] = []
    var now = 0.0
    while now < 3 {
      if let ping = sync.ping(at: at(now)), case .ping(_, let t0) = ping {
        sentAt.append(now)
        _ = answer(&sync, pingAt: t0.seconds - 100, oneWay: 0.001)
      }
      now += 0.05
    }
    #expect(sentAt.count >= 8 && sentAt.count <= 11, "eight quick pings, then one a second")
    #expect(sentAt.prefix(8).last! < 0.5)
  }

  @Test("the first answer gives the estimate; later ones refine it")
  func firstEstimate() throws {
    var sync = ClockSync(pingInterval: 1, jitteryPingInterval: 0.25, jitterThreshold: 0.002)
    #expect(sync.estimate == nil)
    #expect(answer(&sync, pingAt: 0, oneWay: 0.01))
    #expect(!answer(&sync, pingAt: 0.05, oneWay: 0.01))
    let estimate = try #require(sync.estimate)
    let relayNow = estimate.groupTime(at: at(1)).seconds
    #expect(abs(relayNow - 1101) < 0.001)
    #expect(abs(estimate.roundTrip - 0.02) < 0.001)
  }

  @Test("ping ids count up")
  func ids() {
    var sync = ClockSync(pingInterval: 1, jitteryPingInterval: 0.25, jitterThreshold: 0.002)
    var ids: [UInt64] = []
    for step in 0..<3 {
      if case .ping(let id, _)? = sync.ping(at: at(Double(step))) { ids.append(id) }
    }
    #expect(ids == [1, 2, 3])
  }
}
