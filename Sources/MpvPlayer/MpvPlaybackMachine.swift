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
  /// Where mpv's picture is, as a model.
  private var picture = MpvPicture()
  /// What is learned of this mpv's timing.
  private var timing: MpvTiming
  /// How long mpv takes to follow a speed change, seconds (learned).
  public var speedDelay: Double { timing.speedDelay }
  private var stalled = false
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
  /// Reading mpv's clock: when, which clock, and which readings are believed.
  private var clockReading: MpvClockReading
  /// How early `pause=false` is sent before a scheduled start, seconds (learned).
  public var unpauseLead: Double { timing.unpauseLead }
  /// How late the next scheduled start is sent on purpose (see ``delayNextStart(by:)``).
  public private(set) var nextStartDelay = 0.0
  /// The query asking where the last seek for a start landed, and where it was asked to.
  private var landing: (request: Int, target: Double)?
  /// What mpv was last told, and the changes it has yet to report back, to tell the
  /// driver's own changes from the person's.
  private var echo = MpvEcho()
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
  public var seekLatency: Double { timing.seekLatency }
  /// Whether the picture moves: playing, and not stalled.
  private var moving: Bool { phase == .playing && !stalled }

  public init(configuration: Configuration = .init()) {
    self.configuration = configuration
    timing = MpvTiming(configuration: configuration)
    clockReading = MpvClockReading(configuration: configuration)
  }

  // MARK: - Inputs

  /// The first requests, once connected: the properties the driver follows.
  public mutating func start() -> [Effect] {
    Self.observed.enumerated().map { index, property in
      request(.observe(id: index + 1, property))
    }
  }

  /// A coordinator's command; `path` is the file for a `load`, if there is one;
  /// `extractor`: yt-dlp may read it (a link of a trusted site).
  /// `options`: what a `load` opens the file with beyond its address (a lent one's).
  public mutating func perform(
    _ command: PlayerCommand, path: String?, extractor: Bool = false,
    options: MpvFileOptions = .init(), at now: LocalInstant
  ) -> [Effect] {
    settle(at: now)
    switch command {
    case .load(let id, let at):
      return load(id, at: at, path: path, extractor: extractor, options: options, now: now)
    case .play(let itemTime, let startAt, let rate):
      return play(itemTime, startAt: startAt, rate: rate, now: now)
    case .pause(let at): return pause(at: at, now: now)
    case .seek(let to): return seek(to: to, now: now)
    case .setRate(let rate): return setRate(rate, now: now)
    case .unload: return unload()
    }
  }

  /// Opens the item's file (paused, at `at`), or says there is none.
  private mutating func load(
    _ id: ItemID, at: Double, path: String?, extractor: Bool, options: MpvFileOptions,
    now: LocalInstant
  ) -> [Effect] {
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
    clockReading.fileLoaded()
    stalled = false
    intent = .pause(at: at)
    freeze(at: max(0, at))
    let load = request(
      .loadPaused(path: path, start: max(0, at), extractor: extractor, options: options))
    loadedAt = max(0, at)
    return [load] + prepare(after: load, at: now, load: true)
  }

  /// Plays `itemTime` at `startAt` at `rate`: at once if already on that line, else
  /// prepared as a seek and switched to at the instant.
  private mutating func play(
    _ itemTime: Double, startAt: LocalInstant, rate: Double, now: LocalInstant
  ) -> [Effect] {
    guard item != nil, phase != .idle else { return [] }
    let rate = max(0.01, rate)
    if isLoading {
      // mpv cannot seek in a file it is still opening: the intent waits for the load.
      intent = .play(itemTime: itemTime, startAt: startAt, rate: rate)
      return []
    }
    if phase == .playing, !stalled, unpauseAt == nil, switchAt == nil, rate == picture.speed,
      abs(projected(at: startAt) - itemTime) < configuration.seamlessGap
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
  }

  /// Pauses on `at`'s frame.
  private mutating func pause(at: Double, now: LocalInstant) -> [Effect] {
    guard item != nil, phase != .idle else { return [] }
    intent = .pause(at: at)
    cancelScheduled()
    freeze(at: at)
    return isLoading ? [] : beginPreparing(at: now)
  }

  /// Moves to `to`, keeping to play or to stay paused.
  private mutating func seek(to: Double, now: LocalInstant) -> [Effect] {
    guard item != nil, phase != .idle else { return [] }
    switch intent {
    case .pause: intent = .pause(at: to)
    case .play(_, _, let rate): intent = .play(itemTime: to, startAt: now, rate: rate)
    }
    cancelScheduled()
    freeze(at: to)
    return isLoading ? [] : beginPreparing(at: now)
  }

  /// Plays at `rate` from now on.
  private mutating func setRate(_ rate: Double, now: LocalInstant) -> [Effect] {
    guard item != nil else { return [] }
    let rate = max(0.01, rate)
    if case .play(let x, let s, _) = intent {
      intent = .play(itemTime: x, startAt: s, rate: rate)
    }
    return setSpeed(rate, at: now)
  }

  /// Stops and forgets the item.
  private mutating func unload() -> [Effect] {
    cancelScheduled()
    item = nil
    duration = nil
    phase = .idle
    freeze(at: 0)
    return [request(.stop)]
  }

  /// A line from mpv.
  public mutating func received(_ message: MpvMessage, at now: LocalInstant) -> [Effect] {
    settle(at: now)
    switch message {
    case .reply(let id, let data, let error): return replied(id, data, error, at: now)
    case .event(.seek): return seekSeen()
    case .event(.playbackRestart) where userSeek.pending: return askWhereTheUserSeekWent()
    case .event(.playbackRestart): return restarted(at: now)
    case .propertyChange(.pause, let data): return pauseReported(data, at: now)
    case .propertyChange(.speed, let data): return speedReported(data, at: now)
    case .propertyChange(.pausedForCache, let data): return cacheReported(data, at: now)
    case .propertyChange(.eofReached, let data): return endReported(data)
    case .propertyChange(.duration, let data):
      if let d = data.number, d > 0 { duration = d }
      return []
    case .endFile(let reason): return fileEnded(reason)
    default: return []
    }
  }

  /// mpv answered request `id`.
  private mutating func replied(
    _ id: Int, _ data: MpvValue, _ error: MpvStatus, at now: LocalInstant
  ) -> [Effect] {
    let echoed = echoAnswered(id, data, error)
    return echoed + answered(id, data, error, at: now)
  }

  /// mpv answered request `id`: what it means for the playback.
  private mutating func answered(
    _ id: Int, _ data: MpvValue, _ error: MpvStatus, at now: LocalInstant
  ) -> [Effect] {
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
        // Told to go past the end, mpv (keep-open) lands on the last frame by itself, with
        // a seek of its own: the end of the file, not a jump of the person's ("bob jumped
        // to 0:59" when only ann had seeked).
        if let duration, value >= duration - Self.endMargin,
          intendedLine(at: now) >= duration - Self.endMargin
        {
          phase = .ended
          freeze(at: duration)
          return []
        }
        freeze(at: value)
        if phase == .playing { picture.resume(at: now) }
        userActions.append(.seek(to: value))
      }
      return []
    }
    if clockReading.isReading(id) { return clockAnswered(data, error, at: now) }
    return []
  }

  /// The answer to the reading of mpv's clock.
  private mutating func clockAnswered(_ data: MpvValue, _ error: MpvStatus, at now: LocalInstant)
    -> [Effect]
  {
    let value = error == .success ? data.number : nil
    switch clockReading.answered(
      value, at: now, counts: phase == .playing && !stalled && unpauseAt == nil)
    {
    case .back:
      // mpv answers again: it plays on from where it stood.
      stalled = false
      if phase == .playing { picture.resume(at: now) }
      return []
    case .value(let value, let midpoint, let exchange):
      return read(value, midpoint: midpoint, exchange: exchange)
    case .nothing:
      return []
    }
  }

  /// mpv's clock read `value` at `midpoint` of an exchange of `exchange` seconds: the
  /// model takes what of it can be believed, and the timing estimates learn from it.
  private mutating func read(_ value: Double, midpoint: LocalInstant, exchange: Double)
    -> [Effect]
  {
    let weight = timing.exchanged(in: exchange)
    // How far mpv's clock is from the model (the model keeps the picture's time: the
    // audio clock already counts speed changes still in flight).
    let deviation =
      value + picture.inFlightDebt(at: midpoint) - projected(at: midpoint)
    let verdict = clockReading.judge(deviation, at: midpoint)
    if verdict == .doubted { return [] }
    if verdict == .believed(measuresStart: true) {
      // How late mpv really started. A speed change still in flight makes the comparison
      // uncertain: nothing is learned then.
      let delay = -deviation / max(picture.speed, 0.01) + unpauseLead
      if !picture.isChangingSpeed(at: midpoint), weight == 1 { timing.unpauseTook(delay) }
    }
    // Learn the speed delay from the audio clock's jump.
    if clockReading.readsAudio, weight == 1,
      let error = picture.speedDelayError(reading: value, at: midpoint)
    {
      timing.speedDelayWasOff(by: error)
    }
    // The audio clock already counts speed changes mpv has not yet played out.
    picture.place(
      verdict == .missedStart
        ? value + picture.inFlightDebt(at: midpoint)
        : projected(at: midpoint)
          + MpvTiming.believable(deviation, weight: weight, exchange: exchange),
      at: midpoint)
    landing = nil
    return []
  }

  /// A seek the driver did not ask for: the person's, in mpv.
  private mutating func seekSeen() -> [Effect] {
    // A seek the driver did not ask for: the person's, in mpv.
    if case .preparing = phase { return [] }
    if phase == .playing || phase == .paused || phase == .ended { userSeek.pending = true }
    return []
  }

  /// The person's seek in mpv has landed: where?
  private mutating func askWhereTheUserSeekWent() -> [Effect] {
    let read = request(.get(.timePos))
    if case .send(let r) = read { userSeek.query = r.id }
    userSeek.pending = false
    return [read]
  }

  /// mpv reported `pause`: the driver's own change coming back, or maybe the person's
  /// (read to be sure: see ``MpvEcho``).
  private mutating func pauseReported(_ data: MpvValue, at now: LocalInstant) -> [Effect] {
    guard let value = data.bool, echo.pause.reported(value, at: now) else { return [] }
    return [readKnob(.pause)]
  }

  /// mpv reported `speed`: the driver's own change coming back, or maybe the person's.
  private mutating func speedReported(_ data: MpvValue, at now: LocalInstant) -> [Effect] {
    guard let value = data.number, echo.speed.reported(value, at: now) else { return [] }
    return [readKnob(.speed)]
  }

  /// Reads `pause` or `speed`, to tell whether a report that disagreed was the person's.
  private mutating func readKnob(_ property: MpvProperty) -> Effect {
    let read = request(.get(property))
    if case .send(let r) = read {
      if property == .pause { echo.pause.reading(r.id) } else { echo.speed.reading(r.id) }
    }
    return read
  }

  /// What an answer from mpv means for `pause` and `speed`: a reading that shows the
  /// person's change, or the last change of the driver's answered (a doubtful report is
  /// read now).
  private mutating func echoAnswered(_ id: Int, _ data: MpvValue, _ error: MpvStatus)
    -> [Effect]
  {
    if echo.pause.reading == id {
      let read = error == .success ? data.bool : nil
      guard let change = echo.pause.read(read) else { return [] }
      return personPaused(change.value, at: change.reportedAt)
    }
    if echo.speed.reading == id {
      let read = error == .success ? data.number : nil
      guard let change = echo.speed.read(read), item != nil else { return [] }
      userActions.append(.rate(change.value / (1 + configuration.injectedSpeedError)))
      return []
    }
    var effects: [Effect] = []
    if echo.pause.answered(id) { effects.append(readKnob(.pause)) }
    if echo.speed.answered(id) { effects.append(readKnob(.speed)) }
    return effects
  }

  /// The person paused (`value` true) or played in mpv itself, first reported at `now`.
  private mutating func personPaused(_ value: Bool, at now: LocalInstant) -> [Effect] {
    guard item != nil else { return [] }
    if value, phase == .playing {
      let at = projected(at: now)
      // At the end of the file mpv pauses by itself (`--keep-open`), before or after it
      // says `eof-reached`: that is the end, which the group advances from, not a pause of
      // the person's (which everyone would read, and which would hold the group there).
      if let duration, at >= duration - Self.endMargin {
        phase = .ended
        freeze(at: duration)
        return []
      }
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
  }

  /// A load or seek is done: the picture is where it was sent.
  private mutating func restarted(at now: LocalInstant) -> [Effect] {
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
      timing.seekTook(now.seconds(since: since))
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
  }

  /// A file stopped playing.
  private mutating func fileEnded(_ reason: String) -> [Effect] {
    // Loading a file ends the one before it (`stop`), and that event can arrive while
    // the new one prepares: only an error is the new file failing.
    if reason == "error", phase != .idle, item != nil, case .preparing = phase {
      problem =
        item.map(LinkItem.isLink) == true
        ? "mpv could not open the link at \(LinkItem.host(of: item!.rawValue))"
        : "mpv could not play the file"
      phase = .idle
    }
    return []
  }

  /// mpv ran out of input (`paused-for-cache`), or has it again.
  private mutating func cacheReported(_ data: MpvValue, at now: LocalInstant) -> [Effect] {
    if data.bool == true, !stalled {
      settle(at: now)
      stalled = true
    } else if data.bool == false, stalled {
      stalled = false
      if phase == .playing { picture.resume(at: now) }
    }
    return []
  }

  /// mpv reached the end of the file.
  /// Where the group's line puts the item at `now`, as the driver was last told.
  private func intendedLine(at now: LocalInstant) -> Double {
    switch intent {
    case .pause(let at): at
    case .play(let itemTime, let startAt, let rate):
      now > startAt ? itemTime + rate * now.seconds(since: startAt) : itemTime
    }
  }

  /// How near the end of the file a pause mpv made by itself is taken for the end: a
  /// frame or two (24 fps) and the audio clock's lag behind the picture.
  static let endMargin = 0.25

  private mutating func endReported(_ data: MpvValue) -> [Effect] {
    if data.bool == true, item != nil, phase == .playing {
      phase = .ended
      freeze(at: duration ?? picture.position)
    }
    return []
  }

  /// Runs what is due at `now`.
  public mutating func wake(at now: LocalInstant) -> [Effect] {
    settle(at: now)
    var effects: [Effect] = []
    if let held = heldUntil, held <= now {
      // Released: mpv goes on from where it stopped, as after `paused-for-cache`.
      heldUntil = nil
      stalled = false
      if phase == .playing {
        picture.resume(at: now)
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
        picture.start(at: itemTime, from: start, rate: rate)
        clockReading.unpaused(scheduledFor: start, at: now)
        effects.append(request(.setPause(false)))
      }
    }
    if phase == .playing, !stalled {
      switch clockReading.due(at: now) {
      case .unanswered:
        // mpv has not answered for a while: it is not known to play on.
        settle(at: now)
        stalled = true
      case .read(let property):
        let read = request(.get(property))
        if case .send(let r) = read { clockReading.reading(r.id, sentAt: now) }
        effects.append(read)
      case nil:
        break
      }
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
    if phase == .playing, !stalled { candidates.append(clockReading.nextWake) }
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
      item: problem == nil ? item : nil, position: projected(at: now),
      rate: moving ? picture.speed : 0, isBusy: busy, isStalled: stalled,
      preparedAt: preparedAt.flatMap { $0 <= now ? $0 : nil }, problem: problem,
      fileDuration: problem == nil && item != nil ? duration : nil)
  }

  // MARK: - Helpers

  private mutating func request(_ command: MpvCommand) -> Effect {
    defer { nextID += 1 }
    let request = MpvRequest(id: nextID, command)
    // Remember what mpv was told, so that only other changes count as the person's own.
    echo.sending(request)
    return .send(request)
  }

  /// Pauses mpv and seeks exactly to the intent's frame; busy until mpv restarts.
  private mutating func beginPreparing(at now: LocalInstant) -> [Effect] {
    let target: Double
    var effects = [request(.setPause(true))]
    switch intent {
    case .pause(let at): target = at
    case .play(let itemTime, let startAt, let rate):
      target = startAt < now ? itemTime + rate * now.seconds(since: startAt) : itemTime
      picture.speed = rate
      effects.append(request(.setSpeed(sentSpeed(rate))))
    }
    if phase == .playing { settle(at: now) }
    freeze(at: picture.position)
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
    landing = nil
    // Busy until mpv answers this one: the preparation says whether it is back.
    if clockReading.preparing() { stalled = false }
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
      picture.start(at: target, from: now, rate: rate)
      clockReading.unpausedLate(at: now)
      return [request(.setPause(false))]
    }
  }

  private func sentSpeed(_ rate: Double) -> Double {
    rate * (1 + configuration.injectedSpeedError)
  }

  private mutating func setSpeed(_ rate: Double, at instant: LocalInstant) -> [Effect] {
    // Not playing: the next start (after a seek, which flushes) plays at it at once.
    picture.speedChanged(to: rate, at: instant, delay: speedDelay, moving: moving)
    return [request(.setSpeed(sentSpeed(rate)))]
  }

  /// Brings the picture's anchor up to `now` (a playing player's position moves on).
  private mutating func settle(at now: LocalInstant) {
    picture.settle(at: now, moving: moving)
  }

  private mutating func freeze(at itemTime: Double) {
    picture.freeze(at: itemTime)
    clockReading.modelMoved()
  }

  /// Where the picture is at `t`.
  private func projected(at t: LocalInstant) -> Double {
    picture.projected(at: t, moving: moving)
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
      picture.shift(by: offset)
    default:
      break
    }
  }

  private mutating func cancelScheduled() {
    landing = nil
    unpauseAt = nil
    switchAt = nil
    clockReading.startCancelled()
    deferredBy = 0
  }

}
