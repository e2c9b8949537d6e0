import Clocks
import Logging
import PlaybackCoordination
import RoomCrypto
import Rooms
import Synchronization
import WireProtocol

/// Runs a ``RelayCore`` for every transport: feeds it what connections send, performs the
/// actions it returns, and ticks it on time.
///
/// Synchronous and lock-protected rather than an actor: a TCP connection's event loop
/// calls straight in and the answers are written to the other connections before it
/// returns, with no task or actor hop on the way (the propagation hot path). Writes
/// happen under the lock, so every connection gets messages in the order the core
/// decided them.
public final class RelayRuntime: Sendable {
  public let configuration: RelayConfiguration
  /// Names this run of the relay (see ``Welcome/relayEpoch``).
  public let epoch: String
  /// The secret this relay knows its own machine's participant by (see ``RelayKey``): for
  /// that participant only.
  public let ownerKey: String
  let clock: any SessionClock
  private let trafficObserver = Mutex<(@Sendable () -> Void)?>(nil)
  /// Paces what waits on things outside the session — the store's writes and leases, the
  /// successors' feed over the network — in real time, whatever the session's clock (a
  /// demo's sped-up one, a test's virtual one) says: a database does not answer faster
  /// because the film runs faster.
  public let outsideClock: any SessionClock
  let logger: Logger
  let codec = WireCodec()
  let state: Mutex<State>
  /// Where rooms are kept across runs (nil: nowhere), and the writer's bookkeeping.
  public let store: (any RoomStore)?
  /// Which relay runs which room, when several share the store (nil: this relay runs every
  /// room it is asked for).
  public let directory: (any RoomDirectory)?
  /// Whether the relay passes its rooms on to successors (a relay a person's `cowatch`
  /// runs; see ``RelayCore/takeSuccessorFeed()``).
  public let feedsSuccessors: Bool
  /// Whether it counts what it sends for its metrics (``statistics``); off only to measure
  /// what counting costs.
  public let countsStatistics: Bool
  let wallClock: @Sendable () -> Int64
  let storeWriter = Mutex(StoreWriter())

  struct State {
    var core: RelayCore
    var outlets: [ConnectionID: CountedOutlet] = [:]
    var nextConnection: UInt64 = 1
    var stopped = false
    /// Stopped as a crash would (``abandon()``): nothing more is written or released.
    var abandoned = false
    /// What a stopped relay told everyone (a connection that comes in afterwards is told
    /// the same and closed).
    var farewell: [UInt8]?
    /// Where each connection comes from, and how many come from each address.
    var addresses: [ConnectionID: String] = [:]
    var perAddress: [String: Int] = [:]
    /// Log lines the relay may still write now (see ``logLinesPerSecond``), when that was
    /// last worked out, and how many it left out meanwhile.
    var logBudget = LogBudget(burst: RelayRuntime.logBurst)
    var suppressedLogLines = 0
    /// Each connection's own share of the log.
    var connectionLogBudgets: [ConnectionID: LogBudget] = [:]
    /// With a ``RoomDirectory``: rooms being claimed, with the connections whose hello
    /// waits for the claim, and what each of those sent meanwhile.
    var claims: [String: [ConnectionID]] = [:]
    var held: [ConnectionID: [ClientMessage]] = [:]
    /// When this relay last renewed its leases, by its own clock (the start of the
    /// renewal that succeeded): the leases are safe until that plus the lease duration.
    var leasesRenewedAt: Int64?
    /// How to ask another relay whether it runs a room (see ``locateRooms(with:)``).
    var locator: RoomLocator?
    /// Kept for a driver of virtual time to answer (see ``keepLocateRequests()``); nil:
    /// not kept.
    var locateRequests: [LocateRequest]?
    /// What the relay sent, counted (see ``statistics``).
    var counted = RelayStatistics()
    /// Spliced tunnels' two connections, no longer line connections (see
    /// ``RelayAction/splice(_:_:_:room:)``), and which tunnel each connection is half of.
    var tunnels: [TunnelID: (CountedOutlet, CountedOutlet, room: String)] = [:]
    var tunnelOf: [ConnectionID: TunnelID] = [:]
  }

  /// The bytes a second tunnels may carry (nil: the relay carries none).
  let tunnelRates: TunnelMeter.Shared?

