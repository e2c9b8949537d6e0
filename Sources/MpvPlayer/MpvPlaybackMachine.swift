import PlaybackCoordination

/// What the mpv driver does, as a state machine: player commands, mpv's replies and events,
/// and timers go in, each with the local time; requests for mpv and the next instant to be
/// woken come out. Pure, so that the whole protocol with mpv is tested without mpv.
///
/// How it drives mpv (0.35, JSON IPC), from what was measured of it:
/// - Every move that must land exactly (load, pause, a seek) pauses mpv and seeks
///   `absolute+exact`; the player is busy until mpv's `playback-restart` event (a seek's
///   reply only means the seek was queued).
/// - A start at a scheduled instant prepares first (paused, seeked to the start frame)
///   and then unpauses at the instant less the steady unpause lateness
///   (``Configuration/unpauseLead``). An exact seek in a video lands on a frame, not at
///   the time asked (mpv 0.35: mostly the first frame at or after it, up to a frame
///   later), and playing goes on from that frame: the driver reads where it landed
///   (`time-pos`, exact while paused) and unpauses when the group's line reaches it.
/// - A seek while playing keeps playing until shortly before the switch instant (the
///   player's learned seek latency), so it shows the old spot as long as it can.
/// - A rate change is prepared like a seek too: mpv plays the audio it has buffered (up to
///   0.4 s with `--ao=null`) at the old speed, so only a seek starts a new speed exactly.
/// - Where the player is comes from `audio-pts` (continuous, unlike `time-pos`, which moves
///   in whole frames), polled while playing and timestamped at the midpoint of request and
///   reply; `time-pos` only when there is no audio. Readings just after a start
///   (``Configuration/startSettling``) and single readings far from the model
///   (``Configuration/outlier``) are not believed: mpv's clock jumps there, its player does
///   not. A reading whose exchange took long is believed in part: its midpoint may be off
///   by half the exchange (``Configuration/trustedExchange``).
public struct MpvPlaybackMachine: Sendable {
  public struct Configuration: Hashable, Sendable {
    /// How often the audio clock is read while playing, seconds.
    public var pollInterval: Double
    /// mpv starts about this long after `pause=false` is sent, so it is sent this much
    /// early; the machine then learns the real lateness from its audio clock.
    public var unpauseLead: Double
    /// A seek's preparation time until one is measured, seconds.
    public var defaultSeekLatency: Double
    /// A play target this close to where the player will be anyway needs no seek, seconds.
    public var seamlessGap: Double
    /// How long after a `speed` change mpv's picture and sound follow it, seconds, until
    /// measured: mpv plays the audio it has already filtered at the old speed (0.39 s
    /// measured with mpv 0.35.1 and `--ao=null`), while its audio clock jumps at once.
    public var speedDelay: Double
    /// For benchmarks: every speed sent to mpv is off by this fraction, as a drifting
    /// sound card would make it (the machine does not know; the coordinator must learn it).
    public var injectedSpeedError: Double = 0
    /// How long after a scheduled start mpv's audio clock is not believed, seconds: just
    /// after an unpause it reads up to ~35 ms off and then comes back (measured with mpv
    /// 0.35.1, `--ao=null`), so the model stays on the schedule meanwhile, and the
    /// unpause lateness is learned from the first reading after it.
    public var startSettling: Double
    /// A reading this far from the schedule during ``startSettling`` is believed at once,
    /// seconds: mpv really started late (a loaded machine), far past the clock's settling.
    public var startMiss: Double
    /// A reading of the audio clock this far from the model, when the one before agreed
    /// with it, is held until the next reading confirms it, seconds: mpv's clock now and
    /// then reads several ms off for one reading (steady play, measured), while a real
    /// player moves by micro-seconds between two readings.
    public var outlier: Double
    /// An exchange with mpv this quick, or at most twice the quickest lately, gives a
    /// reading believed in full, seconds; a slower one moves the model by
    /// `(trusted / exchange)²` of what it says within half the exchange (the midpoint of a
    /// 1.4 ms exchange, mpv's p99, may be 0.7 ms from the instant mpv read its clock, while
    /// the model drifts by microseconds between two readings), and fully beyond that.
    public var trustedExchange: Double
    /// A reading unanswered this long while playing makes the player stalled, seconds: mpv
    /// stopped answering (frozen, a stopped process, a machine swapping), so its picture is
    /// not known to follow the group, and the group's waiting policy applies as for a
    /// stall. Its next answer brings it back.
    public var unanswered: Double = 1

