import PlaybackCoordination

/// A player the terminal front can show as well as drive: everything its screen needs at
/// an instant. The simulated player draws its test pattern; a real player (mpv) shows its
/// picture elsewhere and is shown here by its observation (``ObservedPlayer``).
public protocol ShowablePlayer: PlayerDriver {
  func snapshot(at now: LocalInstant) -> PlayerSnapshot
}

extension SimulatedPlayer: ShowablePlayer {}

/// Shows any ``PlayerDriver`` by what it reports, with titles, durations and subtitles
/// from the catalog; the picture is a test pattern at its position.
public final class ObservedPlayer: ShowablePlayer {
  public let driver: any PlayerDriver
  public let catalog: Catalog

  public init(_ driver: any PlayerDriver, catalog: Catalog) {
    self.driver = driver
    self.catalog = catalog
  }

  public func perform(_ command: PlayerCommand, at now: LocalInstant) {
    driver.perform(command, at: now)
  }

  public func observe(at now: LocalInstant) -> PlayerObservation { driver.observe(at: now) }

  public func takeUserActions() -> [PlayerUserAction] { driver.takeUserActions() }

  public func snapshot(at now: LocalInstant) -> PlayerSnapshot {
    let seen = driver.observe(at: now)
    let item = seen.item.flatMap { catalog.item($0) }
    // A link is in no catalog: its length is what the player read from it.
    let duration = item?.duration ?? seen.fileDuration
    let state: PlayerState
    if seen.problem != nil || seen.item == nil {
      state = .idle
    } else if seen.isStalled {
      state = .stalled
    } else if seen.isBusy {
      state = .starting
    } else if seen.rate > 0 {
      state = .playing
    } else if let duration, seen.position >= duration - 0.05 {
      state = .ended
    } else {
      state = .paused
    }
    return PlayerSnapshot(
      item: seen.item, title: item?.title, duration: duration, position: seen.position,
      rate: seen.rate, state: state, isBusy: seen.isBusy,
      subtitle: item?.subtitles?.line(at: seen.position),
      frame: TestPattern.frame(at: seen.position), problem: seen.problem)
  }
}
