import Testing

@testable import PlaybackCoordination

// MARK: - Fixtures

private let syncMe: ParticipantID = "ann"
private let syncOther: ParticipantID = "bob"
private let syncItemA: ItemID = "harbour/s1e1"
private let syncItemB: ItemID = "harbour/s1e2"
private let syncSeries = SeriesInfo(
  id: "harbour", title: "Harbour",
  items: [
    ItemInfo(id: syncItemA, title: "Arrival", duration: 3600),
    ItemInfo(id: syncItemB, title: "Departure", duration: 3600),
  ])
/// The group clock is 500 s ahead of the local one.
private let syncClock = ClockOffsetEstimate(offset: 500, roundTrip: 0.002, uncertainty: 0.001)

private func syncLocal(_ seconds: Double) -> LocalInstant { LocalInstant(seconds: seconds) }

/// A timeline that shows `itemTime` at local time `startsAt` and moves at `rate` from then.
private func syncTimeline(_ itemTime: Double, startsAt: Double, rate: Double = 1) -> Timeline {
  Timeline(itemTime: itemTime, groupTime: syncClock.groupTime(at: syncLocal(startsAt)), rate: rate)
}

private func syncState(
  item: ItemID = syncItemA, timeline: Timeline, joined: Bool = true,
  suspensions: [SuspensionReason] = [], sequence: UInt64 = 1
) -> GroupState {
  let info = syncSeries.item(item)!
  return GroupState(
    sequence: sequence,
    participants: [
      Participant(id: syncMe, name: "Ann", isJoined: joined, suspensions: suspensions),
      Participant(id: syncOther, name: "Bob", isJoined: true),
    ],
    session: WatchSession(
      id: 1, series: syncSeries, item: info, timeline: timeline, intendedRate: timeline.rate))
}

private func syncNoSession() -> GroupState {
  GroupState(participants: [Participant(id: syncMe, name: "Ann")])
}

/// The rate of a `.setRate` command, if it is one.
private func syncRate(_ command: PlayerCommand) -> Double? {
  if case .setRate(let r) = command { return r }
  return nil
}

private func syncIsRestart(_ command: PlayerCommand) -> Bool {
  switch command {
  case .play, .seek, .load: true
  default: false
  }
}

// MARK: - A simulated player (test-only)

/// A player with its own clock drifting by `ppm`, a start-up latency for play and seek
/// (busy meanwhile) and a load latency; it obeys `PlayerCommand` as `PlayerDriver`
/// documents. With `computesLateStart` off it is naive: a late start begins at the asked
/// item time instead of where the timeline already is.
struct SyncSimPlayer {
  private enum Mode {
    case idle, paused, playing
    /// Prerolled at `itemTime`, waiting for `startAt` (and for the player to be ready).
    case starting(itemTime: Double, startAt: LocalInstant)
    /// Playing on (the old line, at `oldRate`) while it prepares a switch to `itemTime` at
    /// `startAt`, as `PlayerCommand.play` documents; ready to switch at `ready`.
    case switching(itemTime: Double, startAt: LocalInstant, oldRate: Double, ready: LocalInstant)
  }

  var ppm: Double
  var startupLatency: Double
  var loadLatency: Double
  var computesLateStart = true
  private(set) var item: ItemID?
  private(set) var position = 0.0
  private(set) var rate = 1.0
  private var mode = Mode.idle
  private var updatedAt = LocalInstant(nanoseconds: 0)
  private var readyAt = LocalInstant(nanoseconds: 0)

  init(ppm: Double = 0, startupLatency: Double = 0.2, loadLatency: Double = 0.5) {
    self.ppm = ppm
    self.startupLatency = startupLatency
    self.loadLatency = loadLatency
  }

  private var speed: Double { rate * (1 + ppm * 1e-6) }

  private mutating func advance(to now: LocalInstant) {
    if case .switching(let itemTime, let startAt, let oldRate, let ready) = mode {
      let begin = max(startAt, ready)
      let oldSpeed = oldRate * (1 + ppm * 1e-6)
      let until = min(now, begin)
      if until > updatedAt { position += oldSpeed * until.seconds(since: updatedAt) }
      updatedAt = max(updatedAt, until)
      if now >= begin {
        let late = computesLateStart ? rate * begin.seconds(since: startAt) : 0
        position = itemTime + late
        mode = .playing
        updatedAt = begin
      }
    }
    if case .starting(let itemTime, let startAt) = mode {
      let begin = max(startAt, readyAt)
      if now >= begin {
        let late = computesLateStart ? rate * begin.seconds(since: startAt) : 0
        position = itemTime + late
        mode = .playing
        updatedAt = begin
      }
    }
    if case .playing = mode {
      let from = max(updatedAt, readyAt)
      if now > from { position += speed * now.seconds(since: from) }
    }
    updatedAt = max(updatedAt, now)
  }

