import Clocks
import Participation
import PlaybackCoordination
import PlayerOSD
import Synchronization

/// Runs an ``OSDFeed`` for one participant: hears its client's events (as the client's
/// `observer`, in order), looks at its snapshot twice a second for the group's waits and
/// for lines whose time is up, and hands what to show to the player (`show`: text and
/// seconds; an empty text takes it down).
public final class OSDFeeder: Sendable {
  private let feed: Mutex<OSDFeed>
  private let clock: any SessionClock
  private let show: @Sendable (String, Double) -> Void
  private let follower = Mutex<Task<Void, Never>?>(nil)

  public init(
    mode: OSDMode, clock: any SessionClock, show: @escaping @Sendable (String, Double) -> Void
  ) {
    feed = Mutex(OSDFeed(mode: mode))
    self.clock = clock
    self.show = show
  }

  /// What the display shows now, as the feed has it (nil: nothing).
  public var text: String? { feed.withLock { $0.text } }

  /// One of the client's events (give this as the client's `observer`).
  public func hear(_ event: ClientEvent) {
    let now = clock.localNow()
    perform(feed.withLock { $0.heard(event, at: now) })
  }

  /// Follows `client` until ``stop()``: its waits, and lines that expire.
  public func follow(_ client: ParticipantClient) {
    guard feed.withLock({ $0.mode }) != .none else { return }
    let task = Task(executorPreference: clock.taskExecutor) { [weak self] in
      while !Task.isCancelled {
        let snapshot = await client.snapshot()
        guard let self else { return }
        let now = clock.localNow()
        perform(
          feed.withLock { feed in
            feed.saw(snapshot.state, groupTime: snapshot.groupTime, at: now)
          })
        await clock.sleep(seconds: 0.5)
      }
    }
    follower.withLock {
      $0?.cancel()
      $0 = task
    }
  }

  public func stop() {
    follower.withLock {
      $0?.cancel()
      $0 = nil
    }
  }

  private func perform(_ action: OSDFeed.Action?) {
    switch action {
    case .show(let text, let seconds): show(text, seconds)
    case .clear: show("", 0)
    case nil: break
    }
  }

  deinit { follower.withLock { $0?.cancel() } }
}
