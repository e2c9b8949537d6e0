import LinkConsent
import PlaybackCoordination
import Synchronization

/// A player that opens a link only when its person allows it (``LinkGate``): the group's
/// `load` of a link someone else started is held back while the gate looks the host up
/// (shown as loading), asks the person, or refuses; asked or refused, the player reports
/// why as its problem, so the participant steps away saying so instead of holding the
/// group. Once allowed, the player comes back empty and the participant loads the link
/// again (and catches up); after a lookup alone, the commands held back are passed on.
public final class ConsentingPlayer: PlayerDriver {
  public let player: any PlayerDriver
  public let gate: LinkGate

  /// A link's load held back (a lookup is short; asked or refused, the participant is told
  /// and loads again itself).
  private let held = Mutex<HeldLoad?>(nil)

  public init(_ player: any PlayerDriver, gate: LinkGate) {
    self.player = player
    self.gate = gate
  }

  public func perform(_ command: PlayerCommand, at now: LocalInstant) {
    switch command {
    case .load(let item, let at) where LinkItem.isLink(item):
      if case .open = gate.verdict(for: item.rawValue) {
        held.withLock { $0 = nil }
        player.perform(command, at: now)
      } else {
        held.withLock { $0 = HeldLoad(item: item, at: at) }
        player.perform(.unload, at: now)
      }
    case .load, .unload:
      held.withLock { $0 = nil }
      player.perform(command, at: now)
    default:
      if !held.withLock({ HeldLoad.keep(command, in: &$0) }) { player.perform(command, at: now) }
    }
  }

  public func observe(at now: LocalInstant) -> PlayerObservation {
    guard let waiting = held.withLock({ $0 }) else { return player.observe(at: now) }
    let host = LinkItem.host(of: waiting.item.rawValue)
    switch gate.verdict(for: waiting.item.rawValue) {
    case .open:
      held.withLock { $0 = nil }
      if !waiting.toldProblem {
        player.perform(.load(item: waiting.item, at: waiting.at), at: now)
        for command in waiting.after { player.perform(command, at: now) }
      }
      return player.observe(at: now)
    case .checking:
      return PlayerObservation(item: waiting.item, position: waiting.at, rate: 0, isBusy: true)
    case .asking:
      return told(PlayerObservation.heldLink("the link to \(host) waits for your answer"))
    case .refused(let why):
      return told(PlayerObservation.heldLink(why))
    }
  }

  public func takeUserActions() -> [PlayerUserAction] { player.takeUserActions() }

  private func told(_ problem: String) -> PlayerObservation {
    held.withLock { $0?.toldProblem = true }
    return PlayerObservation(item: nil, position: 0, rate: 0, problem: problem)
  }
}
