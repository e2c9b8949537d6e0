import Foundation
import PlaybackCoordination

/// The simulated player's state machine, a value type advanced lazily to each instant it
/// is asked about. Everything happens at computed instants (a stall begins exactly when its
/// playing-time countdown runs out, an item ends exactly when the position reaches the
/// duration), so the outcome does not depend on how often the owner looks.
struct SimulatedPlayback: Sendable {
  enum Phase: Hashable, Sendable {
    case idle
    /// Busy until `until`, the picture frozen.
    case loading(until: LocalInstant)
    case seeking(until: LocalInstant)
    /// Told to play; able to start at `until`.
    case starting(until: LocalInstant)
    /// Ready, showing the start frame, waiting for a coordinated start at `until`.
    case prerolled(until: LocalInstant)
    /// Playing on the old anchor until `until`, then jumping to the new play target.
    case retargeting(until: LocalInstant)
    case paused
    case playing
    /// Not advancing until `until`; then resumes where it froze, or (`retarget`) goes to
    /// the play target given during the stall.
    case stalled(until: LocalInstant, retarget: Bool)
    case ended
  }

  /// Where the player is headed once it is ready.
  enum Intent: Hashable, Sendable {
    case pause(at: Double)
    /// Show `itemTime` at `startAt`, then advance at `rate`.
    case play(itemTime: Double, startAt: LocalInstant, rate: Double)
  }

  let configuration: SimulatedPlayerConfiguration
  private var random: SeededGenerator
  private(set) var item: SimulatedItem?
  private(set) var problem: String?
  private(set) var phase: Phase = .idle
  private var intent: Intent = .pause(at: 0)
  private(set) var position: Double = 0
  /// The nominal rate while advancing.
  private(set) var rate: Double = 1
  /// The last instant processed; time never goes back.
  private var time: LocalInstant?
  /// While advancing, the position is `anchorPosition + rate × clockFactor × (t − anchorTime)`:
  /// computed from the anchor rather than accumulated, so how often the owner looks does
  /// not change the result.
  private var anchorTime: LocalInstant?
  private var anchorPosition: Double = 0
  /// While playing: when the next stall begins.
  private var stallDue: LocalInstant?
  /// While not playing: seconds of playing left before the next stall (nil: not drawn yet).
  private var stallBudget: Double?
  /// The length of the next stall when one was injected (instead of a drawn length).
  private var injectedStallLength: Double?
  private var events: [PlayerEvent] = []
  /// When the latest play or seek is (or will be) prepared: its seek and preroll done.
  private(set) var preparedAt: LocalInstant?

  init(configuration: SimulatedPlayerConfiguration) {
    self.configuration = configuration
    self.random = SeededGenerator(seed: configuration.seed)
  }

  private var clockFactor: Double { 1 + configuration.driftPPM * 1e-6 }
  private var duration: Double { item?.duration ?? 0 }

  var isBusy: Bool {
    switch phase {
    case .loading, .seeking, .starting, .prerolled, .retargeting: true
    default: false
    }
  }
  var isStalled: Bool { if case .stalled = phase { true } else { false } }
  var isAdvancing: Bool {
    switch phase {
    case .playing, .retargeting: true
    default: false
    }
  }

  var state: PlayerState {
    switch phase {
    case .idle: .idle
    case .loading: .loading
    case .seeking: .seeking
    case .starting, .prerolled: .starting
    case .retargeting, .playing: .playing
    case .paused: .paused
    case .stalled: .stalled
    case .ended: .ended
    }
  }

  mutating func takeEvents() -> [PlayerEvent] {
    defer { events.removeAll() }
    return events
  }

  // MARK: - Time

  /// Moves the simulation to `now`, firing every transition due on the way.
  mutating func advance(to now: LocalInstant) {
    guard let start = time else {
      time = now
      return
    }
    if now < start { return }
    while true {
      let t = time!
      switch phase {
      case .idle, .paused, .ended:
        time = now
        return
      case .loading(let u), .seeking(let u), .starting(let u):
        guard u <= now else {
          time = now
          return
        }
        time = max(u, t)
        if case .loading = phase, let item { events.append(.loaded(item.id, at: time!)) }
        resolveIntent()
      case .prerolled(let u):
        guard u <= now else {
          time = now
          return
        }
        time = max(u, t)
        resolveIntent()
      case .retargeting(let u):
        let stop = min(u, now)
        if let end = endInstant(), end <= stop {
          move(to: end)
          reachEnd()
          continue
        }
        move(to: stop)
        if u > now { return }
        resolveIntent()
      case .playing:
        let end = endInstant()
        let stall = stallInstant()
        let next = [end, stall].compactMap { $0 }.min()
        guard let next, next <= now else {
          move(to: now)
          return
        }
        move(to: next)
        if let end, end == next {
          reachEnd()
        } else {
          beginStall()
        }
      case .stalled(let u, let retarget):
        guard u <= now else {
          time = now
          return
        }
        time = max(u, t)
        events.append(.stallEnded(at: time!, position: position))
        if retarget {
          resolveIntent()
        } else {
          startPlaying(from: position, rate: rate)
        }
      }
    }
  }