  /// A token bucket of log lines.
  struct LogBudget {
    var tokens: Double
    var at: Int64?
    init(burst: Double) { tokens = burst }

    mutating func take(at now: Int64, rate: Double, burst: Double) -> Bool {
      if let at { tokens = min(burst, tokens + Double(max(0, now &- at)) / 1e9 * rate) }
      at = now
      guard tokens >= 1 else { return false }
      tokens -= 1
      return true
    }
  }

  /// Log lines per second at most, in bursts of ``logBurst``: peers cause most log lines
  /// (each bad frame, each refused connection), and a stream of them from many
  /// connections must not fill the disk or drown the rest. What is left out is counted,
  /// and the count is logged once writing resumes.
  public static let logLinesPerSecond = 20.0
  public static let logBurst = 200.0
  /// One connection's share: a line a second, in bursts of ten.
  public static let connectionLogLinesPerSecond = 1.0
  public static let connectionLogBurst = 10.0

  /// A relay that keeps its rooms in `store` (nil: nowhere) and starts with the rooms
  /// `restoring` brings back from it (see ``loadRooms(from:retention:now:)``). The wall clock
  /// is only read to timestamp what is written.
  public init(
    configuration: RelayConfiguration = .init(), clock: any SessionClock = MonotonicClock(),
    logger: Logger = Logger(label: "cowatch.relay"), epoch: String? = nil,
    ownerKey: String? = nil, store: (any RoomStore)? = nil, directory: (any RoomDirectory)? = nil,
    restoring: [StoredRoom] = [], feedsSuccessors: Bool = false, countsStatistics: Bool = true,
    wallClock: @escaping @Sendable () -> Int64 = WallClock.nanoseconds,
    outsideClock: any SessionClock = MonotonicClock()
  ) {
    self.outsideClock = outsideClock
    self.directory = directory
    self.feedsSuccessors = feedsSuccessors
    self.countsStatistics = countsStatistics
    var random = SystemRandomNumberGenerator()
    let epoch = epoch ?? String(random.next(), radix: 16)
    self.configuration = configuration
    self.epoch = epoch
    let ownerKey = ownerKey ?? RelayCore.systemSecret()
    self.ownerKey = ownerKey
    self.clock = clock
    self.logger = logger
    self.store = store
    self.wallClock = wallClock
    tunnelRates = configuration.tunnels.map {
      TunnelMeter.Shared(TunnelRates(policy: $0, at: outsideClock.nanoseconds()))
    }
    state = Mutex(
      State(
        core: RelayCore(
          configuration: configuration, epoch: epoch,
          ownerKey: feedsSuccessors ? ownerKey : nil, tracksStoreChanges: store != nil,
          feedsSuccessors: feedsSuccessors, verifyProof: RoomKeys.verify(signature:of:verifier:))))
    if !restoring.isEmpty {
      state.withLock { s in perform(s.core.restore(restoring, at: clock.groupNow()), in: &s) }
    }
  }

  // MARK: - Connections

  /// A new connection from `address` (nil: in-process) for a participant of `origin` (the
  /// Syncplay bridge opens its own): returns its id, or nil when the relay has stopped or
  /// holds as many connections as it allows — then the outlet has been told why and closed.
  public func open(
    _ outlet: any RelayOutlet, address: String? = nil, origin: ParticipantOrigin = .cowatch
  ) -> ConnectionID? {
    defer { trafficMoved() }
    return state.withLock { s in
      guard !s.stopped else {
        // Closed at once, or the participant would wait for a welcome that never comes
        // (its listening socket may take a moment longer to close than the relay).
        if let farewell = s.farewell, !s.abandoned { _ = outlet.write(farewell) }
        outlet.close(flush: !s.abandoned)
        return nil
      }
      let full = s.outlets.count >= configuration.maximumConnections
      let fromAddress = address.map { s.perAddress[$0, default: 0] } ?? 0
      if full || fromAddress >= configuration.maximumConnectionsPerAddress {
        let text =
          full
          ? "the relay is full (\(configuration.maximumConnections) connections)"
          : "too many connections from \(address ?? "")"
        _ = outlet.write(
          codec.encode(ServerMessage.error(code: .tooManyConnections, message: text, fatal: true)))
        outlet.close(flush: true)
        if admitLogLine(in: &s) { logger.notice("\(Self.loggable(text)); refused a connection") }
        return nil
      }
      let id = ConnectionID(s.nextConnection)
      s.nextConnection += 1
      s.outlets[id] = CountedOutlet(outlet)
      if let address {
        s.addresses[id] = address
        s.perAddress[address, default: 0] += 1
      }
      perform(
        s.core.connected(id, address: address, origin: origin, at: clock.groupNow()), in: &s)
      return id
    }
  }