  mutating func perform(_ command: PlayerCommand, at now: LocalInstant) {
    advance(to: now)
    switch command {
    case .load(let item, let at):
      self.item = item
      position = at
      mode = .paused
      readyAt = now.advanced(bySeconds: loadLatency)
    case .play(let itemTime, let startAt, let rate):
      let oldRate = self.rate
      self.rate = rate
      switch mode {
      case .playing where now >= readyAt, .switching:
        // Already on the new line (a rate change): no seek needed.
        let onLine =
          abs(position + oldRate * (1 + ppm * 1e-6) * startAt.seconds(since: now) - itemTime) < 0.05
        let ready = onLine ? now : now.advanced(bySeconds: startupLatency)
        mode = .switching(itemTime: itemTime, startAt: startAt, oldRate: oldRate, ready: ready)
      default:
        position = itemTime
        readyAt = max(readyAt, now).advanced(bySeconds: startupLatency)
        mode = .starting(itemTime: itemTime, startAt: startAt)
      }
    case .pause(let at):
      position = at
      mode = .paused
    case .seek(let to):
      position = to
      readyAt = max(readyAt, now).advanced(bySeconds: startupLatency)
    case .setRate(let r):
      rate = r
    case .unload:
      item = nil
      mode = .idle
    }
  }

  mutating func observe(at now: LocalInstant) -> PlayerObservation {
    advance(to: now)
    var busy = now < readyAt
    var moving = false
    if case .playing = mode, !busy { moving = true }
    if case .switching = mode {
      busy = true
      moving = true
    }
    return PlayerObservation(
      item: item, position: position, rate: moving ? speed : 0, isBusy: busy)
  }

  /// Something outside the coordinator moves the player (a hiccup, a decoder skip).
  mutating func jump(by seconds: Double, at now: LocalInstant) {
    advance(to: now)
    position += seconds
  }
}

/// Runs a coordinator against a simulated player on 100 ms correction ticks.
struct SyncSimulation {
  var coordinator: PlaybackCoordinator
  var player: SyncSimPlayer
  var state: GroupState
  var now = LocalInstant(seconds: 0)
  /// Commands issued by `correct`, with when.
  var corrections: [(at: Double, command: PlayerCommand)] = []
  /// The true gap (player − group) at every tick where the player was not busy.
  var gaps: [(at: Double, gap: Double)] = []

  init(player: SyncSimPlayer, state: GroupState, configuration: SyncConfiguration = .init()) {
    coordinator = PlaybackCoordinator(participant: syncMe, configuration: configuration)
    self.player = player
    self.state = state
    for command in coordinator.adopt(state, at: now, clock: syncClock) {
      self.player.perform(command, at: now)
    }
  }

  func groupPosition(at local: LocalInstant) -> Double {
    state.session!.position(at: syncClock.groupTime(at: local))
  }

  mutating func run(until end: Double, tick: Double = 0.1) {
    while now.seconds < end - 1e-9 {
      now = now.advanced(bySeconds: tick)
      let observation = player.observe(at: now)
      for command in coordinator.correct(observation, at: now, clock: syncClock) {
        player.perform(command, at: now)
        corrections.append((now.seconds, command))
      }
      if !observation.isBusy {
        gaps.append((now.seconds, observation.position - groupPosition(at: now)))
      }
    }
  }

  func restarts(from: Double = 0, to: Double = .infinity) -> Int {
    corrections.filter { $0.at >= from && $0.at <= to && syncIsRestart($0.command) }.count
  }

  func largestGap(from: Double, to: Double = .infinity) -> Double {
    gaps.filter { $0.at >= from && $0.at <= to }.map { abs($0.gap) }.max() ?? 0
  }

  func largestNudge(from: Double = 0, to: Double = .infinity) -> Double {
    corrections.filter { $0.at >= from && $0.at <= to }
      .compactMap { syncRate($0.command) }.map { abs($0 - 1) }.max() ?? 0
  }
}