    public init(
      pollInterval: Double = 0.05, unpauseLead: Double = 0.0005, defaultSeekLatency: Double = 0.08,
      seamlessGap: Double = 0.05, speedDelay: Double = 0.39, startSettling: Double = 0.3,
      startMiss: Double = 0.05, outlier: Double = 0.002, trustedExchange: Double = 0.0003
    ) {
      self.outlier = outlier
      self.trustedExchange = trustedExchange
      self.startSettling = startSettling
      self.startMiss = startMiss
      self.pollInterval = pollInterval
      self.unpauseLead = unpauseLead
      self.defaultSeekLatency = defaultSeekLatency
      self.seamlessGap = seamlessGap
      self.speedDelay = speedDelay
    }
  }

  public enum Effect: Hashable, Sendable {
    case send(MpvRequest)
  }

  private enum Phase: Hashable, Sendable {
    case idle
    /// A load or seek was sent; ready at the next `playback-restart` after its reply.
    /// `load`: the file itself is loading (mpv cannot seek in it yet).
    case preparing(request: Int, replied: Bool, since: LocalInstant, load: Bool)
    /// Paused on the start frame, unpausing at the scheduled instant.
    case prerolled
    case playing
    case paused
    case ended
  }

  private enum Intent: Hashable, Sendable {
    case pause(at: Double)
    case play(itemTime: Double, startAt: LocalInstant, rate: Double)
  }

  /// Property observation ids.
  static let observed: [MpvProperty] = [.pause, .pausedForCache, .eofReached, .duration, .speed]

  public let configuration: Configuration
  private var nextID = 1
  private var phase: Phase = .idle
  private var intent: Intent = .pause(at: 0)
  public private(set) var item: ItemID?
  public private(set) var duration: Double?
  /// The picture: `position` at `anchor`, advancing at `effective` while playing, which
  /// becomes each `pending` speed at its `effectiveAt`.
  private var position = 0.0
  private var anchor: LocalInstant?
  /// The speed last asked of mpv.
  private var speed = 1.0
  private var effective = 1.0
  private struct SpeedChange: Hashable, Sendable {
    var sentAt: LocalInstant
    var effectiveAt: LocalInstant
    var from: Double
    var to: Double
    var measured = false

    /// Sent, and not yet played out: mpv's audio clock counts it, its picture not yet.
    func isInFlight(at instant: LocalInstant) -> Bool {
      sentAt <= instant && instant < effectiveAt
    }
  }
  private var pending: [SpeedChange] = []
  /// How long mpv takes to follow a speed change, seconds (learned).
  public private(set) var speedDelay: Double
  private var stalled = false
  /// Stalled because a reading went unanswered (see ``Configuration/unanswered``).
  private var silent = false
  private var preparedAt: LocalInstant?
  /// Why the player cannot follow (mpv gone, no file), if it cannot.
  public private(set) var problem: String?
  /// mpv is gone (quit, crashed, its socket closed): nothing it is told matters any more.
  public private(set) var isLost = false
  /// Held paused as if starved of input until then (see ``hold(until:at:)``).
  public private(set) var heldUntil: LocalInstant?
  /// Scheduled actions.
  private var unpauseAt: LocalInstant?
  private var switchAt: LocalInstant?
  private var nextPoll: LocalInstant?
  private var poll: (id: Int, sentAt: LocalInstant)?
  /// The quickest recent exchange with mpv (rises slowly when they all slow down), seconds.
  private var quickestExchange: Double?
  private var pollProperty = MpvProperty.audioPTS
  private var audioSeen = false
  /// How early `pause=false` is sent before a scheduled start, seconds (learned).
  public private(set) var unpauseLead: Double
  /// How late the next scheduled start is sent on purpose (see ``delayNextStart(by:)``).
  public private(set) var nextStartDelay = 0.0
  /// The start whose lateness the next audio reading measures.
  private var scheduledStart: (itemTime: Double, at: LocalInstant)?
  /// The query asking where the last seek for a start landed, and where it was asked to.
  private var landing: (request: Int, target: Double)?
  /// A reading's distance from the model, held until the next reading confirms it.
  private var suspect: Double?
  private var audioMisses = 0
  /// What mpv was last told, and the changes it has yet to report back (with when they
  /// were asked), to tell the driver's own changes from the person's.
  private var sentPause = true
  private var sentSpeed = 1.0
  private var expectedPause: [(value: Bool, at: LocalInstant)] = []
  private var expectedSpeed: [(value: Double, at: LocalInstant)] = []
  private var clockNow = LocalInstant(nanoseconds: 0)
  /// A seek made in mpv itself: its position is read once mpv restarts.
  private var userSeek: (pending: Bool, query: Int?) = (false, nil)
  /// What the person did in mpv, not yet taken.
  private var userActions: [PlayerUserAction] = []
  /// How long the current preparation was put off (a seek while playing plays on).
  private var deferredBy = 0.0
  /// Where the current file was opened, and where the latest seek went.
  private var loadedAt = 0.0
  private var seekTarget = 0.0

