import PlaybackCoordination

/// Wire format: `{"type":"<case>", <named fields>}`, e.g.
/// `{"type":"played","at":12.5,"rate":1,"startsAt":3600000000000}`. Optional fields are
/// omitted when absent. Written by hand so that the format is a decision; see
/// docs/PROTOCOL.md.
extension ChangeKind: Codable {
  private enum CodingKeys: String, CodingKey {
    case type, reason, connected, item, at, rate, startsAt, to, from, time, readiness
    case participant, cause, enabled, locked, playback, name, entry, seconds, lender
    case deadline, ready, end, kept
  }

  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    switch try c.decodeWireType(Self.self, forKey: .type) {
    case .entered:
      self = .entered
    case .exited:
      self = .exited(try c.decode(ExitReason.self, forKey: .reason))
    case .connectionChanged:
      self = .connectionChanged(connected: try c.decode(Bool.self, forKey: .connected))
    case .sessionStarted:
      self = .sessionStarted(item: try c.decode(ItemID.self, forKey: .item))
    case .joined:
      self = .joined
    case .declined:
      self = .declined
    case .left:
      self = .left
    case .sessionEnded:
      self = .sessionEnded
    case .played:
      self = .played(
        at: try c.decode(Double.self, forKey: .at),
        rate: try c.decode(Double.self, forKey: .rate),
        startsAt: try c.decode(GroupInstant.self, forKey: .startsAt))
    case .paused:
      self = .paused(at: try c.decode(Double.self, forKey: .at))
    case .seeked:
      self = .seeked(to: try c.decode(Double.self, forKey: .to))
    case .rateChanged:
      self = .rateChanged(rate: try c.decode(Double.self, forKey: .rate))
    case .replaced:
      self = .replaced(
        from: try c.decode(ItemID.self, forKey: .from), to: try c.decode(ItemID.self, forKey: .to))
    case .autoAdvanced:
      self = .autoAdvanced(
        from: try c.decode(ItemID.self, forKey: .from), to: try c.decode(ItemID.self, forKey: .to))
    case .reachedEnd:
      self = .reachedEnd(item: try c.decode(ItemID.self, forKey: .item))
    case .suspended:
      self = .suspended(try c.decode(SuspensionReason.self, forKey: .reason))
    case .resumed:
      self = .resumed(try c.decodeIfPresent(SuspensionReason.self, forKey: .reason))
    case .resumedProposing:
      self = .resumedProposing(time: try c.decode(Double.self, forKey: .time))
    case .readinessChanged:
      self = .readinessChanged(try c.decode(Readiness.self, forKey: .readiness))
    case .waitStarted:
      self = .waitStarted(
        participant: try c.decode(ParticipantID.self, forKey: .participant),
        cause: try c.decode(WaitCause.self, forKey: .cause))
    case .waitTimedOut:
      self = .waitTimedOut(participant: try c.decode(ParticipantID.self, forKey: .participant))
    case .waitEnded:
      self = .waitEnded(
        at: try c.decode(Double.self, forKey: .at),
        startsAt: try c.decode(GroupInstant.self, forKey: .startsAt))
    case .autoAdvanceChanged:
      self = .autoAdvanceChanged(try c.decode(Bool.self, forKey: .enabled))
    case .reported:
      self = .reported
    case .sealingKeyAnnounced:
      self = .sealingKeyAnnounced
    case .watchingFrom:
      self = .watchingFrom(try c.decodeIfPresent(ParticipantID.self, forKey: .lender))
    case .readyCheckStarted:
      self = .readyCheckStarted(deadline: try c.decode(GroupInstant.self, forKey: .deadline))
    case .readyToWatchChanged:
      self = .readyToWatchChanged(try c.decode(Bool.self, forKey: .ready))
    case .readyCheckEnded:
      self = .readyCheckEnded(
        try c.decode(ReadyCheckEnd.self, forKey: .end),
        startsAt: try c.decodeIfPresent(GroupInstant.self, forKey: .startsAt))
    case .startWhenAllReadyChanged:
      self = .startWhenAllReadyChanged(try c.decode(Bool.self, forKey: .enabled))
    case .keptChanged:
      self = .keptChanged(try c.decode(Bool.self, forKey: .kept))
    case .lockChanged:
      self = .lockChanged(try c.decode(Bool.self, forKey: .locked))
    case .playbackControlChanged:
      self = .playbackControlChanged(try c.decode(PlaybackControl.self, forKey: .playback))
    case .ownerChanged:
      self = .ownerChanged(to: try c.decode(ParticipantID.self, forKey: .to))
    case .removed:
      self = .removed(
        participant: try c.decode(ParticipantID.self, forKey: .participant),
        name: try c.decode(String.self, forKey: .name))
    case .queueAdded:
      self = .queueAdded(
        entry: try c.decode(UInt64.self, forKey: .entry),
        item: try c.decode(ItemID.self, forKey: .item))
    case .queueRemoved:
      self = .queueRemoved(
        entry: try c.decode(UInt64.self, forKey: .entry),
        item: try c.decode(ItemID.self, forKey: .item))
    case .queueMoved:
      self = .queueMoved(
        entry: try c.decode(UInt64.self, forKey: .entry),
        item: try c.decode(ItemID.self, forKey: .item),
        to: try c.decode(Int.self, forKey: .to))
    case .queueCleared:
      self = .queueCleared
    case .personalOffsetChanged:
      self = .personalOffsetChanged(try c.decode(Double.self, forKey: .seconds))
    case .queuePlayed:
      self = .queuePlayed(
        entry: try c.decode(UInt64.self, forKey: .entry),
        from: try c.decodeIfPresent(ItemID.self, forKey: .from),
        to: try c.decode(ItemID.self, forKey: .to))
    }
  }

  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(wireType.rawValue, forKey: .type)
    switch self {
    case .exited(let reason):
      try c.encode(reason, forKey: .reason)
    case .connectionChanged(let connected):
      try c.encode(connected, forKey: .connected)
    case .sessionStarted(let item):
      try c.encode(item, forKey: .item)
    case .played(let at, let rate, let startsAt):
      try c.encode(at, forKey: .at)
      try c.encode(rate, forKey: .rate)
      try c.encode(startsAt, forKey: .startsAt)
    case .paused(let at):
      try c.encode(at, forKey: .at)
    case .seeked(let to):
      try c.encode(to, forKey: .to)
    case .rateChanged(let rate):
      try c.encode(rate, forKey: .rate)
    case .replaced(let from, let to):
      try c.encode(from, forKey: .from)
      try c.encode(to, forKey: .to)
    case .autoAdvanced(let from, let to):
      try c.encode(from, forKey: .from)
      try c.encode(to, forKey: .to)
    case .reachedEnd(let item):
      try c.encode(item, forKey: .item)
    case .suspended(let reason):
      try c.encode(reason, forKey: .reason)
    case .resumed(let reason):
      try c.encodeIfPresent(reason, forKey: .reason)
    case .resumedProposing(let time):
      try c.encode(time, forKey: .time)
    case .readinessChanged(let readiness):
      try c.encode(readiness, forKey: .readiness)
    case .waitStarted(let participant, let cause):
      try c.encode(participant, forKey: .participant)
      try c.encode(cause, forKey: .cause)
    case .waitTimedOut(let participant):
      try c.encode(participant, forKey: .participant)
    case .waitEnded(let at, let startsAt):
      try c.encode(at, forKey: .at)
      try c.encode(startsAt, forKey: .startsAt)
    case .autoAdvanceChanged(let enabled):
      try c.encode(enabled, forKey: .enabled)
    case .lockChanged(let locked):
      try c.encode(locked, forKey: .locked)
    case .playbackControlChanged(let playback):
      try c.encode(playback, forKey: .playback)
    case .ownerChanged(let to):
      try c.encode(to, forKey: .to)
    case .removed(let participant, let name):
      try c.encode(participant, forKey: .participant)
      try c.encode(name, forKey: .name)
    case .queueAdded(let entry, let item):
      try c.encode(entry, forKey: .entry)
      try c.encode(item, forKey: .item)
    case .queueRemoved(let entry, let item):
      try c.encode(entry, forKey: .entry)
      try c.encode(item, forKey: .item)
    case .queueMoved(let entry, let item, let to):
      try c.encode(entry, forKey: .entry)
      try c.encode(item, forKey: .item)
      try c.encode(to, forKey: .to)
    case .personalOffsetChanged(let seconds):
      try c.encode(seconds, forKey: .seconds)
    case .watchingFrom(let lender):
      try c.encodeIfPresent(lender, forKey: .lender)
    case .readyCheckStarted(let deadline):
      try c.encode(deadline, forKey: .deadline)
    case .readyToWatchChanged(let ready):
      try c.encode(ready, forKey: .ready)
    case .readyCheckEnded(let end, let startsAt):
      try c.encode(end, forKey: .end)
      try c.encodeIfPresent(startsAt, forKey: .startsAt)
    case .startWhenAllReadyChanged(let enabled):
      try c.encode(enabled, forKey: .enabled)
    case .keptChanged(let kept):
      try c.encode(kept, forKey: .kept)
    case .queuePlayed(let entry, let from, let to):
      try c.encode(entry, forKey: .entry)
      try c.encodeIfPresent(from, forKey: .from)
      try c.encode(to, forKey: .to)
    case .entered, .joined, .declined, .left, .sessionEnded, .reported, .sealingKeyAnnounced,
      .queueCleared:
      break
    }
  }
}
