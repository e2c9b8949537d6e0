import PlaybackCoordination
import WireProtocol

/// This participant's connection to its relay over time: the greeting, the place it
/// keeps in the room across connections, reconnection with back-off, which relay comes
/// next, and a relay gone silent.
struct RelayLink: Sendable {
  enum State: Hashable, Sendable {
    case idle
    case connecting
    /// Hello sent, no welcome yet. `deriving`: the relay's challenge, while the room's
    /// keys are derived to answer it (which takes what it takes: no timeout then).
    case greeting(since: LocalInstant, deriving: RoomChallenge?)
    case connected
    case waitingToReconnect(until: LocalInstant)
    case stopped
  }

  /// What became of a failed attempt to enter (or re-enter) the room.
  enum Failure: Sendable, Equatable {
    /// The first entry failed: the caller hears why, and nothing keeps trying.
    case startFailed(ClientError)
    /// Trying again cannot help (the relay refused for good, or its certificate changed):
    /// the participant stops, saying why.
    case stop(String)
    /// Another attempt is scheduled.
    case retry
    /// The reconnection window passed.
    case gaveUp
  }

  /// What is due at a tick.
  enum Due: Sendable, Equatable {
    case greetingTimedOut
    case reconnect(RelayEndpoint?)
    case relaySilent
  }

  private(set) var state: State = .idle
  private(set) var status: ConnectionStatus = .connecting
  private(set) var everWelcomed = false
  private(set) var relayEpoch: String?
  private(set) var lastHeard: LocalInstant?
  /// Which relay to connect to next (several relays can share one database).
  private(set) var route = RelayRoute()
  private let configuration: ParticipantConfiguration
  private var disconnectedSince: LocalInstant?
  private var reconnectDelay: Double
  /// When ``tick(at:)`` last ran: a long gap means this process (or machine) was stopped,
  /// and the relay's silence meanwhile says nothing about the relay.
  private var lastTick: LocalInstant?
  private var resume: ResumeToken?
  /// Messenger payloads received as this member, told to the relay on resuming so that it
  /// resends what a dropped connection lost.
  private var messagesReceived: UInt64 = 0

  /// Refusals that trying again cannot change: the participant stops and says why.
  static let endsParticipation: Set<ErrorCode> = [
    .unsupportedVersion, .invalidHello, .roomLocked, .removedFromRoom, .wrongPassword,
    .roomNotProtected, .roomClosed,
  ]
  /// Longest wait before trying the next relay when there are several.
  static let alternativeRelayDelay = 0.5

  init(configuration: ParticipantConfiguration) {
    self.configuration = configuration
    reconnectDelay = configuration.reconnectInitialDelay
  }

  var isConnected: Bool { state == .connected }
  var isStopped: Bool { state == .stopped }
  var isGreeting: Bool { if case .greeting = state { true } else { false } }
  /// The challenge whose keys are being derived.
  var pendingChallenge: RoomChallenge? {
    if case .greeting(_, let challenge) = state { challenge } else { nil }
  }

  /// When the link itself next needs a tick: the greeting's timeout, the next attempt,
  /// the relay's silence.
  var nextDeadline: LocalInstant? {
    switch state {
    case .idle, .stopped, .connecting: nil
    case .greeting(let since, let deriving):
      deriving == nil ? since.advanced(bySeconds: configuration.answerTimeout) : nil
    case .waitingToReconnect(let until): until
    case .connected: lastHeard?.advanced(bySeconds: configuration.relaySilenceTimeout)
    }
  }

  /// Starts connecting to the relay at `home` (`HOST:PORT`, so that a redirect back to it
  /// is known for what it is). False when already started.
  mutating func start(home: String?) -> Bool {
    guard state == .idle else { return false }
    route.home = home
    state = .connecting
    return true
  }

  /// A connection opened: the resume token to greet with (nil: a new member), or nil
  /// twice over when no connection was expected.
  mutating func opened(at now: LocalInstant) -> ResumeToken?? {
    guard state == .connecting else { return .none }
    state = .greeting(since: now, deriving: nil)
    var token = resume
    token?.messagesReceived = messagesReceived
    return .some(token)
  }

  /// The relay challenged; the keys are being derived for `challenge`, or (nil) the proof
  /// went out: the greeting's timeout starts again either way.
  mutating func greeting(deriving challenge: RoomChallenge?, at now: LocalInstant) {
    state = .greeting(since: now, deriving: challenge)
  }

  mutating func heard(at now: LocalInstant) { lastHeard = now }
  mutating func messageReceived() { messagesReceived += 1 }

  /// Sets the status; true when it changed.
  mutating func set(_ status: ConnectionStatus) -> Bool {
    guard status != self.status else { return false }
    self.status = status
    return true
  }