  /// One line the connection sent (without its newline).
  public func received(_ line: [UInt8], from id: ConnectionID) {
    defer { trafficMoved() }
    if line.isEmpty {
      state.withLock { s in
        s.outlets[id]?.countReceived()
        perform(s.core.receivedEmptyLine(from: id, at: clock.groupNow()), in: &s)
      }
      return
    }
    let decoded: Result<ClientMessage, WireError>
    do throws(WireError) {
      decoded = .success(try codec.decodeClient(line))
    } catch {
      decoded = .failure(error)
    }
    state.withLock { s in
      s.outlets[id]?.countReceived()
      let now = clock.groupNow()
      switch decoded {
      case .success(let message):
        guard !holdForClaim(message, from: id, in: &s) else { return }
        perform(s.core.received(message, from: id, at: now), in: &s)
      case .failure(let error): perform(s.core.receivedInvalid(error, from: id, at: now), in: &s)
      }
    }
  }

  /// A decoded message (in-process callers that skip the codec).
  public func received(_ message: ClientMessage, from id: ConnectionID) {
    defer { trafficMoved() }
    state.withLock { s in
      s.outlets[id]?.countReceived()
      guard !holdForClaim(message, from: id, in: &s) else { return }
      perform(s.core.received(message, from: id, at: clock.groupNow()), in: &s)
    }
  }

  /// The connection sent a line longer than the frame limit.
  public func receivedOversized(from id: ConnectionID, limit: Int) {
    receivedInvalid(.frameTooLarge(limit: limit), from: id)
  }

  /// The connection's unfinished line took the relay's unfinished lines, all connections'
  /// together, past their budget: refused in words (whole lines cost nothing to hold).
  public func receivedOverBudget(from id: ConnectionID) {
    defer { trafficMoved() }
    state.withLock { s in
      reject(
        id, code: .rateLimited,
        "the relay holds too many unfinished lines right now; send whole lines, or try again soon",
        in: &s)
    }
  }

  /// The connection sent something that could not be framed or decoded.
  public func receivedInvalid(_ error: WireError, from id: ConnectionID) {
    defer { trafficMoved() }
    state.withLock { s in
      s.outlets[id]?.countReceived()
      perform(s.core.receivedInvalid(error, from: id, at: clock.groupNow()), in: &s)
    }
  }

  /// The transport closed the connection.
  public func closed(_ id: ConnectionID) {
    defer { trafficMoved() }
    state.withLock { s in
      if let tunnel = s.tunnelOf[id] {
        endTunnel(tunnel, in: &s)
        perform(s.core.tunnelEnded(tunnel, at: clock.groupNow()), in: &s)
        return
      }
      if s.held.removeValue(forKey: id) != nil { directory?.helloGone(on: id) }
      Self.forget(id, in: &s)
      guard s.outlets.removeValue(forKey: id) != nil else { return }
      perform(s.core.disconnected(id, at: clock.groupNow()), in: &s)
    }
  }

  /// Closes every connection at once, as a network cut would: members keep their places
  /// for the reconnect grace.
  public func dropAllConnections() {
    state.withLock { s in
      let now = clock.groupNow()
      for (id, outlet) in s.outlets.sorted(by: { $0.key < $1.key }) {
        s.outlets[id] = nil
        Self.forget(id, in: &s)
        outlet.close(flush: false)
        perform(s.core.disconnected(id, at: now), in: &s)
      }
    }
  }

  /// Stops as `kill -9` would, for fault drills and tests: every connection cut without a
  /// word, nothing more written to the store, no lease given back (they expire).
  public func abandon() {
    state.withLock { s in
      s.stopped = true
      s.abandoned = true
      for (_, outlet) in s.outlets { outlet.close(flush: false) }
      s.outlets = [:]
      for tunnel in s.tunnels.keys { endTunnel(tunnel, in: &s) }
    }
  }

