/// Whether a participant's player can follow the group right now.
public enum Readiness: String, Hashable, Sendable, CaseIterable {
  case ready
  /// Loading an item for the first time (first-load timeout applies).
  case loading
  /// Re-buffering during playback (re-buffer timeout applies).
  case stalled
}

/// One participant as every replica of the group state sees it.
public struct Participant: Hashable, Sendable, Identifiable {
  public var id: ParticipantID
  public var name: String
  /// Joined the watch session (as opposed to only being in the room, i.e. eligible).
  public var isJoined: Bool
  public var readiness: Readiness
  /// Active suspensions, oldest first; empty when following the group.
  public var suspensions: [SuspensionReason]
  public var autoAdvance: Bool
  /// False while the relay has lost its connection and waits for it to come back.
  public var isConnected: Bool
  /// Last reported round-trip to the relay, seconds.
  public var roundTrip: Double
  /// Last reported player start-up latency, seconds.
  public var startupLatency: Double
  /// Last reported gap between this participant's player and the group, seconds
  /// (positive = ahead). Nil until reported.
  public var playerOffset: Double?
  /// The program this participant uses (a Syncplay client through the relay's bridge).
  public var origin: ParticipantOrigin
  /// How far this person's player runs ahead of the group on purpose, seconds (negative:
  /// behind): for sound that reaches the ear late (Bluetooth) or a file with another
  /// intro. Shown to the others; not a gap to correct, nor sync error.
  public var personalOffset: Double
  /// The largest personal offset either way, seconds.
  public static let maximumPersonalOffset = 10.0
  /// The public half of the key others seal private messages to this participant with
  /// (X25519, 64 lower-case hex digits), as it announced it; nil until it did. In the
  /// state, so that it is bound to the member (only its own command sets it) and reaches
  /// late joiners with everything else.
  public var sealingKey: String?
  /// Whose copy of the item this participant's player reads (another member lends it,
  /// see the lending guide); nil: its own, or none. In the state so that everyone sees
  /// who watches from whose copy, and so that a wait for this participant can say where
  /// it loads from ("loading from ann's copy"). Set by the participant itself, cleared
  /// when the lender leaves the room.
  public var lender: ParticipantID?
  /// Said "I'm ready" to watch (a ready check's answer, or on their own at any time);
  /// pausing takes it back, playing gives it. Not the player's ``readiness``: this is the
  /// person's.
  public var readyToWatch: Bool

  /// Whether `key` has the form of a sealing key: 64 lower-case hex digits.
  public static func isSealingKey(_ key: String) -> Bool {
    key.utf8.count == 64
      && key.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
  }

  public init(
    id: ParticipantID, name: String, isJoined: Bool = false, readiness: Readiness = .ready,
    suspensions: [SuspensionReason] = [], autoAdvance: Bool = false, isConnected: Bool = true,
    roundTrip: Double = 0, startupLatency: Double = 0, playerOffset: Double? = nil,
    origin: ParticipantOrigin = .cowatch, personalOffset: Double = 0, sealingKey: String? = nil,
    lender: ParticipantID? = nil, readyToWatch: Bool = false
  ) {
    self.readyToWatch = readyToWatch
    self.lender = lender
    self.sealingKey = sealingKey
    self.origin = origin
    self.personalOffset = personalOffset
    self.id = id
    self.name = name
    self.isJoined = isJoined
    self.readiness = readiness
    self.suspensions = suspensions
    self.autoAdvance = autoAdvance
    self.isConnected = isConnected
    self.roundTrip = roundTrip
    self.startupLatency = startupLatency
    self.playerOffset = playerOffset
  }

  public var isSuspended: Bool { !suspensions.isEmpty }
}
