import PlaybackCoordination

/// This participant's copy of the room: the relay's steps replayed on an engine of its
/// own (so that an update costs a step, not the whole state), the whole state taken when a
/// step does not fit, and where this participant stands with the watch session.
struct RoomReplica: Sendable {
  private(set) var state = GroupState()
  private var engine: GroupEngine?
  /// A step did not fit; the whole state was asked for, and steps wait for it.
  private var resyncing = false
  private(set) var phase: SessionPhase = .none

  /// The room's rules, as the relay's welcome gave them.
  var configuration: EngineConfiguration? { engine?.configuration }

  /// What a step from the relay does to the copy.
  enum StepOutcome: Sendable {
    case applied(GroupState, events: [ChangeEvent])
    /// Missed or diverged: ask the relay for the whole state.
    case resync
    /// Waiting for the whole state already (or not welcomed yet).
    case ignored
  }

  /// A welcome: the room's rules and state start the copy afresh.
  mutating func welcomed(configuration: EngineConfiguration, state: GroupState) {
    engine = GroupEngine(configuration: configuration, state: state)
    resyncing = false
  }

  /// The whole state, from the relay; steps apply on top of it again.
  mutating func replace(with newState: GroupState) {
    if let configuration = engine?.configuration {
      engine = GroupEngine(configuration: configuration, state: newState)
    }
    resyncing = false
  }

  mutating func replay(_ step: SequencedStep) -> StepOutcome {
    guard var engine, !resyncing else { return .ignored }
    guard let events = engine.replay(step) else {
      resyncing = true
      return .resync
    }
    self.engine = engine
    return .applied(engine.state, events: events)
  }

  /// Takes `newState` as the room's, and returns the phases this participant passes
  /// through because of it, in order. `lost`: why a session it was in is gone when no
  /// change says so.
  mutating func adopt(
    _ newState: GroupState, events: [ChangeEvent], as participant: ParticipantID?,
    lost: InvalidationReason
  ) -> [SessionPhase] {
    state = newState
    guard let participant else { return [] }
    let next: SessionPhase
    if let session = state.session {
      let joined = state.participant(participant)?.isJoined == true
      next = joined ? .joined(sessionID: session.id) : .waiting(sessionID: session.id)
    } else if case .joined = phase {
      let ender = events.last { if case .sessionEnded = $0.kind { true } else { false } }
      next = .invalidated(ender.map { .ended(by: $0.originatorName) } ?? lost)
    } else if case .invalidated = phase {
      next = phase
    } else {
      next = .none
    }
    var phases: [SessionPhase] = []
    if case .joined = phase, case .waiting = next { phases.append(.invalidated(lost)) }
    if next != phase { phases.append(next) }
    if let last = phases.last { phase = last }
    return phases
  }

  /// The participant stops: a session it was in ends for it, for `reason`.
  mutating func stopped(_ reason: InvalidationReason) -> SessionPhase? {
    guard case .joined = phase else { return nil }
    phase = .invalidated(reason)
    return phase
  }
}
