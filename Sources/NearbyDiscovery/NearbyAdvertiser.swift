import Clocks
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
  public static func start(
    clock sessionClock: any SessionClock = MonotonicClock(),
    rooms: @escaping @Sendable () -> [NearbyRoom]
  ) async throws(NearbyError) -> NearbyAdvertiser {
    let responder = NIOLockedValueBox(NearbyResponder())
    let clock = ElapsedTime(sessionClock)
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
        while !Task.isCancelled, let advertiser {
          let now = clock.nanoseconds
          let current = rooms()
          let messages = advertiser.responder.withLockedValue {
            $0.advertise(current, at: now) + $0.tick(at: now)
          }
          for message in messages { advertiser.socket.send(message) }
          await sessionClock.sleep(for: Self.interval)
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

/// Time since it was made, on the injected clock: the responder's and browser's time.
struct ElapsedTime: Sendable {
  private let clock: any SessionClock
  private let start: Int64

  init(_ clock: any SessionClock) {
    self.clock = clock
    start = clock.nanoseconds()
  }

  var nanoseconds: UInt64 { UInt64(max(0, clock.nanoseconds() &- start)) }
  var duration: Duration { .nanoseconds(Int64(nanoseconds)) }
}
