import Clocks
import Rooms
import Synchronization

/// Paces one tunnel's bytes against the relay's rates (``TunnelRates``, shared by every
/// tunnel): each read is charged, and the half that read stops reading for as long as the
/// room's or the relay's bucket is in debt.
public final class TunnelMeter: Sendable {
  public let room: String
  private let rates: Shared
  private let clock: any SessionClock

  /// The relay's rates, behind a lock of their own (not the relay's: a tunnel's reads
  /// must not wait on the rooms' traffic, nor the reverse).
  final class Shared: Sendable {
    let state: Mutex<TunnelRates>
    init(_ rates: TunnelRates) { state = Mutex(rates) }
  }

  init(room: String, rates: Shared, clock: any SessionClock) {
    self.room = room
    self.rates = rates
    self.clock = clock
  }

  /// Seconds a tunnel may carry nothing before it is closed.
  public var idleTimeout: Double { rates.state.withLock { $0.policy.idleTimeout } }

  /// `bytes` were read from a half: seconds that half waits before reading again.
  public func charge(_ bytes: Int) -> Double {
    let now = clock.nanoseconds()
    return rates.state.withLock { $0.charge(bytes, room: room, at: now) }
  }
}
