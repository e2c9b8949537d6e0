import PlaybackCoordination
import Synchronization

/// A player without video: a ``PlayerDriver`` with its own imperfect clock, for demos,
/// tests and benchmarks. It drifts (`driftPPM`), needs time to load, start and seek, and
/// stalls now and then, all drawn from a seeded generator, so the coordinator must keep it
/// in sync as it would a real player.
///
/// It never reads a clock: every call passes the local time, and the player advances
/// itself to that instant (time never goes back; an earlier instant is taken as the latest
/// one seen). Safe to share between tasks; state is behind a mutex.
public final class SimulatedPlayer: PlayerDriver {
  private let playback: Mutex<SimulatedPlayback>
  private let itemResolver: @Sendable (ItemID) -> SimulatedItem?
  public let configuration: SimulatedPlayerConfiguration

  /// - Parameter itemResolver: what `load` plays (duration and subtitles), e.g.
  ///   `catalog.itemResolver`.
  public init(
    configuration: SimulatedPlayerConfiguration = .init(),
    itemResolver: @escaping @Sendable (ItemID) -> SimulatedItem?
  ) {
    self.configuration = configuration
    self.itemResolver = itemResolver
    self.playback = Mutex(SimulatedPlayback(configuration: configuration))
  }

  /// A player for the items of `catalog`.
  public convenience init(catalog: Catalog, configuration: SimulatedPlayerConfiguration = .init()) {
    self.init(configuration: configuration, itemResolver: catalog.itemResolver)
  }

  public func perform(_ command: PlayerCommand, at now: LocalInstant) {
    let resolver = itemResolver
    playback.withLock { $0.perform(command, at: now, resolver: resolver) }
  }

  public func observe(at now: LocalInstant) -> PlayerObservation {
    playback.withLock { p in
      p.advance(to: now)
      return PlayerObservation(
        item: p.item?.id, position: p.position, rate: p.isAdvancing ? p.rate : 0, isBusy: p.isBusy,
        isStalled: p.isStalled, preparedAt: p.preparedAt.flatMap { $0 <= now ? $0 : nil },
        problem: p.problem)
    }
  }

  /// What the screen shows at `now`: state, position, subtitle line and test-pattern frame.
  public func snapshot(at now: LocalInstant) -> PlayerSnapshot {
    let (item, position, rate, state, busy, problem) = playback.withLock { p in
      p.advance(to: now)
      return (p.item, p.position, p.isAdvancing ? p.rate : 0, p.state, p.isBusy, p.problem)
    }
    return PlayerSnapshot(
      item: item?.id, title: item?.title, duration: item?.duration, position: position, rate: rate,
      state: state, isBusy: busy, subtitle: item?.subtitles?.line(at: position),
      frame: TestPattern.frame(at: position), problem: problem)
  }

  /// Makes the player stall (re-buffer) for `duration` seconds from `now` if it is playing,
  /// or from the moment it next plays. The stall is reported and ends like a drawn one (a
  /// pause, seek or unload cuts it short); the drawn stalls go on as before.
  public func injectStall(duration: Double, at now: LocalInstant) {
    playback.withLock { $0.injectStall(duration: duration, at: now) }
  }

  /// The events that happened up to `now` since the last call (each stamped with its own
  /// instant), oldest first. Meant for one owner, e.g. the session layer raising and clearing
  /// a `stallRecovery` suspension.
  public func takeEvents(at now: LocalInstant) -> [PlayerEvent] {
    playback.withLock { p in
      p.advance(to: now)
      return p.takeEvents()
    }
  }
}