/// Adopts a playing state (item time 100 at local 1 s) and lets the player settle: the
/// coordinator then trusts observations from local 1.1 s on.
private func syncSettledCoordinator(
  rate: Double = 1, configuration: SyncConfiguration = .init()
) -> (PlaybackCoordinator, GroupState) {
  var coordinator = PlaybackCoordinator(participant: syncMe, configuration: configuration)
  let state = syncState(timeline: syncTimeline(100, startsAt: 1, rate: rate))
  _ = coordinator.adopt(state, at: syncLocal(0), clock: syncClock)
  let ready = PlayerObservation(item: syncItemA, position: 100, rate: 0)
  _ = coordinator.correct(ready, at: syncLocal(1), clock: syncClock)
  return (coordinator, state)
}

/// An observation of item A at `position`, playing at `rate`.
private func syncSeen(_ position: Double, rate: Double = 1, busy: Bool = false)
  -> PlayerObservation
{
  PlayerObservation(item: syncItemA, position: position, rate: busy ? 0 : rate, isBusy: busy)
}

// MARK: - Following the group state

@Suite("PlaybackCoordinator follows the group state")
struct PlaybackCoordinatorAdoptTests {
  @Test("no session: unload once")
  func playbackCoordinatorUnloadsOnce() {
    var coordinator = PlaybackCoordinator(participant: syncMe)
    #expect(coordinator.adopt(syncNoSession(), at: syncLocal(0), clock: syncClock) == [.unload])
    #expect(coordinator.adopt(syncNoSession(), at: syncLocal(1), clock: syncClock) == [])
    // Present but not joined: still nothing to play.
    let eligible = syncState(timeline: syncTimeline(0, startsAt: 1), joined: false)
    #expect(coordinator.adopt(eligible, at: syncLocal(2), clock: syncClock) == [])
  }

