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

  public init(
    sequence: UInt64 = 0, participants: [Participant] = [], session: WatchSession? = nil,
    lastChange: ChangeEvent? = nil, sessionCounter: UInt64 = 0, control: RoomControl = .init()
  ) {
    self.sequence = sequence
    self.participants = participants
    self.session = session
    self.lastChange = lastChange
    self.sessionCounter = sessionCounter
    self.control = control
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
