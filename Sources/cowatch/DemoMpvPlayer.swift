import DemoScript
import Media
import MpvPlayer
import PlaybackCoordination

/// A demo participant's real mpv: driven like any participant's, shown by what it reports,
/// and made to stall on the script's `stall` lines by holding it paused as a player starved
/// of input is (reported as a stall, so the group's waiting policy applies).
final class DemoMpvPlayer: DemoPlayer {
  private let mpv: MpvPlayer
  private let shown: ObservedPlayer

  init(_ mpv: MpvPlayer, catalog: Catalog) {
    self.mpv = mpv
    shown = ObservedPlayer(mpv, catalog: catalog)
  }

  func perform(_ command: PlayerCommand, at now: LocalInstant) { mpv.perform(command, at: now) }
  func observe(at now: LocalInstant) -> PlayerObservation { mpv.observe(at: now) }
  func takeUserActions() -> [PlayerUserAction] { mpv.takeUserActions() }
  func snapshot(at now: LocalInstant) -> PlayerSnapshot { shown.snapshot(at: now) }
  func injectStall(duration: Double, at now: LocalInstant) { mpv.hold(seconds: duration) }
  func stop() async { await mpv.stop() }
}
