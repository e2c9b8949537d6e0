import Clocks
import PlaybackCoordination
import RelayRuntime
import RoomCrypto
import Synchronization
import Testing
import WireProtocol

@testable import Rooms

/// Drives the relay's one runtime (``RelayRuntime``, the same as TCP and in-memory use)
/// on a manual clock, with outlets that record what it writes, decoded back from the wire.
struct RelayDriver {
  /// What the relay writes to one connection.
  final class RecordingOutlet: RelayOutlet {
    let lines = Mutex<[[UInt8]]>([])
    let closed = Mutex(false)
    func write(_ line: [UInt8]) -> Int {
      lines.withLock { $0.append(line) }
      return 0
    }
    func close(flush: Bool) { closed.withLock { $0 = true } }
  }

  let clock: ManualClock
  let runtime: RelayRuntime
  /// The runtime, under the name the tests read the relay's state by.
  var core: RelayRuntime { runtime }
  var now: GroupInstant { clock.groupNow() }
  var outbox: [ConnectionID: [ServerMessage]] = [:]
  var closed: Set<ConnectionID> = []
  /// The longest line the relay wrote to each connection, in bytes.
  var longestLine: [ConnectionID: Int] = [:]
  /// What each connection's participant would hold: welcome, then steps replayed.
  var replicas: [ConnectionID: GroupEngine] = [:]
  /// The runtime's id and outlet for each connection number the tests use.
  private var connections: [UInt64: (id: ConnectionID, outlet: RecordingOutlet)] = [:]
  private let codec = WireCodec()
  /// Each name's resume key, as that participant's machine would hold it: the same for
  /// every relay a test starts (a relay restarted from its store meets the same people).
  private static let resumeKeys = Mutex<[String: ResumeKey]>([:])

  /// `name`'s resume key (made the first time it is asked for).
  func key(_ name: String) -> ResumeKey {
    Self.resumeKeys.withLock { keys in
      if let key = keys[name] { return key }
      let key = ResumeKey.generate()
      keys[name] = key
      return key
    }
  }

  init(
    _ configuration: RelayConfiguration = .init(), store: (any RoomStore)? = nil,
    restoring: [StoredRoom] = [], epoch: String = "test", at start: Int64 = 100_000_000_000,
    feedsSuccessors: Bool = false
  ) {
    // With a simulation: what the runtime starts on tasks of its own (a locator's answers)
    // runs where ``settle()`` sees it end.
    let clock = ManualClock(nanoseconds: start, simulation: SimulationExecutor())
    self.clock = clock
    runtime = RelayRuntime(
      configuration: configuration, clock: clock, epoch: epoch, store: store,
      restoring: restoring, feedsSuccessors: feedsSuccessors,
      wallClock: { 1_700_000_000_000_000_000 &+ clock.nanoseconds() })
  }

  /// What the participant of the relay's own machine says to it: that it runs it, with
  /// its key.
  var ownOffer: CarryOffer {
    CarryOffer(port: 7700, fingerprint: nil, runsRelay: true, relayKey: runtime.ownerKey)
  }

  mutating func deliver(_ m: ServerMessage, to id: ConnectionID) {
    outbox[id, default: []].append(m)
    switch m {
    case .welcome(let w): replicas[id] = GroupEngine(configuration: w.configuration, state: w.state)
    case .update(let state, _):
      if let c = replicas[id]?.configuration {
        replicas[id] = GroupEngine(configuration: c, state: state)
      }
    case .step(let step):
      guard var replica = replicas[id] else { return }
      if replica.replay(step) == nil {
        Issue.record(
          "\(id): step \(step.before)→\(step.after) does not replay on \(replica.state.sequence)")
      }
      replicas[id] = replica
    default: break
    }
  }

  /// Waits until what the runtime started on tasks of its own has run, then takes what it
  /// wrote: nothing more can come until the clock moves or someone sends.
  mutating func settle() async {
    await VirtualTime(clock: clock).settle()
    collect()
  }

