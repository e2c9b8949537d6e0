import Media
import PlaybackCoordination

/// A player a demo participant watches with: shown like any player, made to stall on the
/// script's `stall` lines, and stopped when the run ends. The simulated player is the
/// default; `cowatch demo --player mpv` gives real mpv players.
public protocol DemoPlayer: ShowablePlayer {
  /// The script's `stall` line: re-buffer for `duration` seconds, reported as a stall.
  func injectStall(duration: Double, at now: LocalInstant)
  /// Releases what the player holds (a process, a socket).
  func stop() async
}

extension SimulatedPlayer: DemoPlayer {
  public func stop() async {}
}
