import PlaybackCoordination

/// Wire format: an object with every stored property by name;
/// `lastPlaybackChange` is omitted when absent, `invited` when empty (so a room stored
/// before version 13 reads as one nobody is asked in), `readyCheck` and `countdown` when
/// absent (`readyCheck` is `{"askedBy":"p1","askedByName":"ann","since":…,"deadline":…}`).
/// The computed `status` is not sent.
///
/// Written by hand, not synthesized, so that the format is a decision that a Swift
/// refactor cannot change by accident; see docs/PROTOCOL.md.
extension WatchSession: Codable {
  private enum CodingKeys: String, CodingKey {
    case id, series, item, timeline, intendedRate, waits, excused, reachedEnd, playbackRate,
      catchingUp, lastPlaybackChange, startedBy, invited, readyCheck, countdown
  }

  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    let id = try c.decode(UInt64.self, forKey: .id)
    let series = try c.decode(SeriesInfo.self, forKey: .series)
    let item = try c.decode(ItemInfo.self, forKey: .item)
    let timeline = try c.decode(Timeline.self, forKey: .timeline)
    let intendedRate = try c.decode(Double.self, forKey: .intendedRate)
    let waits = try c.decode([GroupWait].self, forKey: .waits)
    let excused = try c.decode([ParticipantID].self, forKey: .excused)
    let reachedEnd = try c.decode(Bool.self, forKey: .reachedEnd)
    let playbackRate = try c.decode(Double.self, forKey: .playbackRate)
    let catchingUp = try c.decode([ParticipantID].self, forKey: .catchingUp)
    let lastPlaybackChange = try c.decodeIfPresent(ChangeEvent.self, forKey: .lastPlaybackChange)
    let startedBy = try c.decodeIfPresent(String.self, forKey: .startedBy)
    let invited = try c.decodeIfPresent([ParticipantID].self, forKey: .invited) ?? []
    let readyCheck = try c.decodeIfPresent(ReadyCheck.self, forKey: .readyCheck)
    let countdown = try c.decodeIfPresent(GroupInstant.self, forKey: .countdown)
    self.init(
      id: id, series: series, item: item, timeline: timeline, intendedRate: intendedRate,
      waits: waits, excused: excused, reachedEnd: reachedEnd, playbackRate: playbackRate,
      catchingUp: catchingUp, lastPlaybackChange: lastPlaybackChange, startedBy: startedBy,
      invited: invited, readyCheck: readyCheck, countdown: countdown)
  }

  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(id, forKey: .id)
    try c.encode(series, forKey: .series)
    try c.encode(item, forKey: .item)
    try c.encode(timeline, forKey: .timeline)
    try c.encode(intendedRate, forKey: .intendedRate)
    try c.encode(waits, forKey: .waits)
    try c.encode(excused, forKey: .excused)
    try c.encode(reachedEnd, forKey: .reachedEnd)
    try c.encode(playbackRate, forKey: .playbackRate)
    try c.encode(catchingUp, forKey: .catchingUp)
    try c.encodeIfPresent(lastPlaybackChange, forKey: .lastPlaybackChange)
    try c.encodeIfPresent(startedBy, forKey: .startedBy)
    if !invited.isEmpty { try c.encode(invited, forKey: .invited) }
    try c.encodeIfPresent(readyCheck, forKey: .readyCheck)
    try c.encodeIfPresent(countdown, forKey: .countdown)
  }
}

extension ReadyCheck: Codable {
  private enum CodingKeys: String, CodingKey { case askedBy, askedByName, since, deadline }

  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    self.init(
      askedBy: try c.decode(ParticipantID.self, forKey: .askedBy),
      askedByName: try c.decode(String.self, forKey: .askedByName),
      since: try c.decode(GroupInstant.self, forKey: .since),
      deadline: try c.decode(GroupInstant.self, forKey: .deadline))
  }

  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(askedBy, forKey: .askedBy)
    try c.encode(askedByName, forKey: .askedByName)
    try c.encode(since, forKey: .since)
    try c.encode(deadline, forKey: .deadline)
  }
}

extension ReadyCheckEnd: WireStringEnum {
  public static let wireName = "ready check end"
}
