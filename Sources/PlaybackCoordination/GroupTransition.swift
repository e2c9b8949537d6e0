/// One change of the group state in progress: works on a copy of the state and collects the
/// events it emits, so that a rejection thrown half-way leaves the engine's state untouched.
struct GroupTransition {
  var state: GroupState
  let configuration: EngineConfiguration
  let now: GroupInstant
  /// Nil for changes the group makes by itself (timeouts, items ending).
  let originator: ParticipantID?
  let originatorName: String?
  private(set) var events: [ChangeEvent] = []

  init(
    state: GroupState, configuration: EngineConfiguration, now: GroupInstant,
    originator: ParticipantID?, originatorName: String?
  ) {
    self.state = state
    self.configuration = configuration
    self.now = now
    self.originator = originator
    self.originatorName = originatorName
  }

  /// Records one change: the next sequence number, now, the originator.
  mutating func emit(_ kind: ChangeKind) {
    state.sequence += 1
    let event = ChangeEvent(
      sequence: state.sequence, at: now, originator: originator, originatorName: originatorName,
      kind: kind)
    events.append(event)
    // A report is bookkeeping, not something a person did: "last change by" stays put.
    if !kind.isQuiet { state.lastChange = event }
    switch kind {
    case .sessionStarted, .played, .paused, .seeked, .rateChanged, .replaced, .autoAdvanced,
      .reachedEnd, .resumedProposing, .waitEnded, .queuePlayed:
      state.session?.lastPlaybackChange = event
      // Something else moved the timeline: no countdown runs any more.
      state.session?.countdown = nil
    case .readyCheckEnded(let end, let startsAt) where end.starts && startsAt != nil:
      state.session?.lastPlaybackChange = event
    default: break
    }
  }

  /// The current session. Only used after a check that there is one.
  var session: WatchSession {
    get { state.session! }
    set { state.session = newValue }
  }

  func index(of id: ParticipantID) -> Int? {
    state.participants.firstIndex { $0.id == id }
  }

  mutating func perform(_ command: GroupCommand, from id: ParticipantID) throws(Rejection) {
    if case .enter(let name, let origin) = command {
      try enter(id, name: name, origin: origin)
      return
    }
    guard let index = index(of: id) else { throw .unknownParticipant(id) }
    switch command {
    case .enter: break
    case .exit(let reason): exit(index, reason: reason)
    case .setConnected(let connected): setConnected(index, connected)
    case .start(let series, let item): try start(index, series: series, item: item)
    case .join: try join(index)
    case .decline: try decline(index)
    case .leave: try leave(index)
    case .end: try end(index)
    case .play(let item, let rate): try play(index, item: item, rate: rate)
    case .pause(let item, let at): try pause(index, item: item, at: at)
    case .seek(let item, let to): try seek(index, item: item, to: to)
    case .setRate(let item, let rate): try setRate(index, item: item, rate: rate)
    case .replace(let series, let item, let confirmed):
      try replace(index, series: series, item: item, confirmed: confirmed)
    case .advance(let endedItem): try advance(index, endedItem: endedItem)
    case .beginSuspension(let reason): try beginSuspension(index, reason)
    case .endSuspension(let reason, let proposing):
      try endSuspension(index, reason, proposing: proposing)
    case .setReadiness(let readiness): try setReadiness(index, readiness)
    case .setAutoAdvance(let on): setAutoAdvance(index, on)
    case .report(let roundTrip, let startupLatency, let playerOffset):
      try report(
        index, roundTrip: roundTrip, startupLatency: startupLatency, playerOffset: playerOffset)
    case .setLocked(let locked): try setLocked(index, locked)
    case .setPlaybackControl(let playback): try setPlaybackControl(index, playback)
    case .transferOwnership(let target): try transferOwnership(index, to: target)
    case .remove(let target): try remove(index, target)
    case .queueAdd(let series, let item): try queueAdd(index, series: series, item: item)
    case .queueRemove(let entry): try queueRemove(index, entry: entry)
    case .queueMove(let entry, let to): try queueMove(index, entry: entry, to: to)
    case .queueClear: try queueClear(index)
    case .playQueued(let entry): try playQueued(index, entry: entry)
    case .setPersonalOffset(let seconds): try setPersonalOffset(index, seconds)
    case .announceSealingKey(let key): try announceSealingKey(index, key)
    case .watchFrom(let lender): try watchFrom(index, lender)
    case .askReady: try askReady(index)
    case .setReadyToWatch(let ready): try setReadyToWatch(index, ready)
    case .startAnyway: try startAnyway(index)
    case .cancelReadyCheck: try cancelReadyCheck(index)
    case .setStartWhenAllReady(let on): try setStartWhenAllReady(index, on)
    case .setKept(let kept): try setKept(index, kept)
    }
    settleReadyCheck()
  }

  // MARK: - Checks shared by commands

  /// The session, if the participant has joined it.
  func requireJoined(_ index: Int) throws(Rejection) -> WatchSession {
    guard let session = state.session else { throw .noSession }
    guard state.participants[index].isJoined else { throw .notJoined }
    return session
  }

  /// The session, if the participant may move the group: joined, not suspended, allowed to
  /// control playback (unless `byPlayer`: a player reaching the end is nobody's choice), and
  /// (for position commands) talking about the current item.
  func requireMover(_ index: Int, item: ItemID?, byPlayer: Bool = false) throws(Rejection)
    -> WatchSession
  {
    let session = try requireJoined(index)
    if !byPlayer { try requirePlaybackControl(index) }
    let participant = state.participants[index]
    guard participant.suspensions.isEmpty else { throw .suspended(participant.suspensions) }
    if let item, item != session.item.id {
      throw .staleItem(sent: item, current: session.item.id)
    }
    return session
  }