  /// Stops taking connections, tells every participant why, and closes the connections.
  /// `final`: the relay will not come back (a host's): participants stop rather than try
  /// to reconnect.
  public func stop(reason: String = "the relay is shutting down", final: Bool = false) {
    let line = codec.encode(
      ServerMessage.error(
        code: final ? .roomClosed : .serverShuttingDown, message: reason, fatal: true))
    state.withLock { s in
      guard !s.stopped else { return }
      s.stopped = true
      s.farewell = line
      for (_, outlet) in s.outlets {
        _ = outlet.write(line)
        outlet.close(flush: true)
      }
      s.outlets = [:]
      for tunnel in s.tunnels.keys { endTunnel(tunnel, in: &s) }
    }
  }

  // MARK: - Time

  /// Runs the time-driven rules due now; returns when they are next due (nanoseconds).
  @discardableResult
  public func tick() -> Int64 {
    state.withLock { s in
      let now = clock.groupNow()
      perform(s.core.tick(at: now), in: &s)
      return s.core.nextDeadline(after: now).nanoseconds
    }
  }

  /// Ticks on time until cancelled, and with a store, writes what changed (see
  /// ``runStoreWriter(interval:)``). Sleeps at most 50 ms, so that a deadline a command
  /// brought forward is never missed by more than that.
  public func run() async {
    await withDiscardingTaskGroup { group in
      if store != nil { group.addTask { await self.runStoreWriter() } }
      if directory != nil { group.addTask { await self.runLeaseKeeper() } }
      if feedsSuccessors { group.addTask { await self.runSuccessorFeeder() } }
      while !Task.isCancelled {
        let deadline = tick()
        let cap = clock.nanoseconds() &+ 50_000_000
        await clock.sleep(untilNanoseconds: min(deadline, cap))
      }
    }
    // Everything is written: the rooms' leases go back at once, so that another relay
    // takes them over as soon as their participants ask, not a lease later.
    if let directory, !state.withLock({ $0.abandoned }) {
      let rooms = state.withLock { $0.core.roomNames }
      if !rooms.isEmpty {
        try? await Task(executorPreference: clock.taskExecutor) {
          try await directory.release(rooms)
        }.value
      }
    }
  }

  // MARK: - Introspection

  public func state(ofRoom room: String) -> GroupState? {
    state.withLock { $0.core.state(ofRoom: room) }
  }
  /// See ``RelayCore/term(ofRoom:)``.
  public func term(ofRoom room: String) -> UInt64? {
    state.withLock { $0.core.term(ofRoom: room) }
  }
  public var roomNames: [String] { state.withLock { $0.core.roomNames } }
  /// Stopped or killed: whatever its rooms say, it serves nobody.
  public var isStopped: Bool { state.withLock { $0.stopped } }

  /// The relay serves with a renewed certificate (see ``RelayCore/servesCertificate(_:)``).
  public func servesCertificate(_ fingerprint: String) {
    state.withLock { $0.core.servesCertificate(fingerprint) }
  }
  public var connectionCount: Int { state.withLock { $0.outlets.count } }

  /// Calls `observer` after every change of ``openTraffic`` that a connection's own thread
  /// makes (a connection opened or closed, a line in): a driver of virtual time, whose
  /// executor does not see a TCP relay's event loops, waits for these.
  public func observeTraffic(_ observer: @escaping @Sendable () -> Void) {
    trafficObserver.withLock { $0 = observer }
  }

  private func trafficMoved() { trafficObserver.withLock { $0 }?() }

  /// Lines on the connections open now: how many there are, the lines they brought in and
  /// those written to them. A driver of virtual time compares it with what its own
  /// participants sent and handled, to know that nothing is on its way.
  public var openTraffic: LineTraffic {
    state.withLock { s in
      s.outlets.values.reduce(into: LineTraffic()) { total, outlet in
        total.connections += 1
        total.received += outlet.received
        total.written += outlet.written
      }
    }
  }
  /// Other relays of the shared database this relay knows of (see ``Welcome/relays``).
  public var peerCount: Int { state.withLock { $0.core.peers.count } }

  /// Stops counting a connection against its address.
  static func forget(_ id: ConnectionID, in s: inout State) {
    s.connectionLogBudgets[id] = nil
    guard let address = s.addresses.removeValue(forKey: id) else { return }
    let left = (s.perAddress[address] ?? 1) - 1
    s.perAddress[address] = left > 0 ? left : nil
  }

