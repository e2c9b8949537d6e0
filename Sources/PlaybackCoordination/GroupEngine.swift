/// The group's state machine: the single source of truth the relay runs for each room,
/// and that any replica can run to reproduce the same state from the same sequenced
/// commands.
///
/// Pure: it never reads a clock. Every call takes the group time at which it happens, and
/// ``nextDeadline`` tells the caller when to call ``tick(at:)`` (wait timeouts, items
/// reaching their end). Callers should tick at every deadline that has passed before they
/// apply a later command, so that commands see the group where it really is.
///
/// Rules beyond the playback semantics in README and docs/ARCHITECTURE.md (documented here because replicas must agree on them):
/// - A rejected command changes nothing, not even the sequence number. An accepted command
///   that changes nothing (a readiness or connectivity report repeating the current value, a
///   duplicate suspension) returns no events.
/// - Every event increments ``GroupState/sequence`` by one; ``GroupState/lastChange`` is the
///   last one other than a report.
/// - The group waits for a participant (a ``GroupWait``) only while it means to play, except
///   for first loads at a session start or item switch, which it always waits for. A play
///   from a paused group first waits for every joined participant that is not ready.
/// - A participant suspended for a reason outside ``EngineConfiguration/waitingReasons`` is
///   detached: the group never waits for it. One suspended only for waiting reasons is
///   waited for (cause `.suspended`) while the group means to play.
/// - Late joiners (and participants detached when the item changed) load on their own:
///   ``WatchSession/catchingUp`` lists them until they are ready; the group never waits for
///   their loading.
/// - A participant has at most one wait; when its cause changes (loading → stalled, or a
///   waiting-reason suspension) the wait keeps its deadline, so no wait outlives the first
///   timeout. A timed-out participant is ``WatchSession/excused`` until it is ready again.
/// - ``WatchSession/playbackRate`` is the rate the group plays at; paused groups remember
///   it and a play without a rate resumes at it.
/// - Ready checks (``ReadyCheck``) ask the joined, connected Cowatch participants; the asker
///   counts as ready; asking pauses a playing group. Once all are ready (checked after every
///   command and tick), or the asker or owner starts anyway (also by pressing play), the
///   group starts ``EngineConfiguration/readyCountdown`` ahead (``WatchSession/countdown``).
///   Anyone else's play during a check says ready. A play says ready, a pause takes it back.
///   With ``RoomControl/startWhenAllReady``, a play from a paused group while someone is not
///   ready opens a check instead. An unanswered check lapses at its deadline.
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
    let name: String?
    if case .enter(let newName, _) = command {
      name = state.participant(participant)?.name ?? newName
    } else {
      name = state.participant(participant)?.name
    }
    var transition = GroupTransition(
      state: state, configuration: configuration, now: now, originator: participant,
      originatorName: name)
    do {
      try transition.perform(command, from: participant)
    } catch {
      return .failure(error)
    }
    state = transition.state
    return .success(transition.events)
  }

  /// Advances time-driven rules to `now`: timed-out waits, an item reaching its end
  /// (auto-advance or stop). Returns the changes made, possibly none.
  public mutating func tick(at now: GroupInstant) -> [ChangeEvent] {
    var transition = GroupTransition(
      state: state, configuration: configuration, now: now, originator: nil, originatorName: nil)
    transition.tick()
    state = transition.state
    return transition.events
  }

  /// The earliest group time at which ``tick(at:)`` would change something, if any.
  public func nextDeadline() -> GroupInstant? {
    guard let session = state.session else { return nil }
    var deadline =
      (session.waits.map { $0.deadline } + [session.readyCheck?.deadline].compactMap { $0 }).min()
    if !session.reachedEnd, let end = session.timeline.groupTime(reaching: session.item.duration) {
      deadline = min(deadline ?? end, end)
    }
    return deadline
  }
}
