import Lending
import LinkConsent
import PlaybackCoordination
import Synchronization

/// A player that plays what this machine lacks from a copy another member lends
/// (``ItemLending``): the group's `load` of such an item is held back while the room is
/// asked and the lent copy opened, the player still loading meanwhile (so the group waits
/// for it as for any first load, and the others read whose copy it loads from). Once the
/// copy is open the load goes on — from the loopback address the player reads the copy
/// at — with the commands that came meanwhile. When nobody lends it, the player reports
/// why as its problem, and the participant steps away saying so instead of holding the
/// group.
public final class BorrowingPlayer: PlayerDriver {
  public let player: any PlayerDriver
  public let lending: ItemLending

  private let held = Mutex<HeldLoad?>(nil)

  public init(_ player: any PlayerDriver, lending: ItemLending) {
    self.player = player
    self.lending = lending
    lending.whenOpened { [weak self] item, now in self?.opened(item, at: now) }
  }

  public func perform(_ command: PlayerCommand, at now: LocalInstant) {
    switch command {
    case .load(let item, let at) where !lending.hasOwn(item) && !LinkItem.isLink(item):
      if lending.borrowedURL(item) != nil {
        held.withLock { $0 = nil }
        player.perform(command, at: now)
      } else {
        held.withLock { $0 = HeldLoad(item: item, at: at) }
        player.perform(.unload, at: now)
        lending.need(item)
      }
    case .load, .unload:
      held.withLock { $0 = nil }
      player.perform(command, at: now)
    default:
      if !held.withLock({ HeldLoad.keep(command, in: &$0) }) { player.perform(command, at: now) }
    }
  }

  /// The copy of `item` is open: the load held back goes on.
  private func opened(_ item: ItemID, at now: LocalInstant) {
    let resumed = held.withLock { held -> HeldLoad? in
      guard let waiting = held, waiting.item == item else { return nil }
      held = nil
      return waiting
    }
    guard let resumed else { return }
    player.perform(.load(item: item, at: resumed.at), at: now)
    for command in resumed.after { player.perform(command, at: now) }
  }

  public func observe(at now: LocalInstant) -> PlayerObservation {
    guard let waiting = held.withLock({ $0 }) else { return player.observe(at: now) }
    guard case .unavailable(let reason) = lending.status(waiting.item) else {
      // Asking the room, or opening a copy: still loading.
      return PlayerObservation(item: nil, position: 0, rate: 0)
    }
    let why = "stepping away until the group plays something you have (\(reason))"
    return PlayerObservation(
      item: nil, position: 0, rate: 0, problem: PlayerObservation.borrowing(why))
  }

  public func takeUserActions() -> [PlayerUserAction] { player.takeUserActions() }
}