  @Test("joining a playing session loads the item at the group position, then plays")
  func playbackCoordinatorLoadsThenPlays() {
    var coordinator = PlaybackCoordinator(participant: syncMe)
    // The group started item time 100 at local 1 s; we learn of it at local 11 s.
    let timeline = syncTimeline(100, startsAt: 1)
    let state = syncState(timeline: timeline)
    let commands = coordinator.adopt(state, at: syncLocal(11), clock: syncClock)
    // The anchor is long past: rather than start late by its start-up latency, the player
    // starts a restart lead from now, on the same timeline line.
    let lead = SyncConfiguration().restartLead
    #expect(
      commands == [
        .load(item: syncItemA, at: 110),
        .play(itemTime: 110 + lead, startAt: syncLocal(11 + lead), rate: 1),
      ])
    #expect(coordinator.isFollowing)
    // The same state again (even with another sequence number) changes nothing.
    var again = state
    again.sequence += 5
    again.participants[1].roundTrip = 0.03
    #expect(coordinator.adopt(again, at: syncLocal(12), clock: syncClock) == [])
  }

  @Test("pause snaps to the group's item time")
  func playbackCoordinatorPauseSnaps() {
    var coordinator = PlaybackCoordinator(participant: syncMe)
    _ = coordinator.adopt(
      syncState(timeline: syncTimeline(100, startsAt: 1)), at: syncLocal(0), clock: syncClock)
    // Bob paused at 12:34.5 as he saw it; we are told at local 20 s.
    let paused = syncState(timeline: syncTimeline(754.5, startsAt: 19.9, rate: 0), sequence: 2)
    #expect(coordinator.adopt(paused, at: syncLocal(20), clock: syncClock) == [.pause(at: 754.5)])
    #expect(coordinator.adopt(paused, at: syncLocal(21), clock: syncClock) == [])
    // A re-anchored but identical pause (e.g. a wait started) is no change either.
    let reanchored = syncState(timeline: syncTimeline(754.5, startsAt: 25, rate: 0), sequence: 3)
    #expect(coordinator.adopt(reanchored, at: syncLocal(25), clock: syncClock) == [])
  }

  @Test("play, seek and rate changes are followed; the same timeline is not re-sent")
  func playbackCoordinatorFollowsTimelineChanges() {
    var coordinator = PlaybackCoordinator(participant: syncMe)
    _ = coordinator.adopt(
      syncState(timeline: syncTimeline(0, startsAt: 0, rate: 0)), at: syncLocal(0),
      clock: syncClock)
    let playing = syncState(timeline: syncTimeline(0, startsAt: 2), sequence: 2)
    #expect(
      coordinator.adopt(playing, at: syncLocal(1.5), clock: syncClock) == [
        .play(itemTime: 0, startAt: syncLocal(2), rate: 1)
      ])
    // The same line re-anchored later is no change.
    let reanchored = syncState(timeline: syncTimeline(8, startsAt: 10), sequence: 3)
    #expect(coordinator.adopt(reanchored, at: syncLocal(12), clock: syncClock) == [])
    // A seek.
    let seeked = syncState(timeline: syncTimeline(300, startsAt: 13), sequence: 4)
    #expect(
      coordinator.adopt(seeked, at: syncLocal(12.8), clock: syncClock) == [
        .play(itemTime: 300, startAt: syncLocal(13), rate: 1)
      ])
    // A rate change.
    let faster = syncState(timeline: syncTimeline(310, startsAt: 23, rate: 1.5), sequence: 5)
    #expect(
      coordinator.adopt(faster, at: syncLocal(22.9), clock: syncClock) == [
        .play(itemTime: 310, startAt: syncLocal(23), rate: 1.5)
      ])
  }

  @Test("switching episode loads the new item at the group position")
  func playbackCoordinatorSwitchesItem() {
    var coordinator = PlaybackCoordinator(participant: syncMe)
    _ = coordinator.adopt(
      syncState(timeline: syncTimeline(100, startsAt: 1)), at: syncLocal(0), clock: syncClock)
    let switched = syncState(
      item: syncItemB, timeline: syncTimeline(0, startsAt: 30.5), sequence: 2)
    #expect(
      coordinator.adopt(switched, at: syncLocal(30), clock: syncClock) == [
        .load(item: syncItemB, at: 0),
        .play(itemTime: 0, startAt: syncLocal(30.5), rate: 1),
      ])
  }

  @Test("leaving the session unloads; joining again reloads")
  func playbackCoordinatorLeaveAndRejoin() {
    var coordinator = PlaybackCoordinator(participant: syncMe)
    let timeline = syncTimeline(100, startsAt: 1)
    _ = coordinator.adopt(syncState(timeline: timeline), at: syncLocal(0), clock: syncClock)
    let left = syncState(timeline: timeline, joined: false, sequence: 2)
    #expect(coordinator.adopt(left, at: syncLocal(5), clock: syncClock) == [.unload])
    #expect(coordinator.adopt(syncNoSession(), at: syncLocal(6), clock: syncClock) == [])
    let back = syncState(timeline: timeline, sequence: 3)
    #expect(
      coordinator.adopt(back, at: syncLocal(9), clock: syncClock) == [
        .load(item: syncItemA, at: 108),
        .play(
          itemTime: 108 + SyncConfiguration().restartLead,
          startAt: syncLocal(9 + SyncConfiguration().restartLead), rate: 1),
      ])
  }

  @Test("a suspended participant detaches, is not corrected, and rejoins where the group is")
  func playbackCoordinatorSuspensionDetaches() {
    let (settled, state) = syncSettledCoordinator()
    var coordinator = settled
    // Playing fine at local 10 s (item time 109).
    #expect(coordinator.correct(syncSeen(109), at: syncLocal(10), clock: syncClock) == [])
    // A call comes in.
    var suspended = state
    suspended.participants[0].suspensions = [.interrupted]
    suspended.sequence += 1
    let pause = coordinator.adopt(suspended, at: syncLocal(10.05), clock: syncClock)
    #expect(pause.count == 1)
    if case .pause(let at) = pause.first {
      #expect(abs(at - 109.05) < 1e-6)
    } else {
      Issue.record("expected a pause, got \(pause)")
    }
    #expect(coordinator.isDetached)
    #expect(coordinator.adopt(suspended, at: syncLocal(11), clock: syncClock) == [])
    // The group goes on, seeks even: the detached player is left alone.
    var moved = suspended
    moved.session!.timeline = syncTimeline(500, startsAt: 20)
    moved.sequence += 1
    #expect(coordinator.adopt(moved, at: syncLocal(19.9), clock: syncClock) == [])
    for t in stride(from: 20.0, through: 40, by: 0.1) {
      #expect(
        coordinator.correct(syncSeen(109.05, rate: 0), at: syncLocal(t), clock: syncClock) == [])
    }
    // The call ends: back to where the group is now.
    var resumed = moved
    resumed.participants[0].suspensions = []
    resumed.sequence += 1
    #expect(
      coordinator.adopt(resumed, at: syncLocal(41), clock: syncClock) == [
        .play(
          itemTime: 521 + SyncConfiguration().restartLead,
          startAt: syncLocal(41 + SyncConfiguration().restartLead), rate: 1)
      ])
    #expect(coordinator.isFollowing)
  }

  @Test(
    "a player that stalls is not paused when it detaches (that would end the stall), only once it recovers"
  )
  func playbackCoordinatorLetsStallRecover() {
    let (settled, state) = syncSettledCoordinator()
    var coordinator = settled
    #expect(coordinator.correct(syncSeen(109), at: syncLocal(10), clock: syncClock) == [])
    // The player stalls; its participant reports a stallRecovery suspension.
    let stalled = PlayerObservation(item: syncItemA, position: 109.2, rate: 0, isStalled: true)
    #expect(coordinator.correct(stalled, at: syncLocal(10.2), clock: syncClock) == [])
    var suspended = state
    suspended.participants[0].suspensions = [.stallRecovery]
    suspended.sequence += 1
    #expect(coordinator.adopt(suspended, at: syncLocal(10.25), clock: syncClock) == [])
    #expect(coordinator.isDetached)
    #expect(coordinator.correct(stalled, at: syncLocal(12), clock: syncClock) == [])
    // Recovered: now it is paused where it is, once.
    #expect(
      coordinator.correct(syncSeen(109.3), at: syncLocal(13.1), clock: syncClock) == [
        .pause(at: 109.3)
      ])
    #expect(
      coordinator.correct(syncSeen(109.3, rate: 0), at: syncLocal(13.2), clock: syncClock) == [])
  }

  @Test("suspended before anything was loaded: load at the group position, then wait")
  func playbackCoordinatorSuspendedBeforeLoad() {
    var coordinator = PlaybackCoordinator(participant: syncMe)
    let state = syncState(
      timeline: syncTimeline(100, startsAt: 1), suspensions: ["making tea"])
    #expect(
      coordinator.adopt(state, at: syncLocal(5), clock: syncClock) == [
        .load(item: syncItemA, at: 104)
      ])
    #expect(coordinator.adopt(state, at: syncLocal(6), clock: syncClock) == [])
  }
}

