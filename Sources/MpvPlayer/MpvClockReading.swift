import PlaybackCoordination

/// Reading mpv's clock while it plays: when to ask where it is, what to make of an
/// answer, and when a reading is doubted. Its own machine because mpv's clock misleads in
/// ways the player does not: it jumps just after an unpause, and now and then for a single
/// reading in steady play, while the player itself moves on evenly.
///
/// It reads `audio-pts` (continuous), or `time-pos` for a file whose audio clock never
/// comes; one reading at a time, every ``MpvPlaybackMachine/Configuration/pollInterval``,
/// and one unanswered for ``MpvPlaybackMachine/Configuration/unanswered`` means mpv has
/// gone silent. The playback machine says when the picture moves and keeps the model; this
/// one says whether a reading's distance from that model is believed (see ``judge(_:at:)``).
struct MpvClockReading: Sendable {
  /// What is due while the picture moves.
  enum Due: Hashable, Sendable {
    /// A reading of `property`: send it, then say so with ``reading(_:sentAt:)``.
    case read(MpvProperty)
    /// The reading in flight went unanswered too long: mpv is silent (stalled) until it
    /// answers.
    case unanswered
  }

  /// What an answer to the reading in flight means.
  enum Answer: Hashable, Sendable {
    /// mpv answers again after a silence: it plays on from now. This reading's moment is
    /// unknown (its exchange spans the silence), so it is not taken; the next one is due at
    /// once.
    case back
    /// mpv's clock read `value` at `midpoint`, the middle of an exchange of `exchange`
    /// seconds (it may be off by half of it): to be judged against the model.
    case value(Double, midpoint: LocalInstant, exchange: Double)
    /// Nothing to take: not playing, an error, or no audio clock (yet).
    case nothing
  }

  /// What to make of a reading, by its distance from the model.
  enum Verdict: Hashable, Sendable {
    /// Not believed, the model stands: mpv's clock settling just after a start, or a
    /// single reading far off, held until the next one confirms it.
    case doubted
    /// Believed as it reads: mpv really missed its scheduled start (a loaded machine), by
    /// more than any settling noise.
    case missedStart
    /// Believed as far as its exchange allows. `measuresStart`: the first settled reading
    /// after a scheduled start, whose distance says how late mpv really started.
    case believed(measuresStart: Bool)
  }

  /// The property read: `audio-pts`, or `time-pos` once the audio clock never came.
  private(set) var property = MpvProperty.audioPTS
  /// An audio reading has been taken since the file was loaded: the file has audio.
  private var audioSeen = false
  /// Audio readings that found no audio clock since the file was loaded.
  private var audioMisses = 0
  /// When the next reading is due (nil: at once).
  private var nextRead: LocalInstant?
  /// The reading in flight: its request and when it was sent.
  private var inFlight: (id: Int, sentAt: LocalInstant)?
  /// A reading went unanswered (see ``Due/unanswered``); its answer ends the stall.
  private(set) var silent = false
  /// When the scheduled start whose lateness the next settled reading measures began.
  private var scheduledStart: LocalInstant?
  /// A reading's distance from the model, held until the next reading confirms it.
  private var suspect: Double?

  private let pollInterval: Double
  private let unanswered: Double
  private let startSettling: Double
  private let startMiss: Double
  private let outlier: Double

  /// After this many audio readings with no audio clock, a file without audio is read by
  /// its frames.
  static let audioMissesForFrameClock = 20

  init(configuration: MpvPlaybackMachine.Configuration) {
    pollInterval = configuration.pollInterval
    unanswered = configuration.unanswered
    startSettling = configuration.startSettling
    startMiss = configuration.startMiss
    outlier = configuration.outlier
  }

  /// Whether readings come from the audio clock (only those can be doubted and taught from).
  var readsAudio: Bool { property == .audioPTS }

  // MARK: - Polling

  /// What is due at `now` while the picture moves (playing, not stalled).
  mutating func due(at now: LocalInstant) -> Due? {
    if let inFlight {
      guard now.seconds(since: inFlight.sentAt) >= unanswered else { return nil }
      silent = true
      return .unanswered
    }
    return nextRead.map { $0 <= now } ?? true ? .read(property) : nil
  }

