/// One input the relay fed its engine, in order: what every replica replays to reach the
/// same state, so that the relay can broadcast a few bytes instead of the whole room.
public struct SequencedStep: Hashable, Sendable {
  /// The state's sequence number before and after the step.
  public var before: UInt64
  public var after: UInt64
  /// The group time the relay applied it at.
  public var at: GroupInstant
  public var input: StepInput

  public init(before: UInt64, after: UInt64, at: GroupInstant, input: StepInput) {
    self.before = before
    self.after = after
    self.at = at
    self.input = input
  }
}

/// What the relay fed its engine.
public enum StepInput: Hashable, Sendable {
  case command(GroupCommand, from: ParticipantID)
  /// Time-driven rules (a wait timed out, an item ended).
  case tick
}

extension GroupEngine {
  /// Replays a step applied by the relay. Returns its changes, or nil — leaving the state
  /// untouched — if this replica is not where the step starts or does not end where the
  /// relay did (a missed step): the caller then asks for the whole state.
  public mutating func replay(_ step: SequencedStep) -> [ChangeEvent]? {
    guard state.sequence == step.before else { return nil }
    var replica = self
    let events: [ChangeEvent]
    switch step.input {
    case .command(let command, let participant):
      guard case .success(let changes) = replica.apply(command, from: participant, at: step.at)
      else { return nil }
      events = changes
    case .tick:
      events = replica.tick(at: step.at)
    }
    guard replica.state.sequence == step.after else { return nil }
    self = replica
    return events
  }
}