// MARK: - Drift correction, unit by unit

@Suite("PlaybackCoordinator corrects drift")
struct PlaybackCoordinatorCorrectTests {
  @Test("small gaps nudge the rate in proportion: at most 0.5 % under 20 ms, 5 % in all")
  func playbackCoordinatorNudges() throws {
    var (coordinator, _) = syncSettledCoordinator()
    // At local 10 s the group shows 109: 2 ms ahead plays 1 %/s × 2 ms = 0.2 % slower.
    let ahead = coordinator.correct(syncSeen(109.002), at: syncLocal(10), clock: syncClock)
    #expect(abs(try #require(ahead.first.flatMap(syncRate)) - 0.998) < 1e-9)
    #expect(abs(try #require(coordinator.lastGap) - 0.002) < 1e-9)
    #expect(coordinator.isNudged)
    // 100 ms later it advanced exactly as commanded: no rate error is learned, and the
    // nudge follows the slightly smaller gap.
    let closer = coordinator.correct(
      syncSeen(109.002 + 0.1 * 0.998), at: syncLocal(10.1), clock: syncClock)
    #expect(abs(coordinator.rateError) < 1e-9)
    #expect(abs(try #require(closer.first.flatMap(syncRate)) - 0.9982) < 1e-9)
    // Under 20 ms the nudge never exceeds 0.5 %.
    let c = SyncConfiguration()
    for gap in stride(from: -0.0199, through: 0.0199, by: 0.0007) {
      #expect(abs(c.nudge(forGap: gap)) <= 0.005 + 1e-12)
    }
    // Beyond 20 ms it grows faster: 50 ms behind → 0.5 % + 3 %.
    var (behind, _) = syncSettledCoordinator()
    let faster = behind.correct(syncSeen(108.95), at: syncLocal(10), clock: syncClock)
    #expect(abs(try #require(faster.first.flatMap(syncRate)) - 1.035) < 1e-9)
    // Capped at the maximum nudge.
    var (far, _) = syncSettledCoordinator()
    let capped = far.correct(syncSeen(109.09), at: syncLocal(10), clock: syncClock)
    #expect(abs(try #require(capped.first.flatMap(syncRate)) - 0.95) < 1e-9)
    // Within the deadband: back to the group's rate, once.
    let close = coordinator.correct(
      syncSeen(109.102 + 0.00005), at: syncLocal(10.102), clock: syncClock)
    #expect(close.count == 1)
    #expect(abs((close.first.flatMap(syncRate) ?? 0) - 1) < 1e-9)
    #expect(!coordinator.isNudged)
    #expect(
      coordinator.correct(syncSeen(109.202 + 0.00005), at: syncLocal(10.202), clock: syncClock)
        == [])
  }

  @Test("the nudge scales with the group's rate")
  func playbackCoordinatorNudgeScalesWithRate() throws {
    var (coordinator, _) = syncSettledCoordinator(rate: 2)
    // At local 10 s the group shows 100 + 2 × 9 = 118.
    let ahead = coordinator.correct(syncSeen(118.002, rate: 2), at: syncLocal(10), clock: syncClock)
    #expect(abs(try #require(ahead.first.flatMap(syncRate)) - 2 * 0.998) < 1e-9)
  }

  @Test("a player's own rate error is learned and compensated in every rate it is given")
  func playbackCoordinatorLearnsRateError() throws {
    var (coordinator, _) = syncSettledCoordinator()
    // A player 300 ppm fast, exactly on the timeline at first.
    var commanded = 1.0
    var position = 109.0
    var rates: [Double] = []
    for step in 0..<300 {
      let t = 10 + Double(step) * 0.05
      if step > 0 { position += 0.05 * commanded * (1 + 300e-6) }
      for command in coordinator.correct(syncSeen(position), at: syncLocal(t), clock: syncClock) {
        if let r = syncRate(command) {
          commanded = r
          rates.append(r)
        }
      }
    }
    #expect(abs(coordinator.rateError - 300e-6) < 5e-6)
    // Compensated: it now advances at the group's rate, and the gap never grew past 0.1 ms.
    #expect(abs(commanded * (1 + 300e-6) - 1) < 5e-6)
    #expect(abs(try #require(coordinator.lastGap)) < 1e-4, "\(coordinator.lastGap ?? 0)")
    #expect(rates.allSatisfy { abs($0 - 1) < 0.005 })
  }

  @Test("a jump is not taken for a rate error")
  func playbackCoordinatorIgnoresJumpsForRateError() {
    var (coordinator, _) = syncSettledCoordinator()
    _ = coordinator.correct(syncSeen(109), at: syncLocal(10), clock: syncClock)
    // 30 ms of decoder skip within 50 ms: a gap to close, not a 60 % rate error.
    _ = coordinator.correct(syncSeen(109.08), at: syncLocal(10.05), clock: syncClock)
    #expect(coordinator.rateError == 0)
  }

  @Test("a large gap restarts the player at a near-future instant on the timeline")
  func playbackCoordinatorRestartsOnLargeGap() {
    var (coordinator, _) = syncSettledCoordinator()
    let commands = coordinator.correct(syncSeen(111), at: syncLocal(10), clock: syncClock)
    #expect(commands.count == 1)
    guard case .play(let itemTime, let startAt, let rate) = commands.first else {
      Issue.record("expected a play, got \(commands)")
      return
    }
    let lead = SyncConfiguration().restartLead
    #expect(startAt == syncLocal(10 + lead))
    #expect(abs(itemTime - (109 + lead)) < 1e-6)
    #expect(rate == 1)
  }

  @Test("seek latency is not drift: nothing is measured until the player is ready and settled")
  func playbackCoordinatorIgnoresUnsettledObservations() {
    var (coordinator, _) = syncSettledCoordinator()
    let restart = coordinator.correct(syncSeen(111), at: syncLocal(10), clock: syncClock)
    #expect(restart.count == 1)
    // Busy seeking: shows a stale position.
    #expect(
      coordinator.correct(syncSeen(111, busy: true), at: syncLocal(10.1), clock: syncClock) == [])
    // Ready, prerolled and waiting for its start at 10.25: still shows 109.25.
    #expect(
      coordinator.correct(syncSeen(109.25, rate: 0), at: syncLocal(10.2), clock: syncClock) == [])
    #expect(coordinator.correct(syncSeen(109.25), at: syncLocal(10.25), clock: syncClock) == [])
    // Within the settle time after the start: not trusted.
    #expect(coordinator.correct(syncSeen(109.5), at: syncLocal(10.28), clock: syncClock) == [])
    // Settled: a real gap is corrected again.
    let nudge = coordinator.correct(syncSeen(109.45), at: syncLocal(10.4), clock: syncClock)
    #expect(nudge.first.flatMap(syncRate).map { $0 < 1 } == true)
    // The player was prerolled and started on time: its busy time was the wait for the
    // scheduled start, not its latency, so nothing is learned.
    #expect(coordinator.startupLatency == nil)
  }

  @Test(
    "no correction while a coordinated start is still ahead, or while stalled or on another item")
  func playbackCoordinatorWaitsForStart() {
    var coordinator = PlaybackCoordinator(participant: syncMe)
    let state = syncState(timeline: syncTimeline(0, startsAt: 5))
    _ = coordinator.adopt(state, at: syncLocal(0), clock: syncClock)
    for t in stride(from: 0.1, through: 4.9, by: 0.1) {
      #expect(coordinator.correct(syncSeen(0, rate: 0), at: syncLocal(t), clock: syncClock) == [])
    }
    let stalled = PlayerObservation(item: syncItemA, position: 1, rate: 0, isStalled: true)
    #expect(coordinator.correct(stalled, at: syncLocal(8), clock: syncClock) == [])
    let wrongItem = PlayerObservation(item: syncItemB, position: 50, rate: 1)
    #expect(coordinator.correct(wrongItem, at: syncLocal(9), clock: syncClock) == [])
  }

  @Test("while the group is paused, a player off the pause point is paused there again")
  func playbackCoordinatorRepausesOffPoint() {
    var coordinator = PlaybackCoordinator(participant: syncMe)
    let state = syncState(timeline: syncTimeline(754.5, startsAt: 0, rate: 0))
    #expect(
      coordinator.adopt(state, at: syncLocal(0), clock: syncClock) == [
        .load(item: syncItemA, at: 754.5), .pause(at: 754.5),
      ])
    let there = PlayerObservation(item: syncItemA, position: 754.5, rate: 0)
    #expect(coordinator.correct(there, at: syncLocal(0.1), clock: syncClock) == [])
    #expect(coordinator.correct(there, at: syncLocal(0.2), clock: syncClock) == [])
    // It overshot (as mpv does by ~150 ms).
    let overshot = PlayerObservation(item: syncItemA, position: 754.65, rate: 0)
    #expect(
      coordinator.correct(overshot, at: syncLocal(0.3), clock: syncClock) == [.pause(at: 754.5)])
    #expect(abs((coordinator.lastGap ?? 0) - 0.15) < 1e-9)
    // Still playing although the group is paused.
    #expect(coordinator.correct(there, at: syncLocal(0.4), clock: syncClock) == [])
    let moving = PlayerObservation(item: syncItemA, position: 754.5, rate: 1)
    #expect(
      coordinator.correct(moving, at: syncLocal(0.5), clock: syncClock) == [.pause(at: 754.5)])
    // A player that never gets there is asked three times in all, not forever.
    var repaused = 2
    for t in stride(from: 0.6, through: 10, by: 0.1) {
      repaused += coordinator.correct(overshot, at: syncLocal(t), clock: syncClock).count
    }
    #expect(repaused == 3)
  }
}