  /// The reading `id` was sent at `now`; the next is due a poll interval later.
  mutating func reading(_ id: Int, sentAt now: LocalInstant) {
    inFlight = (id, now)
    nextRead = now.advanced(bySeconds: pollInterval)
  }

  /// When ``due(at:)`` next has something to say while the picture moves.
  var nextWake: LocalInstant? {
    inFlight.map { $0.sentAt.advanced(bySeconds: unanswered) } ?? nextRead
  }

  /// Whether request `id` is the reading in flight.
  func isReading(_ id: Int) -> Bool { inFlight?.id == id }

  /// mpv answered the reading in flight at `now` with `value` (nil: an error, no clock).
  /// `counts`: the picture moves and no start is pending, so the answer says where it is.
  mutating func answered(_ value: Double?, at now: LocalInstant, counts: Bool) -> Answer {
    guard let sentAt = inFlight?.sentAt else { return .nothing }
    inFlight = nil
    if silent {
      silent = false
      nextRead = now
      return .back
    }
    guard counts else { return .nothing }
    if let value {
      let exchange = now.seconds(since: sentAt)
      return .value(value, midpoint: sentAt.advanced(bySeconds: exchange / 2), exchange: exchange)
    }
    if property == .audioPTS, !audioSeen {
      // Right after a start the audio clock is not there yet; if it never comes, the file
      // has no audio and the frame clock is all there is.
      audioMisses += 1
      if audioMisses >= Self.audioMissesForFrameClock { property = .timePos }
    }
    return .nothing
  }

  /// A preparation begins (mpv pauses and seeks): the reading in flight is dropped. True
  /// when mpv was silent: the preparation's answer now says whether it is back.
  mutating func preparing() -> Bool {
    inFlight = nil
    defer { silent = false }
    return silent
  }

  // MARK: - Starts and the model

  /// A new file: its audio clock is looked for again.
  mutating func fileLoaded() {
    property = .audioPTS
    audioSeen = false
    audioMisses = 0
  }

  /// mpv was unpaused at `now` for a start at `start`: read at once; readings during
  /// ``MpvPlaybackMachine/Configuration/startSettling`` are doubted, and the first one
  /// after says how late mpv started.
  mutating func unpaused(scheduledFor start: LocalInstant, at now: LocalInstant) {
    scheduledStart = start
    suspect = nil
    nextRead = now
  }

  /// mpv was unpaused at `now`, late for its start (nothing scheduled to measure): the
  /// first reading is a poll interval later.
  mutating func unpausedLate(at now: LocalInstant) {
    nextRead = now.advanced(bySeconds: pollInterval)
  }

  /// The scheduled start was given up (a new command): its lateness is not measured.
  mutating func startCancelled() { scheduledStart = nil }

  /// The model was put somewhere new: a held reading's distance from the old one means
  /// nothing.
  mutating func modelMoved() { suspect = nil }

  // MARK: - Judging

  /// A reading `deviation` seconds from the model at `midpoint`: believed, or not.
  ///
  /// An audio reading just after a scheduled start (``scheduledStart``) is doubted unless
  /// it is more than `startMiss` off (mpv really missed the start). One more than
  /// `outlier` from a model that was right a reading ago is mpv's clock jumping, not the
  /// player: believed only when the next one agrees. The frame clock (`time-pos`) is
  /// always believed.
  mutating func judge(_ deviation: Double, at midpoint: LocalInstant) -> Verdict {
    let audio = readsAudio
    var missed = false
    if let start = scheduledStart, audio, midpoint.seconds(since: start) < startSettling {
      if abs(deviation) < startMiss { return .doubted }
      // No settling noise is that large.
      scheduledStart = nil
      missed = true
    }
    if audio, !missed, abs(deviation) > outlier {
      if let suspect, abs(suspect - deviation) <= outlier {
        self.suspect = nil
      } else {
        suspect = deviation
        return .doubted
      }
    } else {
      suspect = nil
    }
    if audio { audioSeen = true }
    if missed { return .missedStart }
    // The first settled reading after a scheduled unpause measures it (an unsettled one
    // would teach the lead its noise).
    let measuresStart = scheduledStart != nil && audio
    if measuresStart { scheduledStart = nil }
    return .believed(measuresStart: measuresStart)
  }
}
