/// One applied change to the group state, with who caused it. Fronts turn these into
/// notices ("bob paused at 12:34").
public struct ChangeEvent: Hashable, Sendable {
  /// The group state's sequence number after this change.
  public var sequence: UInt64
  public var at: GroupInstant
  /// Who caused it; nil when the group itself did (a wait timed out, an item ended).
  public var originator: ParticipantID?
  /// The originator's name at the time, so the notice survives their leaving.
  public var originatorName: String?
  public var kind: ChangeKind

  public init(
    sequence: UInt64, at: GroupInstant, originator: ParticipantID?, originatorName: String?,
    kind: ChangeKind
  ) {
    self.sequence = sequence
    self.at = at
    self.originator = originator
    self.originatorName = originatorName
    self.kind = kind
  }
}

/// What changed.
public enum ChangeKind: Hashable, Sendable {
  case entered
  case exited(ExitReason)
  case connectionChanged(connected: Bool)
  case sessionStarted(item: ItemID)
  case joined
  /// Said "not now" to the session offered.
  case declined
  case left
  case sessionEnded
  /// Playback (re)starts at item time `at`, at group time `startsAt`. When the group must
  /// first wait for someone, `startsAt` is the time of the command and the start itself is
  /// announced by `waitEnded`.
  case played(at: Double, rate: Double, startsAt: GroupInstant)
  case paused(at: Double)
  case seeked(to: Double)
  case rateChanged(rate: Double)
  case replaced(from: ItemID, to: ItemID)
  case autoAdvanced(from: ItemID, to: ItemID)
  /// The item ended and the group stopped there (nobody on auto-advance, or last item).
  case reachedEnd(item: ItemID)
  case suspended(SuspensionReason)
  case resumed(SuspensionReason?)
  case resumedProposing(time: Double)
  case readinessChanged(Readiness)
  case waitStarted(participant: ParticipantID, cause: WaitCause)
  case waitTimedOut(participant: ParticipantID)
  /// Everyone the group waited for is ready (or excused): playback starts at `startsAt`.
  case waitEnded(at: Double, startsAt: GroupInstant)
  case autoAdvanceChanged(Bool)
  case reported
  case lockChanged(Bool)
  case playbackControlChanged(PlaybackControl)
  /// The room has a new owner: handed over by the originator, or passed on when the owner
  /// (then the originator) left the room.
  case ownerChanged(to: ParticipantID)
  /// The owner (originator) took `participant` out of the room; `name` is theirs, kept so
  /// that the notice survives their departure.
  case removed(participant: ParticipantID, name: String)
  /// The originator added entry `entry` (`item`) at the end of the queue.
  case queueAdded(entry: UInt64, item: ItemID)
  case queueRemoved(entry: UInt64, item: ItemID)
  /// Entry `entry` (`item`) is now at place `to` (0: first).
  case queueMoved(entry: UInt64, item: ItemID, to: Int)
  case queueCleared
  /// The originator chose to watch entry `entry` now (`from`: the item it replaced, if a
  /// session ran). At the end of an item the group goes on to the queue's first entry by
  /// itself: that is `autoAdvanced`.
  case queuePlayed(entry: UInt64, from: ItemID?, to: ItemID)
  /// The originator's player now runs this many seconds ahead of the group (negative:
  /// behind; 0: with it).
  case personalOffsetChanged(Double)
  /// The originator announced the key private messages are sealed for it with (see
  /// ``Participant/sealingKey``): a change of state every replica must make, with nothing
  /// to tell anyone.
  case sealingKeyAnnounced
  /// The originator's player now reads `lender`'s copy of the item (nil: its own, or none).
  case watchingFrom(ParticipantID?)
  /// The originator asked the room whether it is ready; the question lapses at `deadline`.
  case readyCheckStarted(deadline: GroupInstant)
  /// The originator said ready to watch (or took it back).
  case readyToWatchChanged(Bool)
  /// The ready check ended; when it starts the group, playback starts at `startsAt`, the
  /// end of the countdown (nil while the group still waits for a player to load first).
  case readyCheckEnded(ReadyCheckEnd, startsAt: GroupInstant?)
  /// The owner set whether a play waits for everyone to be ready.
  case startWhenAllReadyChanged(Bool)
  /// The owner asked the relay to keep the room when everyone has left, or to let it go.
  case keptChanged(Bool)

  /// Changes nobody is told of in words (a player's report, a key).
  public var isQuiet: Bool {
    switch self {
    case .reported, .sealingKeyAnnounced: true
    default: false
    }
  }
}