  /// Takes what the runtime wrote since the last call, in order.
  mutating func collect() {
    for (number, connection) in connections.sorted(by: { $0.key < $1.key }) {
      let lines = connection.outlet.lines.withLock { l in
        defer { l = [] }
        return l
      }
      for var line in lines {
        longestLine[ConnectionID(number)] = max(
          longestLine[ConnectionID(number)] ?? 0, line.count)
        if line.last == UInt8(ascii: "\n") { line.removeLast() }
        do throws(WireError) {
          deliver(try codec.decodeServer(line), to: ConnectionID(number))
        } catch {
          Issue.record("the relay wrote an undecodable line: \(error)")
        }
      }
      if connection.outlet.closed.withLock({ $0 }) { closed.insert(ConnectionID(number)) }
    }
  }

  mutating func connect(
    _ number: UInt64, address: String? = nil, origin: ParticipantOrigin = .cowatch
  ) {
    let outlet = RecordingOutlet()
    guard let id = runtime.open(outlet, address: address, origin: origin) else { return }
    connections[number] = (id, outlet)
    collect()
  }
  /// Sends `m` as a participant would: a hello that resumes proves the name's key (unless
  /// the test gave a proof of its own), a first hello gives it.
  mutating func send(_ m: ClientMessage, from number: UInt64) {
    guard let id = connections[number]?.id else { return }
    var m = m
    if case .hello(let version, let name, let room, var resume, let protect, let resumeKey) = m {
      let key = key(name)
      if let participant = resume?.participant, resume?.proof.isEmpty == true {
        resume?.proof = key.prove(room: room, participant: participant, relay: nil)
      }
      m = .hello(
        version: version, name: name, room: room, resume: resume, protect: protect,
        resumeKey: resumeKey ?? (resume == nil ? key.publicKey : nil))
    }
    runtime.received(m, from: id)
    collect()
  }
  mutating func invalid(_ e: WireError, from number: UInt64) {
    guard let id = connections[number]?.id else { return }
    runtime.receivedInvalid(e, from: id)
    collect()
  }
  /// Raw lines, as a TCP connection would deliver them (empty ones included).
  mutating func sendLines(_ lines: [[UInt8]], from number: UInt64) {
    guard let id = connections[number]?.id else { return }
    for line in lines { runtime.received(line, from: id) }
    collect()
  }
  mutating func drop(_ number: UInt64) {
    guard let id = connections[number]?.id else { return }
    runtime.closed(id)
    collect()
  }
  /// The relay process does not run for `seconds` (SIGSTOP, a suspended machine), then
  /// ticks once.
  mutating func stall(_ seconds: Double) {
    clock.advance(bySeconds: seconds)
    runtime.tick()
    collect()
  }

  mutating func advance(_ seconds: Double) {
    let end = now.advanced(bySeconds: seconds)
    while now < end {
      clock.advance(toNanoseconds: min(end, now.advanced(bySeconds: 0.1)).nanoseconds)
      runtime.tick()
      collect()
    }
  }
  /// A new connection `id` says hello (with `resume`: back to a kept place).
  mutating func hello(
    _ id: UInt64, _ name: String, room: String = "lobby", address: String? = nil,
    origin: ParticipantOrigin = .cowatch, resume: ResumeToken? = nil
  ) {
    connect(id, address: address, origin: origin)
    send(
      .hello(version: ProtocolVersion.current, name: name, room: room, resume: resume), from: id)
  }
  func welcome(_ id: UInt64) -> Welcome? {
    for m in outbox[ConnectionID(id)] ?? [] { if case .welcome(let w) = m { return w } }
    return nil
  }
  /// The ids the relay rejected on this connection, with the reasons' text.
  func rejections(_ id: UInt64) -> [(UInt64, String)] {
    (outbox[ConnectionID(id)] ?? []).compactMap {
      if case .rejected(let requestID, let reason) = $0 {
        (requestID, reason.description)
      } else {
        nil
      }
    }
  }

