/// How to start a player again after it quit or crashed (mpv), for the actions and the
/// offer that headless mode and the front make.
public struct PlayerRestart: Sendable {
  /// Whether the player has gone and a restart would help.
  public var isNeeded: @Sendable () -> Bool
  /// Starts it again: nil once it runs, or why it could not.
  public var run: @Sendable () async -> String?

  public init(
    isNeeded: @escaping @Sendable () -> Bool, run: @escaping @Sendable () async -> String?
  ) {
    self.isNeeded = isNeeded
    self.run = run
  }
}
