import PlaybackCoordination

/// A room as a ``RoomStore`` keeps it: enough to bring it back after the relay that ran it
/// stopped, with the same state, sequence, members and pending messages.
///
/// Connections are not part of it: a restored room has every member away, keeping its place
/// for the reconnect grace, as after a network cut.
public struct StoredRoom: Sendable, Hashable, Codable {
  public var name: String
  /// The engine's whole state, its sequence number included.
  public var state: GroupState
  /// The number the next new member's id takes (`p1`, `p2`, …), so that ids are never reused.
  public var nextNumber: UInt64
  public var members: [StoredMember]
  /// The password verifier, for a room that has one.
  public var protection: RoomProtection?
  /// Which of the room's successive relays this copy is from: 1 where it was created, one
  /// more each time a successor carries it on. A relay follows another's claim to run its
  /// room only at a higher term.
  public var term: UInt64
  /// The room's recent conversation (chat and reactions to everyone, sealed or not) that a
  /// new member is sent once, oldest first; bounded by the relay that keeps it.
  public var backlog: [StoredMessage]

  public init(
    name: String, state: GroupState, nextNumber: UInt64, members: [StoredMember],
    protection: RoomProtection? = nil, term: UInt64 = 1, backlog: [StoredMessage] = []
  ) {
    self.term = term
    self.backlog = backlog
    self.name = name
    self.state = state
    self.nextNumber = nextNumber
    self.members = members
    self.protection = protection
  }

  private enum CodingKeys: String, CodingKey {
    case name, state, nextNumber, members, protection, term, backlog
  }

  /// Payloads a backlog may hold on the way in, at most: whatever the relay's bounds, a
  /// peer (a store row, a feed) cannot make it hold more.
  public static let maximumBacklogCount = 256

  /// A backlog as stored or fed, refused when it holds more than
  /// ``maximumBacklogCount`` payloads.
  static func decodeBacklog<Key: CodingKey>(
    _ c: KeyedDecodingContainer<Key>, forKey key: Key
  ) throws -> [StoredMessage]? {
    guard let backlog = try c.decodeIfPresent([StoredMessage].self, forKey: key) else {
      return nil
    }
    guard backlog.count <= maximumBacklogCount else {
      throw DecodingError.dataCorruptedError(
        forKey: key, in: c, debugDescription: "a backlog of at most \(maximumBacklogCount) messages"
      )
    }
    return backlog
  }

  /// A room stored before terms has none: term 1.
  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    self.init(
      name: try c.decode(String.self, forKey: .name),
      state: try c.decode(GroupState.self, forKey: .state),
      nextNumber: try c.decode(UInt64.self, forKey: .nextNumber),
      members: try c.decode([StoredMember].self, forKey: .members),
      protection: try c.decodeIfPresent(RoomProtection.self, forKey: .protection),
      term: try c.decodeIfPresent(UInt64.self, forKey: .term) ?? 1,
      backlog: try Self.decodeBacklog(c, forKey: .backlog) ?? [])
  }
}
