import Clocks
import Participation
import PlaybackCoordination
import RelayRuntime
import RoomCrypto
import Rooms
import RoomsTesting
import Synchronization
import WireProtocol

/// A room run by `cowatch host` on several machines, on virtual time: on each machine a
/// participant's ``ParticipantCore`` and a relay — the host's (machine 0), or a successor's
/// standby relay ready to carry the room — joined by a simulated network (one event queue,
/// a fixed one-way latency, every message through the wire codec). Each machine has its
/// own clock (the relays' group clocks differ), so a room that moves is translated.
///
/// A standby relay is what `StandbyRelay` runs: a ``ReplicaBook`` fed through its
/// participant, a hello for a room it does not run held while the room is claimed (3 s),
/// the room brought in once it was handed over or elected, then a real ``RelayRuntime``
/// runs it. Faults: a machine killed (`kill -9`: its participant and relay gone at once),
/// frozen and thawed (`SIGSTOP`, `SIGCONT`: nothing it receives is read meanwhile, and it
/// does nothing), a partition (nothing crosses between the two sides; connections across
/// time out). Deterministic: the same script gives the same run.
final class SimulatedMachines {
  typealias Conn = Int

  struct Machine {
    var core: ParticipantCore
    let offset: Int64
    var alive = true
    var frozen = false
    var events: [ClientEvent] = []
    var answers: [UInt64: [Result<Void, ClientError>]] = [:]
    /// Counts the participant's connections: what is meant for an old one is dropped.
    var generation = 0
    /// The participant's connection now, if any.
    var link: Conn?
    /// Where each of its connections went: the machine whose relay it reached.
    var linkRelay: Int?
  }

  /// A machine's relay: the host's, or a standby one.
  struct Relay {
    let address: String
    let epoch: String
    /// What its own machine's participant proves itself by (see ``RelayKey``).
    let key: String
    var runtime: RelayRuntime?
    var book = ReplicaBook()
    /// Connections whose hello waits for a claim, in the order they came.
    var held: [Conn] = []
    var heldLines: [Conn: [[UInt8]]] = [:]
    var heldRoom: [Conn: String] = [:]
    var alive = true
  }

  /// One connection: its participant's end and its relay's.
  struct Connection {
    let member: Int
    let generation: Int
    let relay: Int
    /// The runtime's id once the relay serves it (nil while held).
    var id: ConnectionID?
    var outlet: SimulatedNetwork.Outlet?
  }

  private enum Delivery {
    case connect(Int, generation: Int, relay: Int?)
    case toRelay(Conn, [UInt8])
    case toMember(Conn, [UInt8])
    case closedByRelay(Conn)
    case connectFailed(Int, generation: Int, ClientError)
    /// The answer to a relay's `locate`, for the relay on the machine it is delivered to.
    case located(LocateRequest, LocateAnswer)
  }

  let clock = ManualClock(nanoseconds: 50_000_000_000_000)
  let latency: Double
  /// How long a hello waits at a standby relay for its room to be handed over or elected.
  let claimWait = 3.0
  /// How long a connection to a machine on the other side of a partition takes to fail.
  let unreachableAfter = 2.0
  let relayConfiguration: RelayConfiguration
  private(set) var machines: [Machine] = []
  private(set) var relays: [Relay] = []
  private var connections: [Conn: Connection] = [:]
  private var nextConn = 1
  private var queue: [(at: Int64, order: Int, machine: Int, delivery: Delivery)] = []
  /// Deliveries that reached a frozen machine, read when it thaws.
  private var frozenInbox: [Int: [Delivery]] = [:]
  private var order = 0
  /// Pairs of machines that cannot reach each other.
  private var cut: Set<[Int]> = []
  private let codec = WireCodec()
  private var lastArrival: [Conn: (toRelay: Int64, toMember: Int64)] = [:]
  /// Time stopped moving: something stayed due without being done (a failing test says so).
  private(set) var stuck = false
  /// What happened to connections, in words (for failing tests).
  private(set) var log: [String] = []