// MARK: - Drift correction, simulated

@Suite("PlaybackCoordinator keeps a simulated drifting player in sync")
struct PlaybackCoordinatorSimulationTests {
  /// The group starts item time 0 at local 1 s, at rate 1.
  static let start = syncState(timeline: syncTimeline(0, startsAt: 1))

  @Test(
    "±500 ppm players stay within 1 ms for ten minutes without a seek", arguments: [500.0, -500.0])
  func playbackCoordinatorHoldsDriftingPlayer(ppm: Double) {
    var sim = SyncSimulation(player: SyncSimPlayer(ppm: ppm), state: Self.start)
    sim.run(until: 600)
    #expect(sim.restarts() == 0)
    #expect(sim.largestGap(from: 3) <= 0.02)
    // Its rate error learned, it is in fact held within a millisecond, with nudges
    // (compensation included) inaudibly small.
    #expect(sim.largestGap(from: 10) <= 0.001)
    #expect(abs(sim.coordinator.rateError - ppm * 1e-6) < 10e-6)
    #expect(sim.largestNudge() <= 0.005)
    #expect(sim.gaps.count > 5900)
    #expect(abs(sim.coordinator.lastGap ?? 1) < 0.0005)
  }

  @Test("an undisturbed exact player gets no commands at all")
  func playbackCoordinatorLeavesExactPlayerAlone() {
    var sim = SyncSimulation(player: SyncSimPlayer(ppm: 0), state: Self.start)
    sim.run(until: 120)
    #expect(sim.corrections.isEmpty)
    #expect(sim.largestGap(from: 1) < 1e-6)
  }