  private var isLoading: Bool {
    if case .preparing(_, _, _, true) = phase { true } else { false }
  }
  /// mpv is paused by the driver on its way somewhere (opening, seeking, on a start frame).
  private var isHeldByDriver: Bool {
    switch phase {
    case .preparing, .prerolled: true
    default: false
    }
  }
  /// The player's seek latency as measured (rises at once, falls slowly), seconds.
  public private(set) var seekLatency: Double

  public init(configuration: Configuration = .init()) {
    self.configuration = configuration
    seekLatency = configuration.defaultSeekLatency
    unpauseLead = configuration.unpauseLead
    speedDelay = configuration.speedDelay
  }

  // MARK: - Inputs

  /// The first requests, once connected: the properties the driver follows.
  public mutating func start() -> [Effect] {
    Self.observed.enumerated().map { index, property in
      request(.observe(id: index + 1, property))
    }
  }

  /// A coordinator's command; `path` is the file for a `load`, if there is one.
  public mutating func perform(_ command: PlayerCommand, path: String?, at now: LocalInstant)
    -> [Effect]
  {
    clockNow = now
    settle(at: now)
    switch command {
    case .load(let id, let at):
      cancelScheduled()
      guard let path else {
        item = nil
        phase = .idle
        problem = PlayerObservation.noFile(for: id)
        return []
      }
      item = id
      duration = nil
      problem = nil
      pollProperty = .audioPTS
      audioSeen = false
      audioMisses = 0
      stalled = false
      intent = .pause(at: at)
      freeze(at: max(0, at))
      let load = request(.loadPaused(path: path, start: max(0, at)))
      loadedAt = max(0, at)
      return [load] + prepare(after: load, at: now, load: true)

    case .play(let itemTime, let startAt, let rate):
      guard item != nil, phase != .idle else { return [] }
      let rate = max(0.01, rate)
      if isLoading {
        // mpv cannot seek in a file it is still opening: the intent waits for the load.
        intent = .play(itemTime: itemTime, startAt: startAt, rate: rate)
        return []
      }
      if phase == .playing, !stalled, unpauseAt == nil, switchAt == nil, rate == speed,
        abs(projected(at: startAt, from: now) - itemTime) < configuration.seamlessGap
      {
        // Already on that line at that rate: nothing to do.
        intent = .play(itemTime: itemTime, startAt: startAt, rate: rate)
        preparedAt = now
        return []
      }
      // Anything else — another spot, or another rate (mpv plays out the audio it has
      // buffered, up to 0.4 s, at the old speed: only a seek applies a speed exactly) —
      // is prepared as a seek and switched to at the instant.
      intent = .play(itemTime: itemTime, startAt: startAt, rate: rate)
      deferredBy = 0
      if phase == .playing, !stalled {
        // A seek while playing: play on until the latest moment the seek surely still
        // makes it (twice its latency and a little more: a loaded machine seeks slower,
        // and a late switch costs a restart).
        let begin = startAt.advanced(bySeconds: -(2 * seekLatency + 0.05 + unpauseLead))
        if begin > now {
          switchAt = begin
          deferredBy = begin.seconds(since: now)
          return []
        }
      }
      return beginPreparing(at: now)

    case .pause(let at):
      guard item != nil, phase != .idle else { return [] }
      intent = .pause(at: at)
      cancelScheduled()
      freeze(at: at)
      return isLoading ? [] : beginPreparing(at: now)

    case .seek(let to):
      guard item != nil, phase != .idle else { return [] }
      switch intent {
      case .pause: intent = .pause(at: to)
      case .play(_, _, let rate): intent = .play(itemTime: to, startAt: now, rate: rate)
      }
      cancelScheduled()
      freeze(at: to)
      return isLoading ? [] : beginPreparing(at: now)

    case .setRate(let rate):
      guard item != nil else { return [] }
      let rate = max(0.01, rate)
      if case .play(let x, let s, _) = intent {
        intent = .play(itemTime: x, startAt: s, rate: rate)
      }
      return setSpeed(rate, at: now)

    case .unload:
      cancelScheduled()
      item = nil
      duration = nil
      phase = .idle
      freeze(at: 0)
      return [request(.stop)]
    }
  }