  // MARK: - Effects

  func perform(_ actions: [RelayAction], in s: inout State) {
    var pending = actions[...]
    while let action = pending.popFirst() {
      switch action {
      case .send(let message, let to):
        if countsStatistics { Self.count(message, recipients: 1, in: &s.counted) }
        if let more = write(codec.encode(message), to: to, in: &s) { pending += more }
      case .broadcast(let message, let to):
        if countsStatistics { Self.count(message, recipients: to.count, in: &s.counted) }
        let line = codec.encode(message)
        for id in to {
          if let more = write(line, to: id, in: &s) { pending += more }
        }
      case .pong(let to, let id, let t0, let t1):
        let line = codec.encodePong(id: id, t0: t0, t1: t1, t2: clock.groupNow())
        if let more = write(line, to: to, in: &s) { pending += more }
      case .close(let id):
        s.outlets.removeValue(forKey: id)?.close(flush: true)
        Self.forget(id, in: &s)
      case .locate(let room, let endpoint):
        guard let locator = s.locator else {
          s.locateRequests?.append(LocateRequest(room: room, relay: endpoint, reachability: nil))
          continue
        }
        Task(executorPreference: clock.taskExecutor) {
          let answer = await locator(room, endpoint)
          self.located(room, at: endpoint, answer)
        }
      case .checkReachable(let room, let participant, let endpoint):
        // Any answer at all says the relay there can be reached from here.
        guard let locator = s.locator else {
          s.locateRequests?.append(
            LocateRequest(room: room, relay: endpoint, reachability: participant))
          continue
        }
        Task(executorPreference: clock.taskExecutor) {
          let reachable = await locator(room, endpoint).answered
          self.reachability(of: participant, in: room, at: endpoint, reachable: reachable)
        }
      case .splice(let tunnel, let a, let b, let room):
        pending += splice(tunnel, a, b, room: room, in: &s)
      case .closeTunnel(let tunnel):
        endTunnel(tunnel, in: &s)
      case .log(let level, let raw, let about):
        let loggerLevel: Logger.Level =
          switch level {
          case .debug: .debug
          case .info: .info
          case .notice: .notice
          case .warning: .warning
          }
        // Lines the logger would drop neither cost the budget nor get escaped.
        guard logger.logLevel <= loggerLevel, admitLogLine(about: about, in: &s) else { continue }
        logger.log(level: loggerLevel, "\(Self.loggable(raw))")
      }
    }
  }

  /// Counts what a message says about the relay's work (its metrics).
  static func count(
    _ message: ServerMessage, recipients: Int, in counted: inout RelayStatistics
  ) {
    switch message {
    case .step: counted.steps += 1
    case .message: counted.messages += recipients
    case .error(let code, _, _): counted.refusals[code, default: 0] += recipients
    case .tunnelRefused: counted.tunnelsRefused += recipients
    default: break
    }
  }

  /// Each room's name, people, whether it needs a password, and who hosts it.
  public var roomSummaries: [RoomSummary] { state.withLock { $0.core.roomSummaries } }

  /// What the relay has done and holds now.
  public var statistics: RelayStatistics {
    var statistics = state.withLock { s in
      var statistics = s.counted
      statistics.rooms = s.core.roomNames.count
      statistics.connections = s.outlets.count
      let (members, connected) = s.core.memberCounts
      statistics.members = members
      statistics.connectedMembers = connected
      statistics.storeUnwritten = store != nil && s.core.hasStoreChanges
      statistics.openTunnels = s.tunnels.count
      return statistics
    }
    if let tunnelRates { statistics.tunnelBytes = tunnelRates.state.withLock { $0.carried } }
    storeWriter.withLock { w in
      if w.writing { statistics.storeUnwritten = true }
      statistics.storeWrites = w.batches
      statistics.storeWriteFailures = w.failures
      statistics.storeWriteNanoseconds = w.writeNanoseconds
      statistics.longestStoreWrite = w.longestWrite
    }
    return statistics
  }

  /// A TLS handshake failed (the TCP edge says so).
  public func countTLSHandshakeFailure() {
    state.withLock { $0.counted.tlsHandshakeFailures += 1 }
  }

