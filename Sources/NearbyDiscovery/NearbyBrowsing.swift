import Clocks
import NIOConcurrencyHelpers
import NearbyRooms

/// Looks for rooms on the local network for a while, telling each one as it appears,
/// changes or leaves.
public enum NearbyBrowsing {
  /// Asks at once, again after 1 s, then every 2 s (RFC 6762 §5.2 doubles the interval;
  /// a few seconds of looking need no more), until `duration` has passed or `event`
  /// returns false (found what it looked for).
  public static func browse(
    for duration: Duration, clock: any SessionClock = MonotonicClock(),
    event: @escaping @Sendable (NearbyBrowser.Event) -> Bool
  ) async throws(NearbyError) {
    let browser = NIOLockedValueBox(NearbyBrowser())
    let done = NIOLockedValueBox(false)
    let elapsed = ElapsedTime(clock)
    let nanoseconds = { @Sendable () -> UInt64 in elapsed.nanoseconds }
    let socket = try await MulticastDNSSocket.open { message, address, port in
      // Answers come from port 5353 (RFC 6762 §11): others are not multicast DNS's.
      guard port == 5353, message.isResponse else { return }
      let events = browser.withLockedValue { $0.receive(message, from: address, at: nanoseconds()) }
      for change in events where done.withLockedValue({ !$0 }) {
        if !event(change) { done.withLockedValue { $0 = true } }
      }
    }
    var nextQuery: Duration = .zero
    var gap: Duration = .seconds(1)
    while elapsed.duration < duration, !done.withLockedValue({ $0 }) {
      if elapsed.duration >= nextQuery {
        socket.send(NearbyBrowser.query)
        nextQuery += gap
        gap = .seconds(2)
      }
      let expired = browser.withLockedValue { $0.tick(at: nanoseconds()) }
      for change in expired where done.withLockedValue({ !$0 }) {
        if !event(change) { done.withLockedValue { $0 = true } }
      }
      // Short naps: the end of the wait, or what was looked for, is noticed within 50 ms.
      await clock.sleep(for: .milliseconds(50))
    }
    await socket.close()
  }
}