  func accepted(_ id: UInt64) -> [UInt64] {
    (outbox[ConnectionID(id)] ?? []).compactMap {
      if case .accepted(let requestID, _) = $0 { requestID } else { nil }
    }
  }

  func errors(_ id: UInt64) -> [ErrorCode] {
    (outbox[ConnectionID(id)] ?? []).compactMap {
      if case .error(let c, _, _) = $0 { c } else { nil }
    }
  }
  func lastState(_ id: UInt64) -> GroupState? { replicas[ConnectionID(id)]?.state }
}

@Suite("Relay core")
struct RelayCoreTests {
  @Test("a participant's origin comes from the connection the relay accepted, never from the peer")
  func origin() throws {
    var r = RelayDriver()
    r.hello(1, "ann")
    r.hello(2, "sam", origin: .syncplay)
    #expect(r.lastState(1)?.participants.map(\.origin) == [.cowatch, .syncplay])
    #expect(try #require(r.welcome(2)).state.participants.last?.origin == .syncplay)
    // A participant cannot enter anyone (itself included) as another program.
    r.send(.command(id: 1, .enter(name: "eve", origin: .syncplay)), from: 1)
    #expect(r.rejections(1).first?.1.contains("only the relay sends that command") == true)
    #expect(r.lastState(1)?.participants.count == 2)
  }

  @Test("hello enters the room and everyone else hears of it")
  func helloEnters() throws {
    var r = RelayDriver()
    r.hello(1, "ann")
    r.hello(2, "bob")
    let w = try #require(r.welcome(2))
    #expect(w.state.participants.map(\.name) == ["ann", "bob"])
    #expect(r.lastState(1)?.participants.map(\.name) == ["ann", "bob"])
  }

  @Test("a wrong protocol version gets an error naming both versions and is closed")
  func wrongVersion() {
    var r = RelayDriver()
    r.connect(1)
    r.send(.hello(version: 99, name: "ann", room: "lobby", resume: nil), from: 1)
    #expect(r.errors(1) == [.unsupportedVersion])
    #expect(r.closed.contains(ConnectionID(1)))
    #expect(r.core.roomNames.isEmpty)
  }

