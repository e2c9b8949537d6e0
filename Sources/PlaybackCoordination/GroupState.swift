/// The whole state of one room: who is there, and the watch session if any. This is what
/// the relay sequences and what every participant (and late joiner) receives.
public struct GroupState: Hashable, Sendable {
  /// Increases by one with every applied change.
  public var sequence: UInt64
  /// Everyone in the room, in order of arrival.
  public var participants: [Participant]
  public var session: WatchSession?
  /// The last applied change other than a report, with its originator.
  public var lastChange: ChangeEvent?
  /// How many sessions have been started in this room (next session id).
  public var sessionCounter: UInt64
  /// The owner, the lock and who controls playback.
  public var control: RoomControl
  /// What the group watches next, in order: auto-advance takes the first entry before the
  /// next episode.
  public var queue: [QueueEntry]
  /// How many entries have ever been added (the next entry's number).
  public var queueCounter: UInt64

  /// The most entries the queue holds, and about the most bytes (see
  /// ``QueueEntry/estimatedBytes``): the queue travels in every whole state.
  public static let maximumQueueEntries = 100
  public static let maximumQueueBytes = 256 * 1024

  public init(
    sequence: UInt64 = 0, participants: [Participant] = [], session: WatchSession? = nil,
    lastChange: ChangeEvent? = nil, sessionCounter: UInt64 = 0, control: RoomControl = .init(),
    queue: [QueueEntry] = [], queueCounter: UInt64 = 0
  ) {
    self.sequence = sequence
    self.participants = participants
    self.session = session
    self.lastChange = lastChange
    self.sessionCounter = sessionCounter
    self.control = control
    self.queue = queue
    self.queueCounter = queueCounter
  }

  public func participant(_ id: ParticipantID) -> Participant? {
    participants.first { $0.id == id }
  }

  /// The owner, while in the room.
  public var owner: Participant? { control.owner.flatMap(participant) }

  public var joinedParticipants: [Participant] { participants.filter { $0.isJoined } }

  /// Names of the participants the group waits for now, for "waiting for bob, carol".
  public var waitingFor: [String] {
    guard let session else { return [] }
    return session.waits.compactMap { participant($0.participant)?.name }
  }
}