  /// `names[0]` hosts the room (`cowatch host`); everyone else offers to carry it.
  init(
    _ names: [String], latency: Double = 0.005,
    relay configuration: RelayConfiguration = .init()
  ) {
    self.latency = latency
    relayConfiguration = configuration
    for (index, name) in names.enumerated() {
      // Machines' clocks differ by minutes: a room moved without translating its
      // instants would jump by as much.
      let offset = Int64(3_600 + 97 * index) * 1_000_000_000
      let epoch = index == 0 ? "host-relay" : "standby-\(name)"
      let key = String(repeating: "\(index % 10)", count: RelayKey.characters)
      var configuration = ParticipantConfiguration(name: name)
      configuration.ownRelayEpoch = epoch
      configuration.carry =
        index == 0
        ? CarryOffer(port: 7700, fingerprint: nil, runsRelay: true, relayKey: key)
        : CarryOffer(port: 7800, fingerprint: nil, relayKey: key)
      machines.append(
        Machine(
          core: ParticipantCore(configuration: configuration, hasPlayer: false), offset: offset))
      relays.append(
        Relay(
          address: Self.address(of: index, port: index == 0 ? 7700 : 7800), epoch: epoch, key: key))
    }
    relays[0].runtime = makeRuntime(on: 0, restoring: [])
  }

  static func address(of machine: Int, port: Int) -> String { "10.0.0.\(machine + 1):\(port)" }

  /// Machine `index`'s monotonic clock, the one its participant and its relay read.
  func local(_ index: Int) -> LocalInstant {
    LocalInstant(nanoseconds: clock.nanoseconds() - machines[index].offset)
  }

  private func makeRuntime(on index: Int, restoring: [StoredRoom]) -> RelayRuntime {
    let runtime = RelayRuntime(
      configuration: relayConfiguration,
      clock: OffsetClock(clock, offsetNanoseconds: -machines[index].offset),
      epoch: relays[index].epoch, ownerKey: relays[index].key, restoring: restoring,
      feedsSuccessors: true)
    // Its questions to other relays (`locate`) are answered here, on virtual time.
    runtime.keepLocateRequests()
    return runtime
  }

  /// Answers what a relay asked others (`locate`): the relay there says whether it runs
  /// the room; a dead machine refuses at once; one frozen or across a cut says nothing,
  /// and the question gives up after a while.
  private func answerLocates(from index: Int, _ runtime: RelayRuntime) {
    for request in runtime.takeLocateRequests() {
      let answer: LocateAnswer
      var delay = 2 * latency
      if let target = relays.firstIndex(where: { $0.address == request.relay.address }) {
        if !relays[target].alive {
          answer = .nothingListening
        } else if machines[target].frozen || cutOff(index, target) {
          answer = .noAnswer
          delay = unreachableAfter
        } else {
          answer =
            relays[target].runtime?.term(ofRoom: request.room).map { .here(term: $0) }
            ?? .elsewhere
        }
      } else {
        answer = .noAnswer
        delay = unreachableAfter
      }
      enqueue(.located(request, answer), to: index, at: clock.nanoseconds() + Int64(delay * 1e9))
    }
  }

  // MARK: - Participants

  /// Everyone enters the room, the host first, one after the other.
  func enterAll() {
    for index in machines.indices {
      perform(
        machines[index].core.start(at: local(index), relay: relays[0].address), for: index)
      run(for: 0.5)
    }
  }

  /// A request with a ticket (the ticket is the returned number).
  @discardableResult
  func request(_ request: ParticipantRequest, from index: Int) -> UInt64 {
    order += 1
    let ticket = UInt64(order)
    perform(
      machines[index].core.request(request, ticket: ticket, at: local(index), seen: nil),
      for: index)
    return ticket
  }

  func state(_ index: Int) -> GroupState { machines[index].core.state }

  /// Where machine `index`'s participant is connected now (the relay's machine).
  func relayOf(_ index: Int) -> Int? {
    guard let link = machines[index].link, let c = connections[link], c.id != nil else {
      return nil
    }
    return machines[index].core.status == .connected ? c.relay : nil
  }