  /// A line from mpv.
  public mutating func received(_ message: MpvMessage, at now: LocalInstant) -> [Effect] {
    clockNow = now
    settle(at: now)
    switch message {
    case .reply(let id, let data, let error):
      if case .preparing(let request, _, let since, let load) = phase, request == id {
        guard error == .success else {
          if load {
            problem = "mpv could not open the file: \(error)"
            phase = .idle
            return []
          }
          // A seek mpv refused: stay where it is rather than wait for a restart.
          phase = .paused
          return []
        }
        phase = .preparing(request: request, replied: true, since: since, load: load)
        return []
      }
      if let landing, landing.request == id {
        self.landing = nil
        if let value = data.number, error == .success { landed(value - landing.target) }
        return []
      }
      if let query = userSeek.query, query == id {
        userSeek = (false, nil)
        if let value = data.number, error == .success, item != nil {
          freeze(at: value)
          if phase == .playing { anchor = now }
          userActions.append(.seek(to: value))
        }
        return []
      }
      if let poll, poll.id == id {
        self.poll = nil
        if silent {
          // mpv answers again: it plays on from where it stood. This reading's moment is
          // unknown (its exchange spans the silence); the next one places it.
          silent = false
          stalled = false
          if phase == .playing { anchor = now }
          nextPoll = now
          return []
        }
        guard phase == .playing, !stalled, unpauseAt == nil else { return [] }
        if let value = data.number, error == .success {
          // Read at the midpoint of the exchange.
          let exchange = now.seconds(since: poll.sentAt)
          let midpoint = poll.sentAt.advanced(bySeconds: exchange / 2)
          let quickest = min(
            exchange, quickestExchange.map { $0 + 0.05 * (exchange - $0) } ?? exchange)
          quickestExchange = quickest
          let trusted = max(2 * quickest, configuration.trustedExchange)
          let weight = exchange <= trusted ? 1 : (trusted / exchange) * (trusted / exchange)
          let audio = pollProperty == .audioPTS
          // How far mpv's clock is from the model (the model keeps the picture's time: the
          // audio clock already counts speed changes still in flight).
          let deviation =
            value + inFlightDebt(at: midpoint) - projected(at: midpoint, from: midpoint)
          var believed = false
          if let start = scheduledStart, audio {
            let settled = midpoint.seconds(since: start.at) >= configuration.startSettling
            if !settled {
              if abs(deviation) < configuration.startMiss { return [] }
              // mpv really missed the start (a loaded machine): no noise is that large.
              scheduledStart = nil
              believed = true
            }
          }
          if audio, !believed, abs(deviation) > configuration.outlier {
            // One reading far from a model that was right a poll ago is mpv's clock
            // jumping, not the player: believed only when the next one agrees.
            if let suspect, abs(suspect - deviation) <= configuration.outlier {
              self.suspect = nil
            } else {
              suspect = deviation
              return []
            }
          } else {
            suspect = nil
          }
          if scheduledStart != nil, audio {
            // The first settled reading after a scheduled unpause says how late mpv really
            // started (an unsettled one would teach the lead its noise, and every later
            // start would be sent early or late by it). A speed change still in flight
            // makes the comparison uncertain: nothing is learned then.
            scheduledStart = nil
            let delay = -deviation / max(speed, 0.01) + unpauseLead
            let changing = pending.contains { $0.isInFlight(at: midpoint) }
            if !changing, weight == 1, delay > -0.01, delay < 0.05 {
              unpauseLead = min(max(0, 0.7 * unpauseLead + 0.3 * delay), 0.05)
            }
          }
          for index in pending.indices where pending[index].isInFlight(at: midpoint) {
            let change = pending[index]
            let delta = change.to - change.from
            if audio, !change.measured, pending.count == 1, abs(delta) >= 0.004, weight == 1 {
              // Learn the delay from the jump: the reading predicted with the delay
              // assumed, against the reading.
              let predicted =
                projected(at: midpoint, from: midpoint)
                - delta * change.effectiveAt.seconds(since: midpoint)
              let error = -(value - predicted) / delta
              if abs(error) < 0.5 {
                speedDelay = min(max(speedDelay + 0.3 * error, 0), 1)
              }
              pending[index].measured = true
            }
          }
          // The audio clock already counts speed changes mpv has not yet played out.
          position =
            believed
            ? value + inFlightDebt(at: midpoint)
            : projected(at: midpoint, from: midpoint) + believable(deviation, weight, exchange)
          anchor = midpoint
          landing = nil
          if audio { audioSeen = true }
        } else if pollProperty == .audioPTS, !audioSeen {
          // Right after a start the audio clock is not there yet; if it never comes, the
          // file has no audio and the frame clock is all there is.
          audioMisses += 1
          if audioMisses >= 20 { pollProperty = .timePos }
        }
      }
      return []

    case .event(.seek):
      // A seek the driver did not ask for: the person's, in mpv.
      if case .preparing = phase { return [] }
      if phase == .playing || phase == .paused || phase == .ended { userSeek.pending = true }
      return []

    case .event(.playbackRestart) where userSeek.pending:
      let read = request(.get(.timePos))
      if case .send(let r) = read { userSeek.query = r.id }
      userSeek.pending = false
      return [read]

    case .propertyChange(.pause, let data):
      guard let value = data.bool else { return [] }
      expectedPause.removeAll { now.seconds(since: $0.at) > 1 }
      if let first = expectedPause.first, first.value == value {
        expectedPause.removeFirst()
        return []
      }
      guard value != sentPause, item != nil else { return [] }
      // The person paused or played in mpv itself.
      sentPause = value
      if value, phase == .playing {
        let at = projected(at: now, from: now)
        phase = .paused
        freeze(at: at)
        userActions.append(.pause(at: at))
      } else if !value, phase == .paused || phase == .ended {
        userActions.append(.play)
      } else if !value, isHeldByDriver {
        // Space pressed while the driver holds mpv paused for a moment (a start, a seek,
        // a pause being placed): the person saw the group's picture and meant the
        // opposite of what the group does. mpv is paused again at once: where and when it
        // plays stays the group's, which the action will change.
        switch intent {
        case .play(let itemTime, let startAt, let rate):
          let line = now > startAt ? itemTime + rate * now.seconds(since: startAt) : itemTime
          userActions.append(.pause(at: line))
        case .pause:
          userActions.append(.play)
        }
        return [request(.setPause(true))]
      }
      return []

    case .propertyChange(.speed, let data):
      guard let value = data.number else { return [] }
      expectedSpeed.removeAll { now.seconds(since: $0.at) > 1 }
      // mpv reports numbers to six decimals: a speed it was sent comes back rounded.
      if let index = expectedSpeed.firstIndex(where: { abs($0.value - value) < 1e-5 }) {
        expectedSpeed.removeFirst(index + 1)
        return []
      }
      guard abs(value - sentSpeed) > 1e-5, item != nil else { return [] }
      sentSpeed = value
      userActions.append(.rate(value / (1 + configuration.injectedSpeedError)))
      return []

    case .event(.playbackRestart):
      guard case .preparing(_, true, let since, let load) = phase else { return [] }
      if load {
        // Opened where the load asked; a later intent may need another spot.
        let target: Double
        switch intent {
        case .pause(let at): target = at
        case .play(let itemTime, let startAt, let rate):
          target = startAt < now ? itemTime + rate * now.seconds(since: startAt) : itemTime
        }
        // Another spot, or a start: prepare once more with an exact seek. A file opened at
        // a point starts its sound where its audio frames do (AAC primes about 21 ms),
        // an exact seek where it was asked; and a speed set while paused applies exactly
        // only after a seek flushes what mpv has buffered.
        if abs(target - loadedAt) > 1e-6 { return beginPreparing(at: now) }
        if case .play = intent { return beginPreparing(at: now) }
      } else {
        recordSeekLatency(now.seconds(since: since))
      }
      // A preparation deferred on purpose (played on until the last moment) reports the
      // time it took, not the wait: the group's lead is sized by it.
      preparedAt = now.advanced(bySeconds: -deferredBy)
      deferredBy = 0
      var effects = resolveIntent(at: now)
      if case .play = intent {
        let query = request(.get(.timePos))
        if case .send(let r) = query { landing = (r.id, seekTarget) }
        effects.append(query)
      }
      return effects

    case .endFile(let reason):
      // Loading a file ends the one before it (`stop`), and that event can arrive while
      // the new one prepares: only an error is the new file failing.
      if reason == "error", phase != .idle, item != nil, case .preparing = phase {
        problem = "mpv could not play the file"
        phase = .idle
      }
      return []

    case .propertyChange(.pausedForCache, let data):
      let now_ = now
      if data.bool == true, !stalled {
        settle(at: now_)
        stalled = true
      } else if data.bool == false, stalled {
        stalled = false
        if phase == .playing { anchor = now_ }
      }
      return []

    case .propertyChange(.eofReached, let data):
      if data.bool == true, item != nil, phase == .playing {
        phase = .ended
        freeze(at: duration ?? position)
      }
      return []

    case .propertyChange(.duration, let data):
      if let d = data.number, d > 0 { duration = d }
      return []

    default:
      return []
    }
  }

