/// Thresholds of the participant-side coordinator's drift correction.
public struct SyncConfiguration: Hashable, Sendable, Codable {
  /// Gaps smaller than this are left alone, seconds.
  public var tolerance: Double
  /// Gaps at or above this are fixed with a seek; between `tolerance` and this the
  /// player's rate is nudged, seconds.
  public var seekThreshold: Double
  /// The most the rate is nudged, as a fraction (0.1 = ±10 %).
  public var maximumNudge: Double
  /// Aim to close a nudged gap over this many seconds.
  public var nudgeHorizon: Double

  public init(
    tolerance: Double = 0.004, seekThreshold: Double = 0.4, maximumNudge: Double = 0.1,
    nudgeHorizon: Double = 1
  ) {
    self.tolerance = tolerance
    self.seekThreshold = seekThreshold
    self.maximumNudge = maximumNudge
    self.nudgeHorizon = nudgeHorizon
  }
}

/// The participant-side coordinator (AVDelegatingPlaybackCoordinator's role): turns the
/// group state into commands for this participant's player and keeps a drifting player in
/// sync. Pure: the caller passes local time, the clock estimate and what the player shows.
public struct PlaybackCoordinator: Sendable {
  public let participant: ParticipantID
  public let configuration: SyncConfiguration

  public init(participant: ParticipantID, configuration: SyncConfiguration = .init()) {
    self.participant = participant
    self.configuration = configuration
    fatalError("implemented by the engine work")
  }

  /// Adopts a new group state (any change, or the full state on join/reconnect).
  public mutating func adopt(
    _ state: GroupState, at now: LocalInstant, clock: ClockOffsetEstimate
  ) -> [PlayerCommand] {
    fatalError("implemented by the engine work")
  }

  /// Called periodically (e.g. every 100 ms) with what the player shows: nudges or seeks
  /// the player back to the group timeline.
  public mutating func correct(
    _ observation: PlayerObservation, at now: LocalInstant, clock: ClockOffsetEstimate
  ) -> [PlayerCommand] {
    fatalError("implemented by the engine work")
  }

  /// The player's last measured gap to the group (positive = ahead), seconds.
  public var lastGap: Double? { fatalError("implemented by the engine work") }
}
