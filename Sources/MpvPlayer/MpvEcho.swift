import PlaybackCoordination

/// Tells the driver's own changes to mpv's `pause` and `speed` from the person's (a key
/// pressed in mpv itself).
///
/// mpv reports an observed property's value when it gets round to it, not each change:
/// two quick changes (a pause and an unpause of a re-sync) come back as one report, as
/// none, or as a report of a value already overtaken. Matching reports to the changes
/// sent therefore goes wrong: a change whose report never came would swallow the
/// person's next press. So a report is only a hint. Once mpv has answered every change
/// the driver sent, a report that disagrees with what the driver last set is checked by
/// reading the property; a reading that still disagrees is the person's change.
struct MpvEcho: Sendable {
  /// One property the driver sets and the person can change too.
  struct Knob<Value: Sendable>: Sendable {
    /// What mpv was last told, or last read to be.
    private(set) var value: Value
    /// Requests that set it which mpv has not answered yet.
    private var unanswered: Set<Int> = []
    /// When mpv last reported a value other than ``value`` (nil: no doubt).
    private var doubtedAt: LocalInstant?
    /// The reading in flight, if any.
    private(set) var reading: Int?
    private let same: @Sendable (Value, Value) -> Bool

    init(_ value: Value, same: @escaping @Sendable (Value, Value) -> Bool) {
      self.value = value
      self.same = same
    }

    /// The driver sends request `id`, which sets the property to `value`.
    mutating func sending(_ value: Value, id: Int) {
      self.value = value
      unanswered.insert(id)
    }

    /// mpv reported `reported` at `now`: true when the property must be read now.
    mutating func reported(_ reported: Value, at now: LocalInstant) -> Bool {
      if same(reported, value) {
        doubtedAt = nil
        return false
      }
      if doubtedAt == nil { doubtedAt = now }
      return mustRead
    }

    /// mpv answered request `id`: true when the property must be read now.
    mutating func answered(_ id: Int) -> Bool {
      unanswered.remove(id) != nil && mustRead
    }

    /// The driver sends the reading `id`.
    mutating func reading(_ id: Int) { reading = id }

    /// The reading answered `read`: the person's change, with when mpv first reported
    /// it, or nil (the driver's own, or a change of the driver's still on its way, which
    /// will be reported in turn).
    mutating func read(_ read: Value?) -> (value: Value, reportedAt: LocalInstant)? {
      reading = nil
      defer { doubtedAt = nil }
      guard let read, let at = doubtedAt, unanswered.isEmpty, !same(read, value) else {
        return nil
      }
      value = read
      return (read, at)
    }

    private var mustRead: Bool { doubtedAt != nil && unanswered.isEmpty && reading == nil }
  }

  var pause = Knob(true) { $0 == $1 }
  /// mpv reports numbers to six decimals: a speed it was sent comes back rounded.
  var speed = Knob(1.0) { abs($0 - $1) < 1e-5 }

  /// The driver sends `request`: a change of `pause` or `speed` that mpv will answer.
  mutating func sending(_ request: MpvRequest) {
    switch request.action {
    case .setPause(let value): pause.sending(value, id: request.id)
    // A file is opened paused (`pause=yes`).
    case .loadPaused: pause.sending(true, id: request.id)
    case .setSpeed(let value): speed.sending(value, id: request.id)
    default: break
    }
  }
}