  @Test("a 2 s gap is fixed by one seek", arguments: [2.0, -2.0])
  func playbackCoordinatorFixesLargeGap(jump: Double) {
    var sim = SyncSimulation(player: SyncSimPlayer(ppm: 300), state: Self.start)
    sim.run(until: 60)
    sim.player.jump(by: jump, at: sim.now)
    sim.run(until: 180)
    #expect(sim.restarts(from: 60) == 1)
    #expect(sim.restarts(from: 60.2) == 0)
    #expect(sim.largestGap(from: 61) <= 0.02)
    #expect(sim.largestNudge(from: 60) <= 0.01)
  }

  @Test(
    "200 ms of seek latency causes no oscillation and no extra seeks",
    arguments: [true, false])
  func playbackCoordinatorSeekLatencyIsNotDrift(computesLateStart: Bool) {
    var player = SyncSimPlayer(ppm: -500, startupLatency: 0.2, loadLatency: 0.8)
    player.computesLateStart = computesLateStart
    var sim = SyncSimulation(player: player, state: Self.start)
    sim.run(until: 30)
    sim.player.jump(by: -1, at: sim.now)
    sim.run(until: 100)
    sim.player.jump(by: 0.7, at: sim.now)
    sim.run(until: 200)
    #expect(sim.restarts() == 2)
    #expect(sim.restarts(from: 30.15, to: 100) == 0)
    #expect(sim.restarts(from: 100.15) == 0)
    // Latency taken for drift would show as a large nudge after each restart.
    #expect(sim.largestNudge() <= 0.01)
    #expect(sim.largestGap(from: 3, to: 29.9) <= 0.02)
    #expect(sim.largestGap(from: 31, to: 99.9) <= 0.02)
    #expect(sim.largestGap(from: 101) <= 0.02)
  }

