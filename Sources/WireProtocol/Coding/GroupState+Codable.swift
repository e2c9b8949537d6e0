import PlaybackCoordination

/// Wire format: an object with every stored property by name; `session` and
/// `lastChange` are omitted when absent. `control` is
/// `{"owner":"p1","locked":false,"playback":"everyone"}` (`owner` omitted in an empty room,
/// `startWhenAllReady` and `kept` while false);
/// read as an open room owned by nobody when absent (rooms stored before protocol 4).
/// `queue` and `queueCounter` are omitted while nothing was ever queued (and read as such
/// when absent: rooms stored before protocol 10).
///
/// Written by hand, not synthesized, so that the format is a decision that a Swift
/// refactor cannot change by accident; see docs/PROTOCOL.md.
extension GroupState: Codable {
  private enum CodingKeys: String, CodingKey {
    case sequence, participants, session, lastChange, sessionCounter, control, queue
    case queueCounter
  }

  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    let sequence = try c.decode(UInt64.self, forKey: .sequence)
    let participants = try c.decode([Participant].self, forKey: .participants)
    let session = try c.decodeIfPresent(WatchSession.self, forKey: .session)
    let lastChange = try c.decodeIfPresent(ChangeEvent.self, forKey: .lastChange)
    let sessionCounter = try c.decode(UInt64.self, forKey: .sessionCounter)
    let control = try c.decodeIfPresent(RoomControl.self, forKey: .control) ?? RoomControl()
    let queue = try c.decodeIfPresent([QueueEntry].self, forKey: .queue) ?? []
    guard queue.count <= GroupState.maximumQueueEntries else {
      throw DecodingError.dataCorruptedError(
        forKey: .queue, in: c,
        debugDescription: "a queue holds at most \(GroupState.maximumQueueEntries) entries")
    }
    let queueCounter = try c.decodeIfPresent(UInt64.self, forKey: .queueCounter) ?? 0
    self.init(
      sequence: sequence, participants: participants, session: session, lastChange: lastChange,
      sessionCounter: sessionCounter, control: control, queue: queue, queueCounter: queueCounter)
  }

  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(sequence, forKey: .sequence)
    try c.encode(participants, forKey: .participants)
    try c.encodeIfPresent(session, forKey: .session)
    try c.encodeIfPresent(lastChange, forKey: .lastChange)
    try c.encode(sessionCounter, forKey: .sessionCounter)
    try c.encode(control, forKey: .control)
    if !queue.isEmpty { try c.encode(queue, forKey: .queue) }
    if queueCounter > 0 { try c.encode(queueCounter, forKey: .queueCounter) }
  }
}

/// Wire format: `{"id":3,"series":{…},"item":"harbour/s1e2","addedBy":"p2","addedByName":"bob"}`.
extension QueueEntry: Codable {
  private enum CodingKeys: String, CodingKey { case id, series, item, addedBy, addedByName }

  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    self.init(
      id: try c.decode(UInt64.self, forKey: .id),
      series: try c.decode(SeriesInfo.self, forKey: .series),
      item: try c.decode(ItemID.self, forKey: .item),
      addedBy: try c.decode(ParticipantID.self, forKey: .addedBy),
      addedByName: try c.decode(String.self, forKey: .addedByName))
  }

  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(id, forKey: .id)
    try c.encode(series, forKey: .series)
    try c.encode(item, forKey: .item)
    try c.encode(addedBy, forKey: .addedBy)
    try c.encode(addedByName, forKey: .addedByName)
  }
}

extension RoomControl: Codable {
  private enum CodingKeys: String, CodingKey {
    case owner, locked, playback, startWhenAllReady, kept
  }

  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    let owner = try c.decodeIfPresent(ParticipantID.self, forKey: .owner)
    let locked = try c.decode(Bool.self, forKey: .locked)
    let playback = try c.decode(PlaybackControl.self, forKey: .playback)
    let startWhenAllReady =
      try c.decodeIfPresent(Bool.self, forKey: .startWhenAllReady) ?? false
    let kept = try c.decodeIfPresent(Bool.self, forKey: .kept) ?? false
    self.init(
      owner: owner, locked: locked, playback: playback, startWhenAllReady: startWhenAllReady,
      kept: kept)
  }

  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encodeIfPresent(owner, forKey: .owner)
    try c.encode(locked, forKey: .locked)
    try c.encode(playback, forKey: .playback)
    if startWhenAllReady { try c.encode(startWhenAllReady, forKey: .startWhenAllReady) }
    if kept { try c.encode(kept, forKey: .kept) }
  }
}
