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

  private struct State: Sendable {
    var held: HeldLoad?
    /// The borrowed item the player plays, and the address it reads it at.
    var loaded: (item: ItemID, url: String)?
    /// The copy changed for another cut (another lender's file, of another size): the
    /// player was emptied, and says so until then, so that the participant loads the item
    /// again, from the new copy, where the group is.
    var reopening: (lender: String, until: LocalInstant)?
  }

  private let state = Mutex(State())

  /// How long a player emptied for another lender's cut says so before it loads again.
  static let reopenNotice = 0.5

  public init(_ player: any PlayerDriver, lending: ItemLending) {
    self.player = player
    self.lending = lending
    lending.whenOpened { [weak self] item, now in self?.opened(item, at: now) }
  }

  public func perform(_ command: PlayerCommand, at now: LocalInstant) {
    switch command {
    case .load(let item, let at) where !lending.hasOwn(item) && !LinkItem.isLink(item):
      if let url = lending.borrowedURL(item) {
        state.withLock { $0 = State(loaded: (item, url)) }
        player.perform(command, at: now)
      } else {
        state.withLock { $0 = State(held: HeldLoad(item: item, at: at)) }
        player.perform(.unload, at: now)
        lending.need(item)
      }
    case .load, .unload:
      state.withLock { $0 = State() }
      player.perform(command, at: now)
    default:
      if !state.withLock({ HeldLoad.keep(command, in: &$0.held) }) {
        player.perform(command, at: now)
      }
    }
  }

  /// The copy of `item` is open: the load held back goes on; or, for an item the player
  /// already plays from a copy that went away, the player is emptied to load it again.
  private func opened(_ item: ItemID, at now: LocalInstant) {
    enum Next {
      case resume(HeldLoad)
      case reopen, nothing
    }
    let url = lending.borrowedURL(item)
    let lender = lending.status(item)?.lenderName ?? "another member"
    let next = state.withLock { s -> Next in
      if let waiting = s.held, waiting.item == item {
        s.held = nil
        s.loaded = url.map { (item, $0) }
        return .resume(waiting)
      }
      guard let loaded = s.loaded, loaded.item == item, let url, url != loaded.url else {
        return .nothing
      }
      s.loaded = nil
      s.reopening = (lender, now.advanced(bySeconds: Self.reopenNotice))
      return .reopen
    }
    switch next {
    case .resume(let resumed):
      player.perform(.load(item: item, at: resumed.at), at: now)
      for command in resumed.after { player.perform(command, at: now) }
    case .reopen:
      player.perform(.unload, at: now)
    case .nothing:
      break
    }
  }

  public func observe(at now: LocalInstant) -> PlayerObservation {
    let s = state.withLock { $0 }
    if let waiting = s.held {
      guard case .unavailable(let reason) = lending.status(waiting.item) else {
        // Asking the room, or opening a copy: still loading.
        return PlayerObservation(item: nil, position: 0, rate: 0)
      }
      return Self.problem("stepping away until the group plays something you have (\(reason))")
    }
    if let reopening = s.reopening, now < reopening.until {
      return Self.problem("moving to \(reopening.lender)'s copy, another cut of it")
    }
    // The copy played went away and nobody else lends it.
    if let loaded = s.loaded, case .unavailable(let reason) = lending.status(loaded.item) {
      return Self.problem("stepping away until the group plays something you have (\(reason))")
    }
    return player.observe(at: now)
  }

  private static func problem(_ why: String) -> PlayerObservation {
    PlayerObservation(item: nil, position: 0, rate: 0, problem: PlayerObservation.borrowing(why))
  }

  public func takeUserActions() -> [PlayerUserAction] { player.takeUserActions() }
}