  /// The machines whose relays run `room` with anyone in it now.
  func running(_ room: String = "lobby") -> [Int] {
    relays.indices.filter { r in
      guard relays[r].alive, !machines[r].frozen, let runtime = relays[r].runtime,
        runtime.roomNames.contains(room)
      else { return false }
      return connections.values.contains { $0.relay == r && $0.id != nil }
    }
  }

  // MARK: - Faults

  /// `kill -9` of a machine's `cowatch`: its participant and its relay are gone at once;
  /// the kernel resets their connections.
  func kill(_ index: Int) {
    machines[index].alive = false
    relays[index].alive = false
    relays[index].runtime?.abandon()
    for (conn, c) in connections where c.member == index || c.relay == index {
      connections[conn] = nil
      if c.member == index, let id = c.id, relays[c.relay].alive {
        relays[c.relay].runtime?.closed(id)
      }
      if c.relay == index, c.member != index, machines[c.member].generation == c.generation {
        enqueue(.closedByRelay(conn), to: c.member, at: arrival(conn, toRelay: false))
        // Kept long enough to deliver the reset.
        connections[conn] = c
      }
    }
  }

  /// `SIGSTOP` / `SIGCONT` of a machine's `cowatch`.
  func freeze(_ index: Int) { machines[index].frozen = true }

  func thaw(_ index: Int) {
    machines[index].frozen = false
    let waiting = frozenInbox.removeValue(forKey: index) ?? []
    for delivery in waiting { deliver(delivery, to: index) }
  }

  /// Nothing crosses between `side` and the other machines from now on, until ``heal()``.
  func partition(_ side: [Int]) {
    for a in side {
      for b in machines.indices where !side.contains(b) { cut.insert([a, b].sorted()) }
    }
  }

  func heal() { cut = [] }

  private func cutOff(_ a: Int, _ b: Int) -> Bool { a != b && cut.contains([a, b].sorted()) }

  // MARK: - Running

  /// Runs everything due up to `seconds` from now, in time order.
  func run(for seconds: Double) {
    let end = clock.nanoseconds() + Int64(seconds * 1e9)
    var lastTime = clock.nanoseconds()
    var stillAt = 0
    while true {
      // Something due that never gets done would spin here for ever: say what, and stop.
      if clock.nanoseconds() == lastTime {
        stillAt += 1
        if stillAt > 10_000 {
          stuck = true
          let due = machines.indices.filter { i in
            machines[i].alive && !machines[i].frozen
              && (machines[i].core.nextDeadline.map {
                $0.nanoseconds + machines[i].offset <= lastTime
              } ?? false)
          }
          let relaysDue = relays.indices.filter { i in
            relays[i].alive
              && relays[i].runtime.map { $0.tick() + machines[i].offset <= lastTime } ?? false
          }
          for i in due {
            var core = machines[i].core
            let effects = core.tick(at: local(i), seen: nil)
            log.append(
              "machine \(i) \(core.status) due \(String(describing: machines[i].core.nextDeadline)) at \(local(i)): tick gives \(effects.count) effects, then due \(String(describing: core.nextDeadline)); link \(String(describing: machines[i].link)), generation \(machines[i].generation)"
            )
          }
          log.append(
            "stuck at \(lastTime): \(queue.count) deliveries queued; participants due \(due), relays due \(relaysDue), claims \(relays.map(\.book.claimDeadlines))"
          )
          break
        }
      } else {
        lastTime = clock.nanoseconds()
        stillAt = 0
      }
      var next = queue.map(\.at).min()
      func consider(_ t: Int64) { if next.map({ t < $0 }) ?? true { next = t } }
      for index in machines.indices where machines[index].alive && !machines[index].frozen {
        if let d = machines[index].core.nextDeadline {
          consider(d.nanoseconds + machines[index].offset)
        }
        if relays[index].alive, let runtime = relays[index].runtime {
          consider(runtime.tick() + machines[index].offset)
          // The successors' feed, every 5 ms while the relay runs.
          consider(clock.nanoseconds() + 5_000_000)
        }
        for deadline in relays[index].book.claimDeadlines.values { consider(deadline) }
      }
      guard let due = next, due <= end else { break }
      clock.advance(toNanoseconds: max(due, clock.nanoseconds()))
      step()
    }
    clock.advance(toNanoseconds: end)
    step()
  }

