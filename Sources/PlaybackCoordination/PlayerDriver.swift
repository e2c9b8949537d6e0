/// What the coordinator tells a player to do. Players follow commands, not state, so a
/// simulated player and a real one (e.g. mpv over IPC) can be driven alike.
public enum PlayerCommand: Hashable, Sendable {
  /// Load `item` and get ready at `at` (paused).
  case load(item: ItemID, at: Double)
  /// Be playing, showing `itemTime` at local time `startAt`, at `rate`. A player prerolls
  /// so that it starts on time when `startAt` is far enough ahead; if `startAt` is already
  /// past it starts at once at `itemTime + rate × (now − startAt)`. A playing player keeps
  /// showing what it plays until `startAt` and switches then (a seek while playing
  /// happens at one instant for everyone); one already on the new line (a rate change)
  /// needs no seek and only changes its rate at `startAt`.
  case play(itemTime: Double, startAt: LocalInstant, rate: Double)
  /// Stop at exactly `at`.
  case pause(at: Double)
  /// Jump to `to`, keeping the current play/pause state and rate.
  case seek(to: Double)
  /// Change the playback rate in place, without a seek (used to nudge small gaps).
  case setRate(Double)
  /// Unload (the session ended or this participant left it).
  case unload
}

/// What a player shows at an instant.
public struct PlayerObservation: Hashable, Sendable {
  public var item: ItemID?
  public var position: Double
  /// The rate the player is actually advancing at now (0 if paused, stalled or busy).
  public var rate: Double
  /// Loading, seeking or prerolling: the position is not yet meaningful for drift.
  public var isBusy: Bool
  public var isStalled: Bool
  /// When the player was done preparing (seeking, prerolling) for its latest `play` or
  /// `seek`, once it is; nil while it still prepares or if it cannot tell. The
  /// coordinator learns the player's seek latency from it even when the start it
  /// prepared for was far enough ahead to hide that latency.
  public var preparedAt: LocalInstant?
  /// Why the player cannot follow the group at all (its program quit, the file is
  /// missing), in words for people; nil while it can. The participant then steps away
  /// with that reason instead of holding the group.
  public var problem: String?
  /// How long the file the player loaded for `item` is, when it plays files of its own
  /// (mpv): a friend's copy can differ from the group's, and then near its end the two part.
  public var fileDuration: Double?

  public init(
    item: ItemID?, position: Double, rate: Double, isBusy: Bool = false, isStalled: Bool = false,
    preparedAt: LocalInstant? = nil, problem: String? = nil, fileDuration: Double? = nil
  ) {
    self.fileDuration = fileDuration
    self.item = item
    self.position = position
    self.rate = rate
    self.isBusy = isBusy
    self.isStalled = isStalled
    self.preparedAt = preparedAt
    self.problem = problem
  }

  /// The problem a player reports when it has no file for an item: the participant then
  /// says which one, by its title and duration, rather than by its id.
  public static func noFile(for item: ItemID) -> String { "no file for \(item.rawValue)" }

  /// The problem a player reports when it holds a link back because its person did not
  /// allow it (yet), `why` in words: the participant says so as the person's choice, not
  /// as a player that is broken.
  public static func heldLink(_ why: String) -> String { heldLinkMark + why }

  /// The words of a ``heldLink(_:)`` problem, or nil for any other problem.
  public static func heldLinkReason(_ problem: String) -> String? {
    problem.hasPrefix(heldLinkMark) ? String(problem.dropFirst(heldLinkMark.count)) : nil
  }

  private static let heldLinkMark = "link held: "

  /// The problem a player reports while it has no copy of an item and none is lent to it
  /// yet (or nobody lends it), `why` in words: the participant steps away saying so, and
  /// comes back once a lent copy is open.
  public static func borrowing(_ why: String) -> String { borrowingMark + why }

  /// The words of a ``borrowing(_:)`` problem, or nil for any other problem.
  public static func borrowingReason(_ problem: String) -> String? {
    problem.hasPrefix(borrowingMark) ? String(problem.dropFirst(borrowingMark.count)) : nil
  }

  private static let borrowingMark = "borrowing: "
}

/// What a person did in the player's own interface (mpv's window or keys), to become a
/// group command with them as its originator, as in Syncplay.
public enum PlayerUserAction: Hashable, Sendable {
  case pause(at: Double)
  case play
  case seek(to: Double)
  case rate(Double)
}

/// A player the coordinator can drive. Implementations do I/O or keep their own clock;
/// the caller passes the current local time so the coordinator stays pure.
public protocol PlayerDriver: AnyObject, Sendable {
  func perform(_ command: PlayerCommand, at now: LocalInstant)
  func observe(at now: LocalInstant) -> PlayerObservation
  /// What the person did in the player itself since the last call (each once).
  func takeUserActions() -> [PlayerUserAction]
}

extension PlayerDriver {
  /// Players without an interface of their own have nothing to report.
  public func takeUserActions() -> [PlayerUserAction] { [] }
}