  /// Runs what is due at `now`.
  public mutating func wake(at now: LocalInstant) -> [Effect] {
    clockNow = now
    settle(at: now)
    var effects: [Effect] = []
    if let held = heldUntil, held <= now {
      // Released: mpv goes on from where it stopped, as after `paused-for-cache`.
      heldUntil = nil
      stalled = false
      if phase == .playing {
        anchor = now
        effects.append(request(.setPause(false)))
      }
    }
    if let at = switchAt, at <= now {
      switchAt = nil
      effects += beginPreparing(at: now)
    }
    if let at = unpauseAt, at <= now {
      unpauseAt = nil
      if case .play(let itemTime, let startAt, let rate) = intent {
        // Woken late (a busy machine), mpv starts that much later than planned: the model
        // knows it from the start, and the lateness learned below is mpv's own.
        let start = startAt.advanced(bySeconds: now.seconds(since: at))
        phase = .playing
        speed = rate
        effective = rate
        pending = []
        position = itemTime
        anchor = start
        scheduledStart = (itemTime, start)
        suspect = nil
        nextPoll = now
        effects.append(request(.setPause(false)))
      }
    }
    if phase == .playing, !stalled, let poll,
      now.seconds(since: poll.sentAt) >= configuration.unanswered
    {
      // mpv has not answered for a while: it is not known to play on.
      settle(at: now)
      stalled = true
      silent = true
    }
    if phase == .playing, !stalled, poll == nil, nextPoll.map({ $0 <= now }) ?? true {
      let read = request(.get(pollProperty))
      if case .send(let r) = read { poll = (r.id, now) }
      nextPoll = now.advanced(bySeconds: configuration.pollInterval)
      effects.append(read)
    }
    return effects
  }

