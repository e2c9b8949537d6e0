/// The group's state machine: the single source of truth the relay runs for each room,
/// and that any replica can run to reproduce the same state from the same sequenced
/// commands.
///
/// Pure: it never reads a clock. Every call takes the group time at which it happens, and
/// ``nextDeadline`` tells the caller when to call ``tick(at:)`` (wait timeouts, items
/// reaching their end).
public struct GroupEngine: Sendable {
  public private(set) var state: GroupState
  public let configuration: EngineConfiguration

  public init(configuration: EngineConfiguration = .init(), state: GroupState = .init()) {
    self.configuration = configuration
    self.state = state
  }

  /// Applies `command` from `participant` at group time `now`.
  ///
  /// Returns the changes it made (usually one; a play may also start a wait, etc.), each
  /// with the next sequence number, or the rejection, in which case nothing changed.
  public mutating func apply(
    _ command: GroupCommand, from participant: ParticipantID, at now: GroupInstant
  ) -> Result<[ChangeEvent], Rejection> {
    fatalError("implemented by the engine work")
  }

  /// Advances time-driven rules to `now`: timed-out waits, an item reaching its end
  /// (auto-advance or stop). Returns the changes made, possibly none.
  public mutating func tick(at now: GroupInstant) -> [ChangeEvent] {
    fatalError("implemented by the engine work")
  }

  /// The earliest group time at which ``tick(at:)`` would change something, if any.
  public func nextDeadline() -> GroupInstant? {
    fatalError("implemented by the engine work")
  }
}