  /// The relay named another relay for this room: connect there now (true), or count it
  /// as a failed attempt (a loop of redirects, or a relay that just failed).
  mutating func redirect(to relay: RelayEndpoint, at now: LocalInstant) -> Bool {
    guard route.redirect(to: relay, at: now) else { return false }
    state = .connecting
    return true
  }

  /// The relay handed the room over and named where it went: the connection is over, and
  /// the next one goes there at once.
  mutating func moved(to relay: RelayEndpoint, at now: LocalInstant) -> Bool {
    guard route.redirect(to: relay, at: now) else { return false }
    route.retireHome()
    state = .connecting
    disconnectedSince = disconnectedSince ?? now
    lastHeard = nil
    return true
  }

  /// The relay named the room's successors: fallbacks if it goes.
  mutating func named(successors relays: [RelayEndpoint]) { route.named(successors: relays) }

  /// Welcomed into the room. Returns whether this is the first welcome, and whether the
  /// relay is another process that did not keep this member (a relay without a store, or
  /// one that lost it): a session this participant was in went with the old one.
  mutating func welcomed(_ welcome: Welcome) -> (first: Bool, restartedWithoutUs: Bool) {
    let first = !everWelcomed
    state = .connected
    everWelcomed = true
    disconnectedSince = nil
    reconnectDelay = configuration.reconnectInitialDelay
    if !welcome.resumed { messagesReceived = 0 }
    let restartedWithoutUs =
      !welcome.resumed && relayEpoch != nil && relayEpoch != welcome.relayEpoch
    resume = welcome.resume
    relayEpoch = welcome.relayEpoch
    // Welcomed by a successor's relay: the room runs there now, not where it started.
    if route.isSuccessor(route.current) { route.retireHome() }
    route.welcomed(listing: welcome.relays)
    return (first, restartedWithoutUs)
  }

  /// An attempt to enter failed with `error`.
  mutating func failed(_ error: ClientError, at now: LocalInstant) -> Failure {
    guard everWelcomed else { return .startFailed(error) }
    if case .transport(.untrusted) = error {
      // The relay's certificate changed or was refused: reconnecting would present it
      // again. Stop, and say so loudly.
      return .stop(error.description)
    }
    if case .passwordRequired = error { return .stop(error.description) }
    if case .refused(let code, _) = error, Self.endsParticipation.contains(code) {
      return .stop(error.description)
    }
    // Anything else (a full room or relay, a rate limit) may pass: keep the place and
    // try again. (A relay that forgot us answers a resume with a new place anyway.)
    state = .connecting
    // Several relays: the next attempt goes to the next one, soon (a room whose relay
    // died is taken over by another once its lease expires, within seconds).
    if route.failed(at: now) {
      reconnectDelay = min(reconnectDelay, Self.alternativeRelayDelay)
    }
    return scheduleReconnect(at: now)
  }

  /// An established connection closed: reconnect (`.retry`), unless the window for it has
  /// passed already.
  /// `silent`: the relay stopped answering rather than closing: it may be asleep, with its
  /// machine still accepting connections that nobody answers, so the next attempt goes to
  /// the next relay, if there is one.
  mutating func lost(at now: LocalInstant, silent: Bool = false) -> Failure {
    state = .connecting
    disconnectedSince = disconnectedSince ?? now
    lastHeard = nil
    if silent, route.failed(at: now) {
      reconnectDelay = min(reconnectDelay, Self.alternativeRelayDelay)
    }
    return scheduleReconnect(at: now)
  }

  private mutating func scheduleReconnect(at now: LocalInstant) -> Failure {
    let since = disconnectedSince ?? now
    if now.seconds(since: since) > configuration.reconnectGiveUpAfter { return .gaveUp }
    state = .waitingToReconnect(until: now.advanced(bySeconds: reconnectDelay))
    reconnectDelay = min(reconnectDelay * 2, configuration.reconnectMaximumDelay)
    return .retry
  }

  mutating func stop() { state = .stopped }

  /// What is due at `now`, if anything.
  mutating func tick(at now: LocalInstant) -> Due? {
    if let lastTick, now.seconds(since: lastTick) > 2, lastHeard != nil { lastHeard = now }
    lastTick = now
    switch state {
    case .greeting(let since, nil) where now.seconds(since: since) >= configuration.answerTimeout:
      return .greetingTimedOut
    case .waitingToReconnect(let until) where until <= now:
      state = .connecting
      return .reconnect(route.current)
    case .connected:
      // At the deadline itself, not after it: a tick there that did nothing would leave
      // the deadline due, and the runtime ticking at it again and again.
      if let lastHeard, now.seconds(since: lastHeard) >= configuration.relaySilenceTimeout {
        return .relaySilent
      }
      return nil
    default:
      return nil
    }
  }
}
