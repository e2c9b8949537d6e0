/// Why the group holds for a participant.
public enum WaitCause: Hashable, Sendable, CustomStringConvertible {
  /// Offered the session when it started, and not yet answered: the first start holds so
  /// that those in the room begin together instead of coming in mid-scene.
  case answering
  case loading
  case stalled
  case suspended(SuspensionReason)

  public var description: String {
    switch self {
    case .answering: "answering"
    case .loading: "loading"
    case .stalled: "stalled"
    case .suspended(let r): "suspended: \(r)"
    }
  }
}

/// The group is holding for ``participant`` because of ``cause`` since ``since``; at
/// ``deadline`` it gives up and goes on without them. Every wait has a deadline.
public struct GroupWait: Hashable, Sendable {
  public var participant: ParticipantID
  public var cause: WaitCause
  public var since: GroupInstant
  public var deadline: GroupInstant

  public init(
    participant: ParticipantID, cause: WaitCause, since: GroupInstant, deadline: GroupInstant
  ) {
    self.participant = participant
    self.cause = cause
    self.since = since
    self.deadline = deadline
  }
}