  /// Moves to `t`; in an advancing phase the position follows the anchor.
  private mutating func move(to t: LocalInstant) {
    guard let from = time, t >= from else { return }
    if isAdvancing, let anchorTime {
      position = min(duration, anchorPosition + rate * clockFactor * t.seconds(since: anchorTime))
    }
    time = t
  }

  private func endInstant() -> LocalInstant? {
    guard let anchorTime, rate > 0, item != nil else { return nil }
    let seconds = max(0, (duration - anchorPosition) / (rate * clockFactor))
    return anchorTime.advanced(bySeconds: seconds)
  }

  private func stallInstant() -> LocalInstant? { rate > 0 ? stallDue : nil }

  /// Changes phase, keeping the stall countdown to playing time only and re-anchoring the
  /// position whenever the new phase advances.
  private mutating func setPhase(_ new: Phase) {
    let wasPlaying = phase == .playing
    let willPlay = new == .playing
    if wasPlaying && !willPlay, let due = stallDue, let time {
      stallBudget = max(0, due.seconds(since: time))
      stallDue = nil
    }
    phase = new
    if willPlay && !wasPlaying, let time {
      if stallBudget == nil { drawStallBudget() }
      stallDue = stallBudget.map { time.advanced(bySeconds: $0) }
      stallBudget = nil
    }
    reanchor()
  }

  private mutating func reanchor() {
    anchorTime = isAdvancing ? time : nil
    anchorPosition = position
  }

  private mutating func reachEnd() {
    position = duration
    setPhase(.ended)
    if let item, let time { events.append(.ended(item.id, at: time)) }
  }

  private mutating func beginStall() {
    let length = injectedStallLength ?? random.value(in: configuration.stallDuration)
    injectedStallLength = nil
    stallDue = nil
    setPhase(.stalled(until: time!.advanced(bySeconds: length), retarget: false))
    events.append(.stallBegan(at: time!, position: position))
  }

  /// Makes the player stall for `duration` seconds: at once if it is playing, otherwise the
  /// moment it next plays. For demos and tests that need a stall at a known time.
  mutating func injectStall(duration: Double, at now: LocalInstant) {
    advance(to: now)
    injectedStallLength = max(0, duration)
    if phase == .playing {
      beginStall()
    } else {
      stallDue = nil
      stallBudget = 0
    }
  }

  private mutating func drawStallBudget() {
    guard configuration.stallsPerSecond > 0 else { return }
    // Exponential waiting time: stalls are a Poisson process over playing time. At least
    // a millisecond, so that time always moves on between stalls.
    let u = Double.random(in: Double.ulpOfOne...1, using: &random)
    stallBudget = max(0.001, -log(u) / configuration.stallsPerSecond)
  }

  private mutating func startPlaying(from start: Double, rate: Double) {
    self.rate = rate
    position = min(max(0, start), duration)
    if position >= duration {
      reachEnd()
      return
    }
    setPhase(.playing)
  }

  /// The player has become ready at `time`: go where the intent says.
  private mutating func resolveIntent() {
    switch intent {
    case .pause(let at):
      position = min(max(0, at), duration)
      setPhase(position >= duration ? .ended : .paused)
    case .play(let itemTime, let startAt, let rate):
      let now = time!
      if startAt > now {
        position = min(max(0, itemTime), duration)
        setPhase(.prerolled(until: startAt))
      } else {
        startPlaying(from: itemTime + rate * now.seconds(since: startAt), rate: rate)
      }
    }
  }

  private mutating func endStallEarly() {
    if case .stalled = phase, let time { events.append(.stallEnded(at: time, position: position)) }
  }

  /// A play target this close to where the player would be anyway needs no seek, seconds.
  static let seamlessGap = 0.05

  /// Where the advancing player would be at `t` if nothing changed.
  private func projectedPosition(at t: LocalInstant, from now: LocalInstant) -> Double {
    position + rate * clockFactor * t.seconds(since: now)
  }

  /// Whether a retargeting player already prepares a switch to `itemTime` at `startAt`.
  private func isPending(itemTime: Double, startAt: LocalInstant) -> Bool {
    guard case .play(let pending, let pendingStart, _) = intent else { return false }
    return abs(pendingStart.seconds(since: startAt)) < 1e-3 && abs(pending - itemTime) < 1e-3
  }