  func validatePosition(_ position: Double, in session: WatchSession) throws(Rejection) {
    guard position.isFinite, position >= 0, position <= session.item.duration else {
      throw .positionOutOfRange(position: position, duration: session.item.duration)
    }
  }

  func validateRate(_ rate: Double) throws(Rejection) {
    guard rate.isFinite, configuration.allowedRates.contains(rate) else {
      throw .rateOutOfRange(rate: rate, allowed: configuration.allowedRates)
    }
  }

  /// The longest item the engine accepts, seconds (a week). Every time the engine
  /// computes stays far inside the clock's range this way.
  static let maximumItemDuration: Double = 7 * 24 * 3600
  /// The most items a series may list.
  static let maximumSeriesItems = 1000

  /// The item to watch, if the series is usable: not empty, not too long, holding the
  /// item, every duration positive, finite and at most ``maximumItemDuration``, every id
  /// and title within ``DisplayText``'s limits.
  func validate(_ series: SeriesInfo, item: ItemID) throws(Rejection) -> ItemInfo {
    guard !series.items.isEmpty else { throw .emptySeries }
    guard series.items.count <= Self.maximumSeriesItems else {
      throw .invalidValue("a series lists at most \(Self.maximumSeriesItems) items")
    }
    try DisplayText.check(
      series.id, as: "a series id", maximumBytes: DisplayText.maximumIdentifierBytes)
    try DisplayText.check(
      series.title, as: "a series title", maximumBytes: DisplayText.maximumTitleBytes,
      allowEmpty: true)
    for entry in series.items {
      if LinkItem.isLink(entry.id) {
        // A link is its own id: longer than a file's, and a URL a player will open.
        if let problem = LinkItem.problem(with: entry.id.rawValue) {
          throw .invalidValue("\(entry.id.rawValue.prefix(64)): \(problem)")
        }
      }
      try DisplayText.check(
        entry.id.rawValue, as: "an item id",
        maximumBytes: LinkItem.isLink(entry.id)
          ? LinkItem.maximumBytes : DisplayText.maximumIdentifierBytes)
      try DisplayText.check(
        entry.title, as: "an item title", maximumBytes: DisplayText.maximumTitleBytes,
        allowEmpty: true)
    }
    guard let info = series.item(item) else { throw .unknownItem(item) }
    for entry in series.items
    where
      !(entry.duration.isFinite && entry.duration > 0
      && entry.duration <= Self.maximumItemDuration)
    {
      throw .invalidValue(
        "\(entry.id) has no valid duration (more than 0 s, at most \(Int(Self.maximumItemDuration)) s)"
      )
    }
    return info
  }

  static func isValidName(_ name: String) -> Bool {
    guard !name.isEmpty, name.count <= 64 else { return false }
    guard name.contains(where: { !$0.isWhitespace }) else { return false }
    return !name.unicodeScalars.contains { $0.properties.generalCategory == .control }
  }

  // MARK: - Coordinated start and holding

  /// How far ahead a start is scheduled so that everyone starts at once:
  /// `roundTripFactor × highest round-trip + highest start-up latency` over joined,
  /// connected participants, clamped to the configured bounds.
  func startDelay() -> Double {
    let counted = state.participants.filter { $0.isJoined && $0.isConnected }
    let roundTrip = counted.map { $0.roundTrip }.max() ?? 0
    let latency = counted.map { $0.startupLatency }.max() ?? 0
    let raw = configuration.roundTripFactor * roundTrip + latency
    return min(max(raw, configuration.minimumStartDelay), configuration.maximumStartDelay)
  }

  /// Schedules playback from `position` at the group's playback rate, a start delay ahead.
  /// From a stop the position holds until then, so it never jumps; while playing (a seek)
  /// the group plays on where it is until then, so that every player switches to the new
  /// spot at the same instant instead of each when its own seek is done.
  mutating func startTogether(at position: Double) -> GroupInstant {
    let startsAt = now.advanced(bySeconds: startDelay())
    let current = session.timeline
    if current.rate(at: now) == 0 {
      session.timeline = Timeline(
        itemTime: position, groupTime: startsAt, rate: session.playbackRate)
    } else {
      session.timeline = current.changing(
        at: startsAt, to: position, rate: session.playbackRate, now: now)
    }
    return startsAt
  }

  /// Changes the rate of a moving timeline a start delay ahead, continuing the current line
  /// until then; a change still pending only takes the new rate. The delay allows for the
  /// slowest player's latency too: a real player (mpv) applies a new speed exactly only by
  /// preparing as for a seek.
  mutating func changeRate(to rate: Double) {
    let timeline = session.timeline
    if timeline.groupTime > now {
      session.timeline.rate = rate
      return
    }
    guard timeline.rate != rate else { return }
    let at = now.advanced(bySeconds: startDelay())
    let itemTime = min(max(timeline.position(at: at), 0), session.item.duration)
    session.timeline = timeline.changing(at: at, to: itemTime, rate: rate, now: now)
  }

  /// Starts the group if it means to play, is stopped and nobody is waited for.
  mutating func startIfReady() {
    guard let current = state.session, current.intendedRate > 0, current.waits.isEmpty,
      current.timeline.rate == 0, !current.reachedEnd
    else { return }
    let position = current.position(at: now)
    let startsAt = startTogether(at: position)
    emit(.waitEnded(at: position, startsAt: startsAt))
  }

  /// Stops a moving timeline where the group is now.
  mutating func freeze() {
    guard session.timeline.rate != 0 else { return }
    session.timeline = Timeline(itemTime: session.position(at: now), groupTime: now, rate: 0)
    session.countdown = nil
  }
}
