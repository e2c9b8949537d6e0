import Clocks
import Logging
import PlaybackCoordination
import Synchronization

/// An mpv that can be started again after it quit or crashed, as one ``PlayerDriver``.
///
/// When mpv goes, the participant steps away with the reason (the group does not wait);
/// ``restart()`` starts a fresh mpv with the same options, which shows nothing at first:
/// the participant's core sees the problem gone, loads the group's item into it at the
/// group's position, and comes back.
public final class RestartableMpvPlayer: PlayerDriver {
  private let current: Mutex<MpvPlayer>
  private let relaunch: @Sendable () async throws(MpvError) -> MpvPlayer

  private init(
    _ player: MpvPlayer, relaunch: @escaping @Sendable () async throws(MpvError) -> MpvPlayer
  ) {
    current = Mutex(player)
    self.relaunch = relaunch
  }

  /// Starts mpv as ``MpvPlayer/launch(executable:arguments:resolver:clock:logger:timeout:configuration:)``
  /// does, remembering how, for ``restart()``.
  public static func launch(
    executable: String = "mpv", arguments: [String] = [],
    resolver: @escaping @Sendable (ItemID) -> String?,
    fileOptions: @escaping @Sendable (ItemID) -> MpvFileOptions = { _ in .init() },
    extractor: @escaping @Sendable (String) -> Bool = { _ in false },
    clock: any SessionClock = MonotonicClock(),
    logger: Logger = Logger(label: "cowatch.mpv"), videoTerminal: String? = nil
  ) async throws(MpvError) -> RestartableMpvPlayer {
    let start: @Sendable () async throws(MpvError) -> MpvPlayer = { () async throws(MpvError) in
      try await MpvPlayer.launch(
        executable: executable, arguments: arguments, resolver: resolver, fileOptions: fileOptions,
        extractor: extractor,
        clock: clock,
        logger: logger, videoTerminal: videoTerminal)
    }
    return RestartableMpvPlayer(try await start(), relaunch: start)
  }

  /// The mpv in use now.
  public var player: MpvPlayer { current.withLock { $0 } }

  /// Whether mpv has gone (quit, crashed, lost its socket): then ``restart()`` helps.
  public var hasQuit: Bool { !player.isRunning }

  /// Starts a fresh mpv in place of one that has gone; does nothing while mpv runs.
  public func restart() async throws(MpvError) {
    guard hasQuit else { return }
    let fresh = try await relaunch()
    let old = current.withLock { player in
      defer { player = fresh }
      return player
    }
    await old.stop()
  }

  public func stop() async { await player.stop() }

  /// Shows `text` on the current mpv's on-screen display (see ``MpvPlayer/showText(_:seconds:)``).
  public func showText(_ text: String, seconds: Double) {
    player.showText(text, seconds: seconds)
  }

  // MARK: - PlayerDriver

  public func perform(_ command: PlayerCommand, at now: LocalInstant) {
    player.perform(command, at: now)
  }

  public func observe(at now: LocalInstant) -> PlayerObservation { player.observe(at: now) }

  public func takeUserActions() -> [PlayerUserAction] { player.takeUserActions() }
}