  private func step() {
    let t = clock.nanoseconds()
    let due = queue.enumerated().filter { $0.element.at <= t }.sorted {
      ($0.element.at, $0.element.order) < ($1.element.at, $1.element.order)
    }
    let dueIndices = Set(due.map(\.offset))
    queue = queue.enumerated().filter { !dueIndices.contains($0.offset) }.map(\.element)
    for (_, entry) in due {
      if machines[entry.machine].frozen {
        frozenInbox[entry.machine, default: []].append(entry.delivery)
      } else if machines[entry.machine].alive {
        deliver(entry.delivery, to: entry.machine)
      }
      collectRelayOutput()
    }
    for index in machines.indices where machines[index].alive && !machines[index].frozen {
      if let d = machines[index].core.nextDeadline,
        d.nanoseconds + machines[index].offset <= t
      {
        perform(machines[index].core.tick(at: local(index), seen: nil), for: index)
      }
      if relays[index].alive, let runtime = relays[index].runtime {
        runtime.tick()
        runtime.feedSuccessors()
        answerLocates(from: index, runtime)
      }
      decideClaims(on: index)
    }
    collectRelayOutput()
  }

  private func deliver(_ delivery: Delivery, to machine: Int) {
    switch delivery {
    case .connect(let member, let generation, let relay):
      guard machines[member].generation == generation else { return }
      open(from: member, generation: generation, to: relay)
    case .connectFailed(let member, let generation, let error):
      guard machines[member].generation == generation else { return }
      perform(machines[member].core.connectFailed(error, at: local(member)), for: member)
    case .toRelay(let conn, let line):
      guard let c = connections[conn], relays[c.relay].alive else { return }
      if let id = c.id {
        relays[c.relay].runtime?.received(line, from: id)
      } else {
        hold(line, on: conn, at: c.relay)
      }
    case .toMember(let conn, var line):
      guard let c = connections[conn], machines[c.member].generation == c.generation else {
        return
      }
      if line.last == UInt8(ascii: "\n") { line.removeLast() }
      let message = try! codec.decodeServer(line)
      perform(
        machines[c.member].core.received(message, at: local(c.member), seen: nil), for: c.member)
    case .located(let request, let answer):
      guard relays[machine].alive, let runtime = relays[machine].runtime else { return }
      if let participant = request.reachability {
        runtime.reachability(
          of: participant, in: request.room, at: request.relay, reachable: answer.answered)
      } else {
        runtime.located(request.room, at: request.relay, answer)
      }
    case .closedByRelay(let conn):
      guard let c = connections.removeValue(forKey: conn),
        machines[c.member].generation == c.generation
      else { return }
      machines[c.member].generation += 1
      machines[c.member].link = nil
      perform(machines[c.member].core.connectionLost(at: local(c.member)), for: c.member)
    }
  }

  /// The participant on `member` connects to `relay`'s machine (nil: the host's).
  private func open(from member: Int, generation: Int, to relay: Int?) {
    let target = relay ?? 0
    let conn = nextConn
    nextConn += 1
    guard relays[target].alive else {
      perform(
        machines[member].core.connectFailed(
          .transport(.refused(endpoint: relays[target].address)), at: local(member)),
        for: member)
      return
    }
    var c = Connection(member: member, generation: generation, relay: target)
    if let runtime = relays[target].runtime, !machines[target].frozen {
      let outlet = SimulatedNetwork.Outlet()
      guard let id = runtime.open(outlet, address: address(of: member, seenBy: target)) else {
        perform(
          machines[member].core.connectFailed(
            .transport(.refused(endpoint: relays[target].address)), at: local(member)),
          for: member)
        return
      }
      c.id = id
      c.outlet = outlet
    }
    // A frozen machine's kernel still accepts the connection: its relay reads it later.
    connections[conn] = c
    machines[member].link = conn
    perform(machines[member].core.connected(at: local(member)), for: member)
  }

  /// Where a member's connection comes from, as `relay` sees it: its machine's LAN address,
  /// also at its own relay (a real participant reaches its relay at the address the room's
  /// link names, not over loopback).
  private func address(of member: Int, seenBy relay: Int) -> String {
    "10.0.0.\(member + 1)"
  }

