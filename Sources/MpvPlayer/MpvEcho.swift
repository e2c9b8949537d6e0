import PlaybackCoordination

/// Tells the driver's own changes to mpv's `pause` and `speed`, reported back by mpv, from
/// the person's (a key pressed in mpv itself): what mpv was last told, and the changes it
/// has yet to report, with when they were asked (a report more than a second late is not
/// waited for).
struct MpvEcho: Sendable {
  /// What mpv's `pause` and `speed` are, as far as the driver knows: last told or reported.
  private(set) var pause = true
  private(set) var speed = 1.0
  private var expectedPause: [(value: Bool, at: LocalInstant)] = []
  private var expectedSpeed: [(value: Double, at: LocalInstant)] = []

  /// The driver sends `command` at `now`: a change of `pause` or `speed` will come back.
  mutating func sending(_ command: MpvCommand, at now: LocalInstant) {
    switch command {
    case .setPause(let value) where value != pause:
      pause = value
      expectedPause.append((value, now))
    case .setSpeed(let value) where value != speed:
      speed = value
      expectedSpeed.append((value, now))
    default:
      break
    }
  }

  /// mpv reports `pause` = `value`: true when it is the person's change (then taken as
  /// what mpv is), false for the driver's own coming back or no change at all. Without
  /// an item (`playing` false) nothing the person does counts.
  mutating func isPersonsPause(_ value: Bool, at now: LocalInstant, playing: Bool) -> Bool {
    expectedPause.removeAll { now.seconds(since: $0.at) > 1 }
    if let first = expectedPause.first, first.value == value {
      expectedPause.removeFirst()
      return false
    }
    guard value != pause, playing else { return false }
    pause = value
    return true
  }

  /// mpv reports `speed` = `value` (to six decimals): true when it is the person's change.
  mutating func isPersonsSpeed(_ value: Double, at now: LocalInstant, playing: Bool) -> Bool {
    expectedSpeed.removeAll { now.seconds(since: $0.at) > 1 }
    if let index = expectedSpeed.firstIndex(where: { abs($0.value - value) < 1e-5 }) {
      expectedSpeed.removeFirst(index + 1)
      return false
    }
    guard abs(value - speed) > 1e-5, playing else { return false }
    speed = value
    return true
  }
}