  /// What the person did in mpv since the last call.
  public mutating func takeUserActions() -> [PlayerUserAction] {
    defer { userActions = [] }
    return userActions
  }

  /// mpv went away (it quit or crashed, or its socket closed).
  public mutating func lost(_ why: String) {
    cancelScheduled()
    isLost = true
    problem = why
    phase = .idle
    item = nil
  }

  /// Holds mpv paused until `end` and reports it stalled, as a player starved of input is
  /// (mpv's `paused-for-cache`): the group's waiting policy applies as for a real stall.
  /// For demos and drills with real players; the driver's own pause and unpause are not
  /// the person's, and any unpause it would send meanwhile waits for the release (see
  /// ``isHolding(_:)``).
  public mutating func hold(until end: LocalInstant, at now: LocalInstant) -> [Effect] {
    clockNow = now
    settle(at: now)
    guard item != nil, problem == nil, heldUntil == nil, end > now else { return [] }
    heldUntil = end
    stalled = true
    return [request(.setPause(true))]
  }

  /// Sends the next scheduled start `seconds` late, without counting on it: the player
  /// starts behind the group as one slow to start would, and the coordinator must see the
  /// gap (from mpv's audio clock) and close it. For benchmarks and drills with real players.
  public mutating func delayNextStart(by seconds: Double) {
    nextStartDelay = max(0, min(seconds, 10))
  }

