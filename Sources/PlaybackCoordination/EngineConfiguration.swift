/// Policies of the group engine. Every replica of a room must use the same value.
public struct EngineConfiguration: Hashable, Sendable {
  /// Suspension reasons that make the group wait for the suspended participant (like
  /// `AVPlaybackCoordinator.suspensionReasonsThatTriggerWaiting`). Loading and stalled
  /// readiness always make the group wait, within their own timeouts.
  public var waitingReasons: Set<SuspensionReason>
  /// How long a new session holds for those in the room to answer the offer (join or not
  /// now), seconds. Long enough to read the question, short enough that the one who started
  /// is not left waiting on someone who walked away.
  public var answerTimeout: Double
  /// How long the group waits for a participant's first load of an item, seconds.
  public var firstLoadTimeout: Double
  /// How long the group waits for a re-buffering (stalled) participant, seconds.
  public var rebufferTimeout: Double
  /// How long the group waits for a participant suspended for a waiting reason, seconds.
  public var suspensionWaitTimeout: Double
  /// A coordinated start is scheduled `roundTripFactor × highest round-trip + highest
  /// start-up latency` ahead, clamped to `minimumStartDelay...maximumStartDelay`.
  public var roundTripFactor: Double
  public var minimumStartDelay: Double
  public var maximumStartDelay: Double
  public var allowedRates: ClosedRange<Double>
  /// An `advance(endedItem:)` is accepted only once the group is within this many
  /// seconds of the item's end (players end a little apart).
  public var endTolerance: Double
  /// How long a ready check's countdown runs before the group starts, seconds: long enough
  /// to read "3… 2… 1…" and put the phone down.
  public var readyCountdown: Double
  /// How long a ready check waits for answers before it lapses, seconds.
  public var readyCheckTimeout: Double

  public init(
    waitingReasons: Set<SuspensionReason> = [.stallRecovery],
    answerTimeout: Double = 30,
    firstLoadTimeout: Double = 60,
    rebufferTimeout: Double = 10,
    suspensionWaitTimeout: Double = 10,
    roundTripFactor: Double = 2,
    minimumStartDelay: Double = 0.1,
    maximumStartDelay: Double = 3,
    allowedRates: ClosedRange<Double> = 0.25...4,
    endTolerance: Double = 3,
    readyCountdown: Double = 3,
    readyCheckTimeout: Double = 120
  ) {
    self.readyCountdown = readyCountdown
    self.readyCheckTimeout = readyCheckTimeout
    self.waitingReasons = waitingReasons
    self.answerTimeout = answerTimeout
    self.firstLoadTimeout = firstLoadTimeout
    self.rebufferTimeout = rebufferTimeout
    self.suspensionWaitTimeout = suspensionWaitTimeout
    self.roundTripFactor = roundTripFactor
    self.minimumStartDelay = minimumStartDelay
    self.maximumStartDelay = maximumStartDelay
    self.allowedRates = allowedRates
    self.endTolerance = endTolerance
  }
}
