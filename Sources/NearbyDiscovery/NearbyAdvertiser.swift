import NIOConcurrencyHelpers
import NearbyRooms
import Synchronization

/// Advertises a relay's rooms on the local network for as long as it runs: asks `rooms`
/// four times a second what there is (rooms open and close as people come and go), answers the
/// network's questions and says goodbye to each room when it closes or the advertiser stops.
public final class NearbyAdvertiser: Sendable {
  private let socket: MulticastDNSSocket
  private let responder: NIOLockedValueBox<NearbyResponder>
  private let loop: Mutex<Task<Void, Never>?> = Mutex(nil)

  /// How often the rooms are looked at: a room opened is announced within this.
  public static let interval: Duration = .milliseconds(250)

  private init(socket: MulticastDNSSocket, responder: NIOLockedValueBox<NearbyResponder>) {
    self.socket = socket
    self.responder = responder
  }

  /// Starts advertising; `rooms` is called from a task of its own (it must be quick).
  public static func start(rooms: @escaping @Sendable () -> [NearbyRoom])
    async throws(NearbyError) -> NearbyAdvertiser
  {
    let responder = NIOLockedValueBox(NearbyResponder())
    let clock = ElapsedClock()
    // The socket delivers before the advertiser exists: it reads the same responder.
    let pending = NIOLockedValueBox<MulticastDNSSocket?>(nil)
    let socket = try await MulticastDNSSocket.open { message, _, port in
      guard !message.isResponse else { return }
      // Queries from another port than 5353 want a unicast answer (RFC 6762 §6.7): not
      // given — every mDNS browser asks from 5353.
      guard port == 5353 else { return }
      let answers = responder.withLockedValue { $0.answer(message, at: clock.nanoseconds) }
      guard let socket = pending.withLockedValue({ $0 }) else { return }
      for answer in answers { socket.send(answer) }
    }
    pending.withLockedValue { $0 = socket }
    let advertiser = NearbyAdvertiser(socket: socket, responder: responder)
    advertiser.loop.withLock {
      $0 = Task { [weak advertiser] in
        let clock = ContinuousClock()
        let start = clock.now
        while !Task.isCancelled, let advertiser {
          let now =
            UInt64((clock.now - start).components.seconds) * 1_000_000_000
            + UInt64((clock.now - start).components.attoseconds / 1_000_000_000)
          let current = rooms()
          let messages = advertiser.responder.withLockedValue {
            $0.advertise(current, at: now) + $0.tick(at: now)
          }
          for message in messages { advertiser.socket.send(message) }
          try? await Task.sleep(for: Self.interval)
        }
      }
    }
    return advertiser
  }

  /// Says goodbye to every room advertised, then closes the socket.
  public func stop() async {
    let task = loop.withLock { task in
      defer { task = nil }
      return task
    }
    task?.cancel()
    await task?.value
    for goodbye in responder.withLockedValue({ $0.stop() }) { socket.send(goodbye) }
    await socket.close()
  }
}

/// A value behind a lock, shared by reference (the socket's callback and the advertiser).

/// Nanoseconds since it was made, on the monotonic clock: the responder's and browser's time.
struct ElapsedClock: Sendable {
  private let clock = ContinuousClock()
  private let start: ContinuousClock.Instant

  init() { start = clock.now }

  var nanoseconds: UInt64 {
    let elapsed = clock.now - start
    return UInt64(elapsed.components.seconds) * 1_000_000_000
      + UInt64(elapsed.components.attoseconds / 1_000_000_000)
  }
}
