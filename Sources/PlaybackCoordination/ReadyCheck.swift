/// "Is everyone ready?", asked of the room: the group holds, paused, until everyone present
/// says yes — or the asker starts anyway — and then starts after a countdown everyone sees,
/// so that nobody is still fetching a drink when the film begins (Syncplay's readiness, with
/// the start announced instead of sprung). Part of the session, so that every replica
/// agrees on who is still asked and when the question lapses.
public struct ReadyCheck: Hashable, Sendable {
  public var askedBy: ParticipantID
  /// The asker's name when asking, so that "ann asks…" survives her leaving.
  public var askedByName: String
  public var since: GroupInstant
  /// When the question lapses unanswered: the group stays paused, nobody is held forever
  /// by a prompt.
  public var deadline: GroupInstant

  public init(
    askedBy: ParticipantID, askedByName: String, since: GroupInstant, deadline: GroupInstant
  ) {
    self.askedBy = askedBy
    self.askedByName = askedByName
    self.since = since
    self.deadline = deadline
  }
}

/// How a ready check ended.
public enum ReadyCheckEnd: String, Hashable, Sendable, CaseIterable {
  /// Everyone present said ready: the countdown runs.
  case allReady
  /// The asker (or the owner) did not wait for the rest: the countdown runs.
  case startedAnyway
  /// The asker (or the owner) took the question back; the group stays paused.
  case cancelled
  /// Not everyone answered in time; the group stays paused.
  case timedOut

  /// Whether the group starts (after the countdown).
  public var starts: Bool { self == .allReady || self == .startedAnyway }
}

extension GroupState {
  /// Those a ready check asks: joined, connected, on a Cowatch front (a Syncplay client
  /// through the bridge cannot be asked, so it is not waited for).
  public var askedForReadiness: [Participant] {
    participants.filter { $0.isJoined && $0.isConnected && $0.origin == .cowatch }
  }

  /// Those asked who have not said ready, in room order.
  public var notReadyToWatch: [Participant] { askedForReadiness.filter { !$0.readyToWatch } }
}
