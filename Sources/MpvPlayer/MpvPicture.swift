import PlaybackCoordination

/// Where mpv's picture is, as a model: `position` at `anchor`, advancing while playing at
/// the speed mpv really plays, which follows each speed change only after a delay (mpv
/// plays the audio it has already filtered at the old speed, while its audio clock jumps
/// at once).
///
/// The playback machine says whether the picture moves (playing, not stalled); readings
/// of mpv's clock correct the model rather than replace it (see ``MpvTiming``).
struct MpvPicture: Sendable {
  /// A speed change sent to mpv: asked at `sentAt`, followed by the picture at
  /// `effectiveAt`.
  struct SpeedChange: Hashable, Sendable {
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

  private(set) var position = 0.0
  private(set) var anchor: LocalInstant?
  /// The speed last asked of mpv.
  var speed = 1.0
  /// The speed the picture plays at now.
  private var effective = 1.0
  private var pending: [SpeedChange] = []

  /// Where the picture is at `t`: from the anchor at the effective speed, each pending
  /// change taking over at its instant (standing still unless `moving`).
  func projected(at t: LocalInstant, moving: Bool) -> Double {
    guard moving, let anchor else { return position }
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

  /// Brings the anchor up to `now` (a moving picture's position moves on), and the
  /// speed changes played out by then take effect.
  mutating func settle(at now: LocalInstant, moving: Bool) {
    guard moving, let anchor, now > anchor else { return }
    position = projected(at: now, moving: moving)
    while let first = pending.first, first.effectiveAt <= now {
      effective = first.to
      pending.removeFirst()
    }
    self.anchor = now
  }

  /// The picture stands at `itemTime` (paused, or on its way there): no anchor, no speed
  /// change in flight.
  mutating func freeze(at itemTime: Double) {
    position = itemTime
    anchor = nil
    pending = []
    effective = speed
  }

  /// Playing starts from `itemTime` at `start`, at `rate` at once (after a seek, which
  /// flushes what mpv had buffered).
  mutating func start(at itemTime: Double, from start: LocalInstant, rate: Double) {
    speed = rate
    effective = rate
    pending = []
    position = itemTime
    anchor = start
  }

  /// The picture moves on from where it stands, from `now` (after a stall, a hold, mpv
  /// answering again).
  mutating func resume(at now: LocalInstant) { anchor = now }

  /// A reading placed the picture at `position` at `instant`.
  mutating func place(_ position: Double, at instant: LocalInstant) {
    self.position = position
    anchor = instant
  }

  /// The picture is `offset` seconds further than the model had it (the frame a seek
  /// landed on).
  mutating func shift(by offset: Double) { position += offset }

  /// mpv was asked for `rate` at `instant`. A moving picture follows after `delay`;
  /// one standing still plays at it from its next start.
  mutating func speedChanged(to rate: Double, at instant: LocalInstant, delay: Double, moving: Bool)
  {
    if moving, anchor != nil {
      settle(at: instant, moving: moving)
      let from = pending.last?.to ?? effective
      if rate != from {
        pending.append(
          SpeedChange(
            sentAt: instant, effectiveAt: instant.advanced(bySeconds: delay), from: from, to: rate))
      }
    } else {
      effective = rate
      pending = []
    }
    speed = rate
  }

  /// Whether a speed change is in flight at `instant` (sent, not yet played out).
  func isChangingSpeed(at instant: LocalInstant) -> Bool {
    pending.contains { $0.isInFlight(at: instant) }
  }

  /// How far mpv's audio clock is ahead of the picture at `instant` for the speed changes
  /// it already counts but has not yet played out.
  func inFlightDebt(at instant: LocalInstant) -> Double {
    pending.reduce(0) { debt, change in
      guard change.isInFlight(at: instant) else { return debt }
      return debt + (change.to - change.from) * change.effectiveAt.seconds(since: instant)
    }
  }

  /// How far off the assumed speed delay was, by an audio reading `value` at `midpoint`
  /// taken while one sizeable change was in flight (a fraction of the delay: positive,
  /// it is longer). Each change is measured once; nil when nothing can be learned.
  mutating func speedDelayError(reading value: Double, at midpoint: LocalInstant) -> Double? {
    var result: Double?
    for index in pending.indices where pending[index].isInFlight(at: midpoint) {
      let change = pending[index]
      let delta = change.to - change.from
      guard !change.measured, pending.count == 1, abs(delta) >= 0.004 else { continue }
      // The reading predicted with the delay assumed, against the reading.
      let predicted =
        projected(at: midpoint, moving: true)
        - delta * change.effectiveAt.seconds(since: midpoint)
      result = -(value - predicted) / delta
      pending[index].measured = true
    }
    return result
  }
}
