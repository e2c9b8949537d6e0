import PlaybackCoordination

/// Wire format: `{"type":"<case>", <named fields>}`, e.g.
/// `{"type":"pause","item":"harbour/s1e1","at":12.5}`. Optional fields are omitted when
/// absent (and read as absent when null). Written out by hand, not synthesized, so that the
/// format is a decision that a Swift refactor cannot change by accident; see
/// docs/PROTOCOL.md.
extension GroupCommand: Codable {
  private enum CodingKeys: String, CodingKey {
    case type, name, reason, connected, series, item, rate, at, to, confirmed, endedItem
    case proposing, readiness, enabled, roundTrip, startupLatency, playerOffset
    case locked, playback, participant, origin, entry, seconds, key, lender, ready, kept
  }

  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    switch try c.decodeWireType(Self.self, forKey: .type) {
    case .enter:
      self = .enter(
        name: try c.decode(String.self, forKey: .name),
        origin: try c.decodeIfPresent(ParticipantOrigin.self, forKey: .origin) ?? .cowatch)
    case .exit:
      self = .exit(reason: try c.decode(ExitReason.self, forKey: .reason))
    case .setConnected:
      self = .setConnected(try c.decode(Bool.self, forKey: .connected))
    case .start:
      self = .start(
        series: try c.decode(SeriesInfo.self, forKey: .series),
        item: try c.decode(ItemID.self, forKey: .item))
    case .join:
      self = .join
    case .decline:
      self = .decline
    case .leave:
      self = .leave
    case .end:
      self = .end
    case .play:
      self = .play(
        item: try c.decodeIfPresent(ItemID.self, forKey: .item),
        rate: try c.decodeIfPresent(Double.self, forKey: .rate))
    case .pause:
      self = .pause(
        item: try c.decodeIfPresent(ItemID.self, forKey: .item),
        at: try c.decode(Double.self, forKey: .at))
    case .seek:
      self = .seek(
        item: try c.decodeIfPresent(ItemID.self, forKey: .item),
        to: try c.decode(Double.self, forKey: .to))
    case .setRate:
      self = .setRate(
        item: try c.decodeIfPresent(ItemID.self, forKey: .item),
        rate: try c.decode(Double.self, forKey: .rate))
    case .replace:
      self = .replace(
        series: try c.decode(SeriesInfo.self, forKey: .series),
        item: try c.decode(ItemID.self, forKey: .item),
        confirmed: try c.decode(Bool.self, forKey: .confirmed))
    case .advance:
      self = .advance(endedItem: try c.decode(ItemID.self, forKey: .endedItem))
    case .beginSuspension:
      self = .beginSuspension(try c.decode(SuspensionReason.self, forKey: .reason))
    case .endSuspension:
      self = .endSuspension(
        try c.decodeIfPresent(SuspensionReason.self, forKey: .reason),
        proposing: try c.decodeIfPresent(Double.self, forKey: .proposing))
    case .setReadiness:
      self = .setReadiness(try c.decode(Readiness.self, forKey: .readiness))
    case .setAutoAdvance:
      self = .setAutoAdvance(try c.decode(Bool.self, forKey: .enabled))
    case .report:
      self = .report(
        roundTrip: try c.decode(Double.self, forKey: .roundTrip),
        startupLatency: try c.decode(Double.self, forKey: .startupLatency),
        playerOffset: try c.decodeIfPresent(Double.self, forKey: .playerOffset))
    case .setLocked:
      self = .setLocked(try c.decode(Bool.self, forKey: .locked))
    case .setPlaybackControl:
      self = .setPlaybackControl(try c.decode(PlaybackControl.self, forKey: .playback))
    case .transferOwnership:
      self = .transferOwnership(to: try c.decode(ParticipantID.self, forKey: .participant))
    case .remove:
      self = .remove(try c.decode(ParticipantID.self, forKey: .participant))
    case .queueAdd:
      self = .queueAdd(
        series: try c.decode(SeriesInfo.self, forKey: .series),
        item: try c.decode(ItemID.self, forKey: .item))
    case .queueRemove:
      self = .queueRemove(entry: try c.decode(UInt64.self, forKey: .entry))
    case .queueMove:
      let to = try c.decode(Int.self, forKey: .to)
      guard (0...GroupState.maximumQueueEntries).contains(to) else {
        throw DecodingError.dataCorruptedError(
          forKey: .to, in: c,
          debugDescription: "place \(to) is not in 0...\(GroupState.maximumQueueEntries)")
      }
      self = .queueMove(entry: try c.decode(UInt64.self, forKey: .entry), to: to)
    case .queueClear:
      self = .queueClear
    case .playQueued:
      self = .playQueued(entry: try c.decode(UInt64.self, forKey: .entry))
    case .setPersonalOffset:
      self = .setPersonalOffset(try c.decode(Double.self, forKey: .seconds))
    case .announceSealingKey:
      let key = try c.decode(String.self, forKey: .key)
      guard Participant.isSealingKey(key) else {
        throw DecodingError.dataCorruptedError(
          forKey: .key, in: c, debugDescription: "a sealing key is 64 lower-case hex digits")
      }
      self = .announceSealingKey(key)
    case .watchFrom:
      self = .watchFrom(try c.decodeIfPresent(ParticipantID.self, forKey: .lender))
    case .askReady:
      self = .askReady
    case .setReadyToWatch:
      self = .setReadyToWatch(try c.decode(Bool.self, forKey: .ready))
    case .startAnyway:
      self = .startAnyway
    case .cancelReadyCheck:
      self = .cancelReadyCheck
    case .setStartWhenAllReady:
      self = .setStartWhenAllReady(try c.decode(Bool.self, forKey: .enabled))
    case .setKept:
      self = .setKept(try c.decode(Bool.self, forKey: .kept))
    }
  }

  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(wireType.rawValue, forKey: .type)
    switch self {
    case .enter(let name, let origin):
      try c.encode(name, forKey: .name)
      if origin != .cowatch { try c.encode(origin, forKey: .origin) }
    case .exit(let reason):
      try c.encode(reason, forKey: .reason)
    case .setConnected(let connected):
      try c.encode(connected, forKey: .connected)
    case .start(let series, let item):
      try c.encode(series, forKey: .series)
      try c.encode(item, forKey: .item)
    case .play(let item, let rate):
      try c.encodeIfPresent(item, forKey: .item)
      try c.encodeIfPresent(rate, forKey: .rate)
    case .pause(let item, let at):
      try c.encodeIfPresent(item, forKey: .item)
      try c.encode(at, forKey: .at)
    case .seek(let item, let to):
      try c.encodeIfPresent(item, forKey: .item)
      try c.encode(to, forKey: .to)
    case .setRate(let item, let rate):
      try c.encodeIfPresent(item, forKey: .item)
      try c.encode(rate, forKey: .rate)
    case .replace(let series, let item, let confirmed):
      try c.encode(series, forKey: .series)
      try c.encode(item, forKey: .item)
      try c.encode(confirmed, forKey: .confirmed)
    case .advance(let endedItem):
      try c.encode(endedItem, forKey: .endedItem)
    case .beginSuspension(let reason):
      try c.encode(reason, forKey: .reason)
    case .endSuspension(let reason, let proposing):
      try c.encodeIfPresent(reason, forKey: .reason)
      try c.encodeIfPresent(proposing, forKey: .proposing)
    case .setReadiness(let readiness):
      try c.encode(readiness, forKey: .readiness)
    case .setAutoAdvance(let enabled):
      try c.encode(enabled, forKey: .enabled)
    case .report(let roundTrip, let startupLatency, let playerOffset):
      try c.encode(roundTrip, forKey: .roundTrip)
      try c.encode(startupLatency, forKey: .startupLatency)
      try c.encodeIfPresent(playerOffset, forKey: .playerOffset)
    case .setLocked(let locked):
      try c.encode(locked, forKey: .locked)
    case .setPlaybackControl(let playback):
      try c.encode(playback, forKey: .playback)
    case .transferOwnership(let participant):
      try c.encode(participant, forKey: .participant)
    case .remove(let participant):
      try c.encode(participant, forKey: .participant)
    case .queueAdd(let series, let item):
      try c.encode(series, forKey: .series)
      try c.encode(item, forKey: .item)
    case .queueRemove(let entry):
      try c.encode(entry, forKey: .entry)
    case .queueMove(let entry, let to):
      try c.encode(entry, forKey: .entry)
      try c.encode(to, forKey: .to)
    case .playQueued(let entry):
      try c.encode(entry, forKey: .entry)
    case .setPersonalOffset(let seconds):
      try c.encode(seconds, forKey: .seconds)
    case .announceSealingKey(let key):
      try c.encode(key, forKey: .key)
    case .watchFrom(let lender):
      try c.encodeIfPresent(lender, forKey: .lender)
    case .setReadyToWatch(let ready):
      try c.encode(ready, forKey: .ready)
    case .setStartWhenAllReady(let enabled):
      try c.encode(enabled, forKey: .enabled)
    case .setKept(let kept):
      try c.encode(kept, forKey: .kept)
    case .join, .decline, .leave, .end, .queueClear, .askReady, .startAnyway, .cancelReadyCheck:
      break
    }
  }
}