  /// Whether `effect` must wait while mpv is held: an unpause would end the hold early.
  public func isHolding(_ effect: Effect) -> Bool {
    guard heldUntil != nil, case .send(let request) = effect else { return false }
    return request.action == .setPause(false)
  }

  /// When ``wake(at:)`` is next due.
  public var nextWake: LocalInstant? {
    var candidates = [switchAt, unpauseAt, heldUntil]
    if phase == .playing, !stalled {
      candidates.append(
        poll.map { $0.sentAt.advanced(bySeconds: configuration.unanswered) } ?? nextPoll)
    }
    return candidates.compactMap { $0 }.min()
  }

  /// What the player shows at `now`.
  public func observation(at now: LocalInstant) -> PlayerObservation {
    let moving = phase == .playing && !stalled
    let busy: Bool
    switch phase {
    case .preparing, .prerolled: busy = true
    default: busy = switchAt != nil
    }
    return PlayerObservation(
      item: problem == nil ? item : nil, position: projected(at: now, from: now),
      rate: moving ? speed : 0, isBusy: busy, isStalled: stalled,
      preparedAt: preparedAt.flatMap { $0 <= now ? $0 : nil }, problem: problem,
      fileDuration: problem == nil && item != nil ? duration : nil)
  }

  // MARK: - Helpers

  private mutating func request(_ command: MpvCommand) -> Effect {
    defer { nextID += 1 }
    // Remember what mpv will report back, so that only other changes count as the
    // person's own.
    switch command {
    case .setPause(let value) where value != sentPause:
      sentPause = value
      expectedPause.append((value, clockNow))
    case .setSpeed(let value) where value != sentSpeed:
      sentSpeed = value
      expectedSpeed.append((value, clockNow))
    default:
      break
    }
    return .send(MpvRequest(id: nextID, command))
  }

  /// Pauses mpv and seeks exactly to the intent's frame; busy until mpv restarts.
  private mutating func beginPreparing(at now: LocalInstant) -> [Effect] {
    let target: Double
    var effects = [request(.setPause(true))]
    switch intent {
    case .pause(let at): target = at
    case .play(let itemTime, let startAt, let rate):
      target = startAt < now ? itemTime + rate * now.seconds(since: startAt) : itemTime
      speed = rate
      effects.append(request(.setSpeed(sentSpeed(rate))))
    }
    if phase == .playing { settle(at: now) }
    freeze(at: position)
    seekTarget = max(0, target)
    let seek = request(.seekExact(to: max(0, target)))
    effects.append(seek)
    return effects + prepare(after: seek, at: now)
  }

  private mutating func prepare(after effect: Effect, at now: LocalInstant, load: Bool = false)
    -> [Effect]
  {
    guard case .send(let r) = effect else { return [] }
    phase = .preparing(request: r.id, replied: false, since: now, load: load)
    preparedAt = nil
    poll = nil
    landing = nil
    if silent {
      // Busy until mpv answers this one: the preparation says whether it is back.
      silent = false
      stalled = false
    }
    return []
  }

  /// mpv is ready where the intent wanted it: pause there, or start (now, or at the
  /// scheduled instant).
  private mutating func resolveIntent(at now: LocalInstant) -> [Effect] {
    switch intent {
    case .pause(let at):
      phase = .paused
      freeze(at: at)
      return []
    case .play(let itemTime, let startAt, let rate):
      let unpause = startAt.advanced(bySeconds: nextStartDelay - unpauseLead)
      nextStartDelay = 0
      if unpause > now {
        phase = .prerolled
        freeze(at: itemTime)
        unpauseAt = unpause
        return []
      }
      // Late: it starts now from the frame it was sent to (the load's or the seek's), behind
      // the line by how late it is; the coordinator sees that gap and closes it.
      let target = isLoading ? loadedAt : seekTarget
      phase = .playing
      speed = rate
      effective = rate
      pending = []
      position = target
      anchor = now
      nextPoll = now.advanced(bySeconds: configuration.pollInterval)
      return [request(.setPause(false))]
    }
  }