  /// A line for a standby relay that runs no room yet: a hello waits for its room's claim.
  private func hold(_ line: [UInt8], on conn: Conn, at relay: Int) {
    if relays[relay].heldLines[conn] == nil {
      guard case .hello(_, _, let room, let resume, _, _) = try? codec.decodeClient(line) else {
        return
      }
      // The relay runs the room by now (a claim won since this connection came): served.
      if let runtime = relays[relay].runtime, runtime.roomNames.contains(room) {
        serve(conn, lines: [line], on: runtime, at: relay)
        return
      }
      relays[relay].held.append(conn)
      relays[relay].heldRoom[conn] = room
      relays[relay].book.helloWaiting(
        for: room, resume: resume,
        // In memory, as over plain TCP, a proof names no relay.
        check: ResumeCheck(relays: [], verify: RoomKeys.verify(signature:of:verifier:)),
        on: ConnectionID(UInt64(conn)))
      relays[relay].book.claimBegan(room, at: clock.nanoseconds(), wait: claimWait)
    }
    relays[relay].heldLines[conn, default: []].append(line)
    decideClaims(on: relay)
  }

  /// What a standby relay decides about the rooms its held hellos wait for.
  private func decideClaims(on relay: Int) {
    guard relays[relay].alive, !machines[relay].frozen else { return }
    for room in relays[relay].book.claimDeadlines.keys.sorted() {
      // Votes go with the connections that went.
      for conn in relays[relay].held where connections[conn] == nil {
        relays[relay].book.helloGone(on: ConnectionID(UInt64(conn)))
      }
      let owner = machines[relay]
      let known =
        owner.alive
        ? ReplicaBook.Known(
          state: owner.core.state, clock: owner.core.estimate, now: local(relay),
          connected: owner.core.status == .connected)
        : nil
      let waiting = relays[relay].held.filter { relays[relay].heldRoom[$0] == room }
      // The production decision (`ReplicaDirectory` performs the same), at virtual time.
      switch relays[relay].book.decideClaim(room, known: known, at: clock.nanoseconds()) {
      case .carried(let copy, let elected):
        if elected { perform(machines[relay].core.carryingRoom(at: local(relay)), for: relay) }
        let runtime = relays[relay].runtime ?? makeRuntime(on: relay, restoring: [copy])
        relays[relay].runtime = runtime
        for conn in waiting {
          let lines = relays[relay].heldLines.removeValue(forKey: conn) ?? []
          relays[relay].held.removeAll { $0 == conn }
          relays[relay].heldRoom[conn] = nil
          serve(conn, lines: lines, on: runtime, at: relay)
        }
      case .noCopy, .gaveUp:
        refuse(waiting, at: relay, room: room)
      case .waiting:
        continue
      }
    }
  }

  /// A held connection is served by the relay's runtime from now on: what it sent so far
  /// first.
  private func serve(_ conn: Conn, lines: [[UInt8]], on runtime: RelayRuntime, at relay: Int) {
    guard var c = connections[conn] else { return }
    let outlet = SimulatedNetwork.Outlet()
    guard let id = runtime.open(outlet, address: address(of: c.member, seenBy: relay)) else {
      return
    }
    c.id = id
    c.outlet = outlet
    connections[conn] = c
    for line in lines { runtime.received(line, from: id) }
  }

  /// The held hellos are refused (as `RelayRuntime` refuses a failed claim) and closed.
  private func refuse(_ waiting: [Conn], at relay: Int, room: String) {
    for conn in waiting {
      relays[relay].held.removeAll { $0 == conn }
      relays[relay].heldLines[conn] = nil
      relays[relay].heldRoom[conn] = nil
      guard let c = connections[conn] else { continue }
      let line = codec.encode(
        ServerMessage.error(
          code: .storeUnavailable, message: "this machine does not carry room \(room) (yet)",
          fatal: true))
      let at = arrival(conn, toRelay: false)
      enqueue(.toMember(conn, line), to: c.member, at: at)
      enqueue(.closedByRelay(conn), to: c.member, at: at)
    }
  }