  @Test("a version-1 client's hello, as it sends it, is told what to do")
  func versionOneHello() throws {
    var r = RelayDriver()
    r.connect(1)
    // The exact bytes a version-1 build sends: the hello's shape did not change in
    // version 2, so the relay can still read it and answer in words.
    let line = #"{"name":"ann","room":"lobby","type":"hello","version":1}"#
    r.send(try WireCodec().decodeClient(Array(line.utf8)), from: 1)
    let answer = try #require(r.outbox[ConnectionID(1)]?.first)
    #expect(
      answer
        == .error(
          code: .unsupportedVersion,
          message:
            "this relay speaks Cowatch protocol \(ProtocolVersion.current) and you sent 1: use the same cowatch version on both ends",
          fatal: true))
    #expect(r.closed.contains(ConnectionID(1)))
    #expect(r.core.roomNames.isEmpty)
  }

  @Test("anything before hello is refused")
  func helloFirst() {
    var r = RelayDriver()
    r.connect(1)
    r.send(.command(id: 1, .join), from: 1)
    #expect(r.errors(1) == [.helloRequired])
    #expect(r.closed.contains(ConnectionID(1)))
  }

  @Test("a malformed frame closes only that connection; the room carries on")
  func malformedFrame() {
    var r = RelayDriver()
    r.hello(1, "ann")
    r.hello(2, "bob")
    r.invalid(.malformed("not JSON"), from: 2)
    #expect(r.errors(2) == [.malformedFrame])
    #expect(r.closed == [ConnectionID(2)])
    #expect(r.lastState(1)?.participants.map(\.name) == ["ann"])
    r.send(.ping(id: 1, t0: LocalInstant(nanoseconds: 5)), from: 1)
    #expect(
      r.outbox[ConnectionID(1)]?.last.map { if case .pong = $0 { true } else { false } } == true)
  }

  @Test("a full room refuses the next participant")
  func fullRoom() {
    var c = RelayConfiguration()
    c.maximumParticipantsPerRoom = 2
    var r = RelayDriver(c)
    r.hello(1, "ann")
    r.hello(2, "bob")
    r.hello(3, "cat")
    #expect(r.errors(3) == [.roomFull])
    #expect(r.lastState(1)?.participants.count == 2)
  }

  @Test(
    "a connection over the message rate is told and closed; the member keeps its place and its answers"
  )
  func rateLimit() throws {
    var c = RelayConfiguration()
    c.messagesPerSecond = 10
    c.messageBurst = 20
    var r = RelayDriver(c)
    r.hello(1, "ann")
    r.send(.command(id: 1, .setAutoAdvance(true)), from: 1)
    for i in 0..<30 { r.send(.ping(id: UInt64(i), t0: LocalInstant(nanoseconds: 0)), from: 1) }
    #expect(r.errors(1) == [.rateLimited])
    #expect(r.closed.contains(ConnectionID(1)))
    let ann = try #require(r.welcome(1))
    #expect(r.core.state(ofRoom: "lobby")?.participant(ann.participant)?.isConnected == false)
    r.hello(2, "ann", resume: ann.resume)
    #expect(r.welcome(2)?.resumed == true)
    r.send(.command(id: 1, .setAutoAdvance(true)), from: 2)
    #expect(r.accepted(2) == [1], "the resend is answered, not applied again")
  }

  /// ann and bob in the lobby of a relay with these timings, seconds.
  static func annAndBob(heartbeat: Double, grace: Double) -> RelayDriver {
    var c = RelayConfiguration()
    c.heartbeatTimeout = heartbeat
    c.reconnectGrace = grace
    var r = RelayDriver(c)
    r.hello(1, "ann")
    r.hello(2, "bob")
    return r
  }

  @Test(
    "a silent member's connection is closed after the heartbeat timeout; it keeps its place for the grace, as after any lost connection"
  )
  func heartbeat() throws {
    var r = Self.annAndBob(heartbeat: 3, grace: 4)
    let token = try #require(r.welcome(2)).resume
    func annPings(for seconds: Int) {
      for _ in 0..<seconds {
        r.advance(1)
        r.send(.ping(id: 1, t0: LocalInstant(nanoseconds: 0)), from: 1)
      }
    }
    annPings(for: 4)
    #expect(r.errors(2) == [.heartbeatTimeout])
    #expect(r.closed.contains(ConnectionID(2)))
    #expect(r.lastState(1)?.participants.map(\.name) == ["ann", "bob"], "bob keeps his place")
    #expect(r.lastState(1)?.participant(token.participant)?.isConnected == false)
    // A laptop opened again, a process resumed: back in the same place.
    annPings(for: 2)
    r.hello(3, "bob", resume: token)
    #expect(r.welcome(3)?.resumed == true)
    #expect(r.lastState(1)?.participant(token.participant)?.isConnected == true)
  }

  @Test(
    "a silent member that does not come back is removed after the heartbeat timeout and the grace")
  func heartbeatThenGrace() {
    var r = Self.annAndBob(heartbeat: 3, grace: 4)
    for _ in 0..<9 {
      r.advance(1)
      r.send(.ping(id: 1, t0: LocalInstant(nanoseconds: 0)), from: 1)
    }
    #expect(r.lastState(1)?.participants.map(\.name) == ["ann"])
  }

  @Test("a dropped member keeps its place for the grace and resumes with its token")
  func resume() throws {
    var r = RelayDriver()
    r.hello(1, "ann")
    r.hello(2, "bob")
    let token = try #require(r.welcome(2)).resume
    r.drop(2)
    #expect(r.lastState(1)?.participant(token.participant)?.isConnected == false)
    r.advance(1)
    r.hello(3, "bob", resume: token)
    let w = try #require(r.welcome(3))
    #expect(w.resumed)
    #expect(w.participant == token.participant)
    #expect(r.lastState(1)?.participant(token.participant)?.isConnected == true)
  }

  @Test("a dropped member that does not come back is removed after the grace")
  func graceExpires() {
    var c = RelayConfiguration()
    c.reconnectGrace = 2
    var r = RelayDriver(c)
    r.hello(1, "ann")
    r.hello(2, "bob")
    r.drop(2)
    r.send(.ping(id: 1, t0: LocalInstant(nanoseconds: 0)), from: 1)
    r.advance(1.5)
    r.send(.ping(id: 2, t0: LocalInstant(nanoseconds: 0)), from: 1)
    #expect(r.lastState(1)?.participants.count == 2)
    r.advance(1)
    #expect(r.lastState(1)?.participants.map(\.name) == ["ann"])
  }

  @Test("a wrong resume secret is a new participant, not a takeover")
  func badSecret() throws {
    var r = RelayDriver()
    r.hello(1, "ann")
    let token = try #require(r.welcome(1)).resume
    r.connect(2)
    r.send(
      .hello(
        version: ProtocolVersion.current, name: "eve", room: "lobby",
        resume: ResumeToken(participant: token.participant, proof: Array(repeating: 7, count: 64))),
      from: 2)
    let w = try #require(r.welcome(2))
    #expect(!w.resumed)
    #expect(w.participant != token.participant)
  }

  @Test("a command resent after a reconnection applies once")
  func duplicateCommand() throws {
    var r = RelayDriver()
    r.hello(1, "ann")
    let series = SeriesInfo(
      id: "s", title: "S", items: [ItemInfo(id: "s/e1", title: "E1", duration: 60)])
    r.send(.command(id: 1, .start(series: series, item: "s/e1")), from: 1)
    let sequence = try #require(r.lastState(1)).sequence
    r.send(.command(id: 1, .start(series: series, item: "s/e1")), from: 1)
    #expect(r.lastState(1)?.sequence == sequence)
    #expect(r.lastState(1)?.sessionCounter == 1)
  }

  @Test("participants cannot send the relay's own commands")
  func relayOnlyCommands() {
    var r = RelayDriver()
    r.hello(1, "ann")
    r.send(.command(id: 1, .exit(reason: .quit)), from: 1)
    let rejected = r.outbox[ConnectionID(1)]?.contains {
      if case .rejected(1, _) = $0 { true } else { false }
    }
    #expect(rejected == true)
    #expect(r.lastState(1)?.participants.count == 1)
  }

  @Test(
    "messages go to everyone else, or only to the chosen ones; each is answered; unknown recipients are refused"
  )
  func messenger() throws {
    var r = RelayDriver()
    r.hello(1, "ann")
    r.hello(2, "bob")
    r.hello(3, "cat")
    let bob = try #require(r.welcome(2)).participant
    r.send(.send(seq: 1, to: .only([bob]), kind: "chat", body: "psst"), from: 1)
    r.send(.send(seq: 2, to: .all, kind: "chat", body: "hi"), from: 1)
    r.send(.send(seq: 3, to: .only(["nobody"]), kind: "chat", body: "?"), from: 1)
    func bodies(_ id: UInt64) -> [String] {
      (r.outbox[ConnectionID(id)] ?? []).compactMap {
        if case .message(_, _, _, _, let b, _, _) = $0 { b } else { nil }
      }
    }
    #expect(bodies(2) == ["psst", "hi"])
    #expect(bodies(3) == ["hi"])
    #expect(bodies(1) == [])
    #expect(r.accepted(1).suffix(2) == [1, 2])
    #expect(r.rejections(1).map(\.0) == [3])
    #expect(r.rejections(1).first?.1.contains("not in this room: nobody") == true)
  }

  @Test("an oversized message is refused and the connection stays open")
  func oversizedMessage() {
    var c = RelayConfiguration()
    c.maximumMessageBytes = 10
    var r = RelayDriver(c)
    r.hello(1, "ann")
    r.hello(2, "bob")
    r.send(.send(seq: 1, to: .all, kind: "chat", body: String(repeating: "x", count: 50)), from: 1)
    #expect(r.rejections(1).map(\.0) == [1])
    #expect(r.rejections(1).first?.1.contains("over the 10-byte limit") == true)
    #expect(!r.closed.contains(ConnectionID(1)))
  }

  @Test("messages for a disconnected member wait for its return")
  func pendingMessages() throws {
    var r = RelayDriver()
    r.hello(1, "ann")
    r.hello(2, "bob")
    let token = try #require(r.welcome(2)).resume
    r.drop(2)
    r.send(.send(seq: 1, to: .all, kind: "chat", body: "while you were away"), from: 1)
    r.hello(3, "bob", resume: token)
    let got = (r.outbox[ConnectionID(3)] ?? []).compactMap {
      if case .message(_, _, _, _, let b, _, _) = $0 { b } else { nil }
    }
    #expect(got == ["while you were away"])
  }

  @Test("rooms are separate and dropped when empty")
  func rooms() {
    var r = RelayDriver()
    r.hello(1, "ann", room: "one")
    r.hello(2, "bob", room: "two")
    #expect(r.core.roomNames == ["one", "two"])
    #expect(r.lastState(1)?.participants.map(\.name) == ["ann"])
    r.send(.bye, from: 2)
    #expect(r.core.roomNames == ["one"])
  }

  @Test(
    "bad names and room names are refused",
    arguments: [
      ("", "lobby"), (String(repeating: "n", count: 40), "lobby"), ("ann", "no spaces"),
      ("ann", ""),
    ])
  func badHello(name: String, room: String) {
    var r = RelayDriver()
    r.connect(1)
    r.send(.hello(version: ProtocolVersion.current, name: name, room: room, resume: nil), from: 1)
    #expect(r.errors(1) == [.invalidHello])
  }

  @Test("every change reaches the room as a small step that replays to the relay's state")
  func stepsReplay() throws {
    var r = RelayDriver()
    r.hello(1, "ann")
    r.hello(2, "bob")
    let series = SeriesInfo(
      id: "s", title: "S", items: [ItemInfo(id: "s/e1", title: "E1", duration: 60)])
    r.send(.command(id: 1, .start(series: series, item: "s/e1")), from: 1)
    r.send(
      .command(id: 2, .report(roundTrip: 0.002, startupLatency: 0, playerOffset: 0.001)), from: 1)
    r.send(.command(id: 3, .setReadiness(.ready)), from: 1)
    r.advance(2)
    r.send(.command(id: 4, .pause(item: "s/e1", at: 1)), from: 1)
    let relay = try #require(r.core.state(ofRoom: "lobby"))
    #expect(r.lastState(1) == relay)
    #expect(r.lastState(2) == relay)
    let steps = (r.outbox[ConnectionID(2)] ?? []).filter {
      if case .step = $0 { true } else { false }
    }
    #expect(steps.count == 4, "start, report, ready (with the start it caused), pause")
    let updates = (r.outbox[ConnectionID(2)] ?? []).filter {
      if case .update = $0 { true } else { false }
    }
    #expect(updates.isEmpty, "no whole-state broadcasts")
  }

  @Test("resync answers with the whole state")
  func resync() throws {
    var r = RelayDriver()
    r.hello(1, "ann")
    r.send(.resync, from: 1)
    guard case .update(let state, let events) = r.outbox[ConnectionID(1)]?.last else {
      Issue.record("expected an update")
      return
    }
    #expect(state == r.core.state(ofRoom: "lobby"))
    #expect(events.isEmpty)
  }
}