  private func sentSpeed(_ rate: Double) -> Double {
    rate * (1 + configuration.injectedSpeedError)
  }

  private mutating func setSpeed(_ rate: Double, at instant: LocalInstant) -> [Effect] {
    if phase == .playing, !stalled, anchor != nil {
      settle(at: instant)
      let from = pending.last?.to ?? effective
      if rate != from {
        pending.append(
          SpeedChange(
            sentAt: instant, effectiveAt: instant.advanced(bySeconds: speedDelay), from: from,
            to: rate))
      }
    } else {
      // Not playing: the next start (after a seek, which flushes) plays at it at once.
      effective = rate
      pending = []
    }
    speed = rate
    return [request(.setSpeed(sentSpeed(rate)))]
  }

  /// Brings the picture's anchor up to `now` (a playing player's position moves on).
  private mutating func settle(at now: LocalInstant) {
    guard phase == .playing, !stalled, let anchor, now > anchor else { return }
    position = projected(at: now, from: now)
    while let first = pending.first, first.effectiveAt <= now {
      effective = first.to
      pending.removeFirst()
    }
    self.anchor = now
  }

  private mutating func freeze(at itemTime: Double) {
    position = itemTime
    suspect = nil
    anchor = nil
    pending = []
    effective = speed
  }

  /// Where the picture is at `t`: from the anchor at the effective speed, each pending
  /// change taking over at its instant.
  private func projected(at t: LocalInstant, from now: LocalInstant) -> Double {
    guard phase == .playing, !stalled, let anchor else { return position }
    var p = position
    var cursor = anchor
    var rate = effective
    for change in pending where change.effectiveAt > cursor && change.effectiveAt < t {
      p += rate * change.effectiveAt.seconds(since: cursor)
      cursor = change.effectiveAt
      rate = change.to
    }
    return p + rate * t.seconds(since: cursor)
  }

  /// How far mpv's audio clock is ahead of the picture at `instant` for the speed changes
  /// it already counts but has not yet played out.
  private func inFlightDebt(at instant: LocalInstant) -> Double {
    pending.reduce(0) { debt, change in
      guard change.isInFlight(at: instant) else { return debt }
      return debt + (change.to - change.from) * change.effectiveAt.seconds(since: instant)
    }
  }

  /// How much of a reading's `deviation` from the model to take: what lies within half
  /// its exchange (where the midpoint may be off) at `weight`, anything beyond in full — a
  /// gap larger than the reading's own uncertainty is real however slow the exchange, and
  /// a loaded machine, all of whose exchanges are slow, must still follow mpv.
  private func believable(_ deviation: Double, _ weight: Double, _ exchange: Double) -> Double {
    let uncertainty = exchange / 2
    let within = min(max(deviation, -uncertainty), uncertainty)
    return weight * within + (deviation - within)
  }

  /// The seek for a start landed `offset` seconds past where it was asked (a frame
  /// boundary): the start waits until the group's line reaches that frame, or, if mpv
  /// already plays, the model moves there.
  private mutating func landed(_ offset: Double) {
    // More than a second off is not a frame boundary (a broken file's clock): ignored.
    guard offset != 0, abs(offset) <= 1, case .play(let itemTime, let startAt, let rate) = intent
    else { return }
    switch phase {
    case .prerolled:
      guard let at = unpauseAt else { return }
      // The same line, from the frame mpv shows.
      intent = .play(
        itemTime: itemTime + offset, startAt: startAt.advanced(bySeconds: offset / rate),
        rate: rate)
      unpauseAt = at.advanced(bySeconds: offset / rate)
      freeze(at: itemTime + offset)
    case .playing:
      // Started before the answer came (a start already due): it plays from that frame.
      position += offset
    default:
      break
    }
  }

  private mutating func cancelScheduled() {
    landing = nil
    unpauseAt = nil
    switchAt = nil
    scheduledStart = nil
    deferredBy = 0
  }

  private mutating func recordSeekLatency(_ measured: Double) {
    let measured = min(max(0, measured), 5)
    seekLatency = max(measured, 0.8 * seekLatency + 0.2 * measured)
  }
}