  /// Whether one more log line (about `connection`, if given) may be written now, within
  /// that connection's share and the relay's; logs how many were left out before it.
  func admitLogLine(about connection: ConnectionID? = nil, in s: inout State) -> Bool {
    let now = clock.nanoseconds()
    if let connection {
      var own =
        s.connectionLogBudgets[connection] ?? LogBudget(burst: Self.connectionLogBurst)
      let admitted = own.take(
        at: now, rate: Self.connectionLogLinesPerSecond, burst: Self.connectionLogBurst)
      if s.outlets[connection] != nil { s.connectionLogBudgets[connection] = own }
      guard admitted else {
        s.suppressedLogLines += 1
        return false
      }
    }
    guard s.logBudget.take(at: now, rate: Self.logLinesPerSecond, burst: Self.logBurst) else {
      s.suppressedLogLines += 1
      return false
    }
    if s.suppressedLogLines > 0 {
      logger.notice(
        "\(s.suppressedLogLines) log lines left out (over the log's rate limits)")
      s.suppressedLogLines = 0
    }
    return true
  }

  /// Log text may quote what a peer sent (an unknown message type, a malformed field):
  /// controls, DEL, C1, separators and bidi controls are written as `\u{…}` so that a peer
  /// cannot forge log lines or drive the terminal of whoever reads the log, and the text
  /// is cut at 300 characters.
  public static func loggable(_ text: String) -> String {
    var out = ""
    var count = 0
    for scalar in text.unicodeScalars {
      count += 1
      if count > 300 {
        out += "…"
        break
      }
      if SafeText.mustEscape(scalar) {
        out += "\\u{\(String(scalar.value, radix: 16))}"
      } else {
        out.unicodeScalars.append(scalar)
      }
    }
    return out
  }

  /// Makes two connections one tunnel: each is told `tunnelReady`, then the edge carries
  /// bytes between them. An edge that cannot (in memory) closes both.
  private func splice(
    _ tunnel: TunnelID, _ a: ConnectionID, _ b: ConnectionID, room: String, in s: inout State
  ) -> [RelayAction] {
    let first = s.outlets.removeValue(forKey: a)
    let second = s.outlets.removeValue(forKey: b)
    guard let first, let second, let rates = tunnelRates,
      let near = first.base as? any SplicingOutlet, let far = second.base as? any SplicingOutlet
    else {
      first?.close(flush: false)
      second?.close(flush: false)
      Self.forget(a, in: &s)
      Self.forget(b, in: &s)
      return s.core.tunnelEnded(tunnel, at: clock.groupNow())
    }
    let ready = codec.encode(ServerMessage.tunnelReady)
    _ = first.write(ready)
    _ = second.write(ready)
    s.tunnels[tunnel] = (first, second, room)
    s.tunnelOf[a] = tunnel
    s.tunnelOf[b] = tunnel
    near.splice(with: far, meter: TunnelMeter(room: room, rates: rates, clock: outsideClock))
    return []
  }

  /// Closes a tunnel's two connections (whichever ended first, the other goes too).
  private func endTunnel(_ tunnel: TunnelID, in s: inout State) {
    guard let (first, second, room) = s.tunnels.removeValue(forKey: tunnel) else { return }
    // After what was on its way (the last bytes of an answer).
    first.close(flush: true)
    second.close(flush: true)
    for (id, owner) in s.tunnelOf where owner == tunnel {
      s.tunnelOf[id] = nil
      Self.forget(id, in: &s)
    }
    if let tunnelRates, !s.tunnels.values.contains(where: { $0.room == room }) {
      let now = outsideClock.nanoseconds()
      tunnelRates.state.withLock { $0.forget(room: room, at: now) }
    }
  }

  /// Writes to one outlet; a reader that lets more than the limit pile up is closed and
  /// its member disconnected (the actions that follows are returned to perform).
  private func write(_ line: [UInt8], to id: ConnectionID, in s: inout State) -> [RelayAction]? {
    guard let outlet = s.outlets[id] else { return nil }
    let queued = outlet.write(line)
    guard queued > configuration.maximumQueuedBytes else { return nil }
    if admitLogLine(in: &s) {
      logger.notice("\(id) is not reading (\(queued) bytes queued); closing it")
    }
    s.outlets[id] = nil
    Self.forget(id, in: &s)
    outlet.close(flush: false)
    return s.core.disconnected(id, at: clock.groupNow())
  }
}