  // MARK: - Commands

  mutating func perform(
    _ command: PlayerCommand, at now: LocalInstant, resolver: (ItemID) -> SimulatedItem?
  ) {
    advance(to: now)
    let now = max(now, time ?? now)
    switch command {
    case .load(let id, let at):
      endStallEarly()
      guard let resolved = resolver(id) else {
        item = nil
        // A link needs a real player: said plainly, so that the person knows what to do.
        problem =
          LinkItem.isLink(id)
          ? "the simulated player cannot play links (\(LinkItem.host(of: id.rawValue))): join with --player mpv to watch it"
          : PlayerObservation.noFile(for: id)
        position = 0
        setPhase(.idle)
        events.append(.loadFailed(id, at: now))
        return
      }
      item = resolved
      problem = nil
      preparedAt = nil
      position = min(max(0, at), resolved.duration)
      intent = .pause(at: at)
      setPhase(
        .loading(until: now.advanced(bySeconds: random.value(in: configuration.loadLatency))))

    case .play(let itemTime, let startAt, let newRate):
      guard item != nil else { return }
      let r = max(0, newRate)
      let latency = random.value(in: configuration.playLatency)
      let ready: LocalInstant
      switch phase {
      case .idle:
        return
      case .loading(let u):
        ready = max(u, now.advanced(bySeconds: latency))
        setPhase(.loading(until: ready))
      case .seeking(let u):
        ready = max(u, now.advanced(bySeconds: latency))
        setPhase(.seeking(until: ready))
      case .stalled(let u, _):
        ready = max(u, now.advanced(bySeconds: latency))
        setPhase(.stalled(until: u, retarget: true))
      case .starting, .prerolled, .paused, .ended:
        ready = now.advanced(bySeconds: latency)
        setPhase(.starting(until: ready))
      case .playing, .retargeting:
        if phase == .playing,
          abs(projectedPosition(at: startAt, from: now) - itemTime) < Self.seamlessGap
        {
          // Already on the new line (a rate change): no seek, it only switches at startAt.
          ready = now
        } else if phase != .playing, isPending(itemTime: itemTime, startAt: startAt) {
          // The same switch asked again (say with another rate): its preparation goes on.
          ready = max(now, preparedAt ?? now)
        } else {
          ready = now.advanced(bySeconds: latency)
        }
      }
      preparedAt = ready
      // Late (start instant already past, or too close to make): start where the group was
      // when the command arrived, once ready — late by the latency, as a real player is.
      let target = itemTime + r * max(0, now.seconds(since: startAt))
      let start = max(startAt, ready)
      intent = .play(itemTime: target, startAt: start, rate: r)
      switch phase {
      case .playing, .retargeting: setPhase(.retargeting(until: start))
      default: break
      }

    case .pause(let at):
      guard item != nil else { return }
      intent = .pause(at: at)
      switch phase {
      case .idle, .loading, .seeking:
        break
      default:
        endStallEarly()
        position = min(max(0, at), duration)
        setPhase(position >= duration ? .ended : .paused)
      }

    case .seek(let to):
      guard item != nil else { return }
      let target = min(max(0, to), duration)
      let ready = now.advanced(bySeconds: random.value(in: configuration.seekLatency))
      let until: LocalInstant
      switch phase {
      case .idle:
        return
      case .loading(let u):
        until = max(u, ready)
        setPhase(.loading(until: until))
      case .seeking(let u), .starting(let u):
        until = max(u, ready)
        setPhase(.seeking(until: until))
      default:
        endStallEarly()
        until = ready
        setPhase(.seeking(until: until))
      }
      preparedAt = until
      switch intent {
      case .pause: intent = .pause(at: target)
      case .play(_, let startAt, let r):
        intent = .play(itemTime: target, startAt: max(startAt, until), rate: r)
      }

    case .setRate(let newRate):
      guard item != nil else { return }
      let r = max(0, newRate)
      if case .play(let x, let startAt, let old) = intent {
        intent =
          startAt < now
          ? .play(itemTime: x + old * now.seconds(since: startAt), startAt: now, rate: r)
          : .play(itemTime: x, startAt: startAt, rate: r)
      }
      switch phase {
      case .playing, .retargeting, .stalled:
        reanchor()
        rate = r
      default: break
      }

    case .unload:
      endStallEarly()
      item = nil
      problem = nil
      setPhase(.idle)
      position = 0
      intent = .pause(at: 0)
      preparedAt = nil
    }
  }
}
