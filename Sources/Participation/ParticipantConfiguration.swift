import PlaybackCoordination
import WireProtocol

/// Settings of a participant.
public struct ParticipantConfiguration: Sendable, Hashable {
  public var name: String
  /// The epoch of the relay this machine runs (a host's, or the participant's own relay,
  /// ready to carry the room): `runsRelay`, and that relay's key, are said to that relay
  /// only, never to another one the participant ends up on (its own relay gone or
  /// replaced).
  public var ownRelayEpoch: String?
  /// Where this participant's own relay listens, ready to carry the room if its relay goes
  /// (nil: it does not offer; see ``RoomSuccession``), with that relay's key.
  public var carry: CarryOffer?
  public var room: String
  /// How long to wait for the relay's welcome, and for a request's answer, seconds.
  public var answerTimeout: Double
  /// Ping (clock sync and heartbeat) interval once synchronised, seconds.
  public var pingInterval: Double
  /// Ping interval on a jittery link (round-trips spread by more than ``jitterThreshold``),
  /// seconds: the clock filter needs more samples there for the same precision.
  public var jitteryPingInterval: Double
  /// A link whose typical round-trip exceeds its quickest by more than this is jittery,
  /// seconds.
  public var jitterThreshold: Double
  /// Player correction interval, seconds.
  public var correctionInterval: Double
  /// Link/player report interval, seconds.
  public var reportInterval: Double
  /// Reconnection backoff: first delay, cap, and how long to keep trying, seconds.
  public var reconnectInitialDelay: Double
  public var reconnectMaximumDelay: Double
  public var reconnectGiveUpAfter: Double
  /// Requests asked for while disconnected are sent on reconnection if at most this old,
  /// seconds; older ones are settled with the relay instead (applied already, or
  /// reported as not sent) — a pause from a minute ago would yank everyone back.
  public var resendWindow: Double
  /// A relay silent for this long (no pong, nothing) is taken for gone and the
  /// connection is reopened, seconds.
  public var relaySilenceTimeout: Double
  /// Requests waiting for the relay's answer at most; more are refused at once (the
  /// relay remembers a window of recent ids, and this stays well inside it).
  public var maximumUnansweredRequests: Int
  public var sync: SyncConfiguration
  /// Start with auto-advance on.
  public var autoAdvance: Bool
  /// Run this person's player this many seconds ahead of the group (negative: behind):
  /// sound that reaches the ear late (Bluetooth), a file with another intro. Within
  /// ``Participant/maximumPersonalOffset``.
  public var personalOffset: Double = 0
  /// log2 of scrypt's rounds for a room this participant creates with a password (see
  /// ``KeyDerivation``); tests use a cheap one.
  public var keyDerivationCost: Int = KeyDerivation.defaultCost

  public init(
    name: String, room: String = "lobby", answerTimeout: Double = 5, pingInterval: Double = 1,
    jitteryPingInterval: Double = 0.25, jitterThreshold: Double = 0.002,
    correctionInterval: Double = 0.05, reportInterval: Double = 2,
    reconnectInitialDelay: Double = 0.1, reconnectMaximumDelay: Double = 3,
    reconnectGiveUpAfter: Double = 60, resendWindow: Double = 10,
    relaySilenceTimeout: Double = 10, maximumUnansweredRequests: Int = 256,
    sync: SyncConfiguration = .init(), autoAdvance: Bool = false, carry: CarryOffer? = nil
  ) {
    self.carry = carry
    self.name = name
    self.room = room
    self.answerTimeout = answerTimeout
    self.pingInterval = pingInterval
    self.jitteryPingInterval = jitteryPingInterval
    self.jitterThreshold = jitterThreshold
    self.correctionInterval = correctionInterval
    self.reportInterval = reportInterval
    self.reconnectInitialDelay = reconnectInitialDelay
    self.reconnectMaximumDelay = reconnectMaximumDelay
    self.reconnectGiveUpAfter = reconnectGiveUpAfter
    self.resendWindow = resendWindow
    self.relaySilenceTimeout = relaySilenceTimeout
    self.maximumUnansweredRequests = maximumUnansweredRequests
    self.sync = sync
    self.autoAdvance = autoAdvance
  }
}