  @Test("a naive slow-starting player: the start-up latency is learned and used as lead")
  func playbackCoordinatorLearnsStartupLatency() {
    var player = SyncSimPlayer(ppm: 0, startupLatency: 0.6, loadLatency: 0.3)
    player.computesLateStart = false
    var sim = SyncSimulation(player: player, state: Self.start)
    sim.run(until: 20)
    sim.player.jump(by: 1.5, at: sim.now)
    sim.run(until: 60)
    let learned = sim.coordinator.startupLatency ?? 0
    #expect(learned >= 0.6 - 1e-9)
    #expect(learned <= 0.8)
    // The second restart leads by the learned latency: the player prerolls and starts on time.
    sim.player.jump(by: -1.5, at: sim.now)
    sim.run(until: 120)
    #expect(sim.restarts(from: 60) == 1)
    #expect(sim.largestNudge(from: 60) <= 0.01)
    #expect(sim.largestGap(from: 61.5) <= 0.005)
  }

  @Test("a group pause mid-play snaps the drifting player to the pause point")
  func playbackCoordinatorSimulatedPause() {
    var sim = SyncSimulation(player: SyncSimPlayer(ppm: 500), state: Self.start)
    sim.run(until: 50)
    var paused = Self.start
    paused.session!.timeline = syncTimeline(49.2, startsAt: 50, rate: 0)
    paused.sequence += 1
    sim.state = paused
    for command in sim.coordinator.adopt(paused, at: sim.now, clock: syncClock) {
      sim.player.perform(command, at: sim.now)
    }
    sim.run(until: 60)
    let seen = sim.player.observe(at: sim.now)
    #expect(seen.position == 49.2)
    #expect(seen.rate == 0)
    #expect(sim.corrections.filter { $0.at > 50 }.allSatisfy { syncRate($0.command) == nil })
  }
}

@Suite("PlaybackCoordinator schedules starts it can make")
struct PlaybackCoordinatorSchedulingTests {
  @Test("a late joiner whose anchor is past starts later on the same line instead of late")
  func lateJoinerStartsInStep() {
    var player = SyncSimPlayer(ppm: 0, startupLatency: 0.3, loadLatency: 0.2)
    player.computesLateStart = true
    var sim = SyncSimulation(player: player, state: PlaybackCoordinatorSimulationTests.start)
    sim.run(until: 20)
    // Once the latency is known, a restart of the same timeline (as a late joiner would
    // adopt it, anchored in the past) lands in step.
    let restartsBefore = sim.restarts()
    sim.player.jump(by: -0.9, at: sim.now)
    sim.run(until: 40)
    #expect(sim.restarts() == restartsBefore + 1)
    #expect(sim.largestGap(from: 21.5) <= 0.005)
  }

  @Test("busy time before a scheduled start is not taken for start-up latency")
  func prerollIsNotLatency() {
    var coordinator = PlaybackCoordinator(participant: syncMe)
    // The group starts 2 s from now: the player prerolls and reports busy until then.
    _ = coordinator.adopt(
      syncState(timeline: syncTimeline(0, startsAt: 2)), at: syncLocal(0), clock: syncClock)
    _ = coordinator.correct(syncSeen(0, busy: true), at: syncLocal(1), clock: syncClock)
    _ = coordinator.correct(syncSeen(0, busy: true), at: syncLocal(1.99), clock: syncClock)
    _ = coordinator.correct(syncSeen(0.01), at: syncLocal(2.01), clock: syncClock)
    _ = coordinator.correct(syncSeen(0.2), at: syncLocal(2.2), clock: syncClock)
    #expect(coordinator.startupLatency == nil)
  }
}