  /// Moves what the relays wrote onto the wire, and notices connections they closed.
  private func collectRelayOutput() {
    for (conn, c) in connections.sorted(by: { $0.key < $1.key }) {
      guard let outlet = c.outlet, relays[c.relay].alive, !machines[c.relay].frozen else {
        continue
      }
      let lines = outlet.lines.withLock { l in
        defer { l = [] }
        return l
      }
      let closing = outlet.closed.withLock { $0 } || outlet.aborted.withLock { $0 }
      guard !lines.isEmpty || closing else { continue }
      if closing { connections[conn]?.outlet = nil }
      // Across a partition nothing arrives, not even the close.
      guard !cutOff(c.member, c.relay) else { continue }
      let at = arrival(conn, toRelay: false)
      for line in lines { enqueue(.toMember(conn, line), to: c.member, at: at) }
      if closing { enqueue(.closedByRelay(conn), to: c.member, at: at) }
    }
  }

  private func enqueue(_ delivery: Delivery, to machine: Int, at t: Int64) {
    order += 1
    queue.append((t, order, machine, delivery))
  }

  /// When a message sent now on `conn` arrives: after the latency, never before the one
  /// sent before it in the same direction.
  private func arrival(_ conn: Conn, toRelay: Bool) -> Int64 {
    var at = clock.nanoseconds() + Int64(latency * 1e9)
    var last = lastArrival[conn] ?? (0, 0)
    if toRelay {
      at = max(at, last.toRelay)
      last.toRelay = at
    } else {
      at = max(at, last.toMember)
      last.toMember = at
    }
    lastArrival[conn] = last
    return at
  }

  private func perform(_ effects: [ParticipantEffect], for index: Int) {
    guard machines[index].alive else { return }
    for effect in effects {
      switch effect {
      case .connect(let endpoint):
        log.append("\(index) connects to \(endpoint?.address ?? "its first relay")")
        machines[index].generation += 1
        let generation = machines[index].generation
        let target = endpoint.flatMap { e in relays.firstIndex { $0.address == e.address } } ?? 0
        if endpoint != nil, !relays.contains(where: { $0.address == endpoint!.address }) {
          enqueue(
            .connectFailed(
              index, generation: generation,
              .transport(.unreachable(endpoint: endpoint!.address, reason: "no route"))),
            to: index, at: clock.nanoseconds() + Int64(latency * 1e9))
        } else if cutOff(index, target) {
          enqueue(
            .connectFailed(
              index, generation: generation,
              .transport(.unreachable(endpoint: relays[target].address, reason: "timed out"))),
            to: index, at: clock.nanoseconds() + Int64(unreachableAfter * 1e9))
        } else {
          // Decided at the participant's end when it arrives: refused by a dead machine.
          enqueue(
            .connect(index, generation: generation, relay: target), to: index,
            at: clock.nanoseconds() + Int64(latency * 1e9))
        }
      case .send(let message):
        guard let conn = machines[index].link, let c = connections[conn] else { continue }
        var line = codec.encode(message)
        line.removeLast()
        let at = arrival(conn, toRelay: true)
        if !cutOff(index, c.relay) { enqueue(.toRelay(conn, line), to: c.relay, at: at) }
      case .closeConnection:
        if let conn = machines[index].link, let c = connections.removeValue(forKey: conn) {
          machines[index].link = nil
          machines[index].generation += 1
          if let id = c.id, relays[c.relay].alive, !cutOff(index, c.relay) {
            relays[c.relay].runtime?.closed(id)
          }
        }
      case .player, .deriveRoomKeys, .started, .finished:
        break
      case .event(let event):
        machines[index].events.append(event)
      case .answer(let ticket, let result):
        machines[index].answers[ticket, default: []].append(result)
      case .carrier(let effect):
        switch effect {
        case .replica(let change):
          relays[index].book.apply(change)
        case .carry(let room, let state):
          relays[index].book.carry(
            room, state: state,
            shift: ReplicaBook.shift(machines[index].core.estimate, at: local(index)))
        }
      }
    }
  }
}
