import Media
import PlaybackCoordination
import TerminalFront

/// The clocks and the local player at the instant an input is handled. The runner reads
/// them before every input; tests make them up. Passing them in keeps the reducer free of
/// clock reads and of the player object, so every screen it produces is reproducible.
public struct FrontMoment: Hashable, Sendable {
  /// The group time by this participant's estimate; nil before the first clock sample.
  public var groupTime: GroupInstant?
  /// This machine's monotonic time, the player's clock.
  public var localTime: LocalInstant
  /// What the local player shows.
  public var player: Media.PlayerSnapshot
  /// Messages in this room are sealed with its password.
  public var messagesSealed: Bool
  /// The rates the relay allows, once known.
  public var allowedRates: ClosedRange<Double>?
  /// The suspension reasons the group waits for, once known.
  public var waitingReasons: Set<SuspensionReason>?
  /// The local player (mpv) has quit and can be started again.
  public var playerGone = false
  /// The terminal's size (nil: not known, as in tests that do not care).
  public var screen: TerminalSize?

  public init(
    groupTime: GroupInstant?, localTime: LocalInstant, player: Media.PlayerSnapshot,
    messagesSealed: Bool = false, allowedRates: ClosedRange<Double>? = nil,
    waitingReasons: Set<SuspensionReason>? = nil, playerGone: Bool = false,
    screen: TerminalSize? = nil
  ) {
    self.screen = screen
    self.playerGone = playerGone
    self.waitingReasons = waitingReasons
    self.allowedRates = allowedRates
    self.groupTime = groupTime
    self.localTime = localTime
    self.player = player
    self.messagesSealed = messagesSealed
  }
}
