/// What the room watches now. Every replica holds the same value for the same sequence
/// number.
public struct WatchSession: Hashable, Sendable {
  /// Increases each time a new session starts in the room (not on episode switches).
  /// The name of whoever started it, so that someone who arrives later still reads who did
  /// (the change that said so is long gone for them).
  public var startedBy: String?
  public var id: UInt64
  public var series: SeriesInfo
  public var item: ItemInfo
  /// Where the group actually is (rate 0 while paused, waiting or finished).
  public var timeline: Timeline
  /// The rate the group asked for: 0 if someone paused, otherwise the rate to play at once
  /// nobody is waited for.
  public var intendedRate: Double
  /// The participants the group holds for, with why and until when.
  public var waits: [GroupWait]
  /// Participants whose wait timed out: the group goes on without them until they are
  /// ready again, and does not wait for them meanwhile.
  public var excused: [ParticipantID]
  /// True once the group stopped at the end of the last item (or at the end of an item
  /// with nobody on auto-advance).
  public var reachedEnd: Bool
  /// The rate the group plays at when it plays: remembered while paused, so that a plain
  /// play resumes at the rate last chosen. `intendedRate` is either 0 or this.
  public var playbackRate: Double
  /// Joined participants loading on their own (late joiners, or participants detached when
  /// the item changed): the group does not wait for them; they catch up once ready.
  public var catchingUp: [ParticipantID]
  /// Those offered the session when it started who have not answered yet: the group holds
  /// for each (cause `answering`) until they join, say not now, leave or time out.
  public var invited: [ParticipantID]
  /// The last change that moved the timeline (play, pause, seek, rate, switch, a start
  /// after a wait) with its originator: "⏸ paused by bob" even for someone who joined later.
  public var lastPlaybackChange: ChangeEvent?
  /// The ready check under way, if any (the group holds paused meanwhile).
  public var readyCheck: ReadyCheck?
  /// The instant a ready check's countdown ends and the group starts: fronts and players'
  /// screens count down to it. Nil once anything else moved the timeline.
  public var countdown: GroupInstant?

  public init(
    id: UInt64, series: SeriesInfo, item: ItemInfo, timeline: Timeline, intendedRate: Double,
    waits: [GroupWait] = [], excused: [ParticipantID] = [], reachedEnd: Bool = false,
    playbackRate: Double = 1, catchingUp: [ParticipantID] = [],
    lastPlaybackChange: ChangeEvent? = nil, startedBy: String? = nil,
    invited: [ParticipantID] = [], readyCheck: ReadyCheck? = nil, countdown: GroupInstant? = nil
  ) {
    self.readyCheck = readyCheck
    self.countdown = countdown
    self.invited = invited
    self.startedBy = startedBy
    self.id = id
    self.series = series
    self.item = item
    self.timeline = timeline
    self.intendedRate = intendedRate
    self.waits = waits
    self.excused = excused
    self.reachedEnd = reachedEnd
    self.playbackRate = playbackRate
    self.catchingUp = catchingUp
    self.lastPlaybackChange = lastPlaybackChange
  }

  /// The item position at group time `t`, clamped to `0...duration`.
  public func position(at t: GroupInstant) -> Double {
    min(max(timeline.position(at: t), 0), item.duration)
  }

  public var status: PlaybackStatus {
    if reachedEnd { return .finished }
    if !waits.isEmpty && intendedRate > 0 { return .waiting }
    return timeline.rate > 0 ? .playing : .paused
  }
}

/// What a person sees the group doing.
public enum PlaybackStatus: String, Hashable, Sendable, CaseIterable {
  case playing, paused, waiting, finished
}
