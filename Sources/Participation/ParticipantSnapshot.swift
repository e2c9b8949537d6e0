import PlaybackCoordination

/// Everything a participant knows at one instant, for fronts and `status`.
public struct ParticipantSnapshot: Sendable {
  public var participant: ParticipantID?
  public var room: String
  public var name: String
  public var connection: ConnectionStatus
  public var phase: SessionPhase
  public var state: GroupState
  public var clock: ClockOffsetEstimate?
  public var player: PlayerObservation?
  public var localTime: LocalInstant
  /// The group time now, by this participant's estimate.
  public var groupTime: GroupInstant?
  /// Where the group is now, by this participant's estimate.
  public var groupPosition: Double?
  /// Where this participant asked the group to be, while the relay has not answered yet
  /// (fronts show it at once, so that a key press is seen before the round-trip).
  public var requestedPosition: Double?
  /// The rate this participant asked for, while the relay has not answered yet.
  public var requestedRate: Double?
  /// Requests sent and not yet answered by the relay.
  public var unansweredRequests: Int
  /// Whether this participant's messages travel sealed with the room's password (fronts
  /// show a lock).
  public var messagesSealed: Bool = false
  /// The rates the relay allows, once welcomed (its engine configuration).
  public var allowedRates: ClosedRange<Double>?
  /// The suspension reasons the group waits for (the relay's waiting policy).
  public var waitingReasons: Set<SuspensionReason>?
}
