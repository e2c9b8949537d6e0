import Clocks
import Participation
import PlaybackCoordination
import RelayRuntime
import RoomCrypto
import Rooms
import RoomsTesting
import Synchronization
import WireProtocol

/// Participants' ``ParticipantCore``s and a real ``RelayRuntime`` joined by a simulated
/// network on virtual time: one thread, one event queue, a fixed one-way latency. Every
/// message crosses the wire codec. Deterministic: the same script gives the same run.
final class SimulatedNetwork {
  struct Member {
    var core: ParticipantCore
    var connection: ConnectionID?
    /// Counts connections, so that deliveries for a closed one are dropped.
    var generation = 0
    var events: [ClientEvent] = []
    var answers: [UInt64: [Result<Void, ClientError>]] = [:]
    var started: Result<Void, ClientError>?
    var finished = false
    /// Pings this member sent.
    var pings = 0
    /// The room password this member was given (derivations run at once, on virtual time).
    var password: RoomPassword?
    /// What the relay asked of this member's own relay (replicas, a handover), in order.
    var carrier: [CarrierEffect] = []
  }

  private enum Delivery {
    case toRelay(ConnectionID, [UInt8])
    case toMember(Int, generation: Int, [UInt8])
    case connected(Int, generation: Int)
    case closedByRelay(Int, generation: Int)
    case keysDerived(Int, RoomKeys)
  }

  /// What the relay writes to one simulated connection.
  final class Outlet: RelayOutlet {
    let lines = Mutex<[[UInt8]]>([])
    let closed = Mutex(false)
    /// Closed at once: what was written and not yet on the wire is lost, as with a reset.
    let aborted = Mutex(false)
    func write(_ line: [UInt8]) -> Int {
      lines.withLock { $0.append(line) }
      return 0
    }
    func close(flush: Bool) {
      closed.withLock { $0 = true }
      if !flush {
        aborted.withLock { $0 = true }
        lines.withLock { $0 = [] }
      }
    }
  }

  let clock = ManualClock(nanoseconds: 10_000_000_000_000)
  /// The participants' clocks run this far behind the relay's.
  let localOffset: Int64 = 3_600_000_000_000
  let latency: Double
  /// Each message is delayed by `latency` plus up to this much more (seeded), keeping each
  /// direction of each connection in order, as TCP through a jittery path does.
  let jitter: Double
  private var random = SeededGenerator(seed: 17)
  private var lastArrival: [Int: (toRelay: Int64, toMember: Int64)] = [:]
  private(set) var runtime: RelayRuntime
  let relayConfiguration: RelayConfiguration
  var members: [Member] = []
  /// While set, new connections are refused, as an unreachable relay's would be.
  var refusing = false
  /// How long deriving a challenged room's keys takes (scrypt on a slow device), seconds.
  var keyDerivationSeconds = 0.0
  private var queue: [(at: Int64, order: Int, delivery: Delivery)] = []
  private var order = 0
  private var outlets: [ConnectionID: (member: Int, generation: Int, outlet: Outlet)] = [:]
  private let codec = WireCodec()
  /// Every line the relay received, in order: what anyone on the path (or the relay's
  /// operator) could read.
  private(set) var relayInbound: [[UInt8]] = []

  init(
    latency: Double = 0.005, jitter: Double = 0, relay configuration: RelayConfiguration = .init()
  ) {
    self.latency = latency
    self.jitter = jitter
    relayConfiguration = configuration
    runtime = RelayRuntime(configuration: configuration, clock: clock, epoch: "epoch-1")
  }

  var now: LocalInstant { LocalInstant(nanoseconds: clock.nanoseconds() - localOffset) }

  // MARK: Participants

  @discardableResult
  func join(
    _ name: String, password: String? = nil,
    configure: (inout ParticipantConfiguration) -> Void = { _ in }
  ) -> Int {
    var configuration = ParticipantConfiguration(name: name)
    configuration.keyDerivationCost = 12
    configure(&configuration)
    let password = password.map { try! RoomPassword($0) }
    var member = Member(
      core: ParticipantCore(
        configuration: configuration, hasPlayer: false, hasPassword: password != nil))
    member.password = password
    members.append(member)
    let index = members.count - 1
    if let password {
      let keys = try! RoomKeys.derive(
        password: password,
        derivation: KeyDerivation(salt: Array(name.utf8) + Array(repeating: 0, count: 16), cost: 12)
      )
      perform(members[index].core.roomKeysDerived(keys, at: now), for: index)
    }
    perform(members[index].core.start(at: now), for: index)
    return index
  }

  /// A request with a ticket (the ticket is the returned number).
  @discardableResult
  func request(_ request: ParticipantRequest, from index: Int) -> UInt64 {
    order += 1
    let ticket = UInt64(order)
    perform(members[index].core.request(request, ticket: ticket, at: now, seen: nil), for: index)
    return ticket
  }

  /// Puts a message on a member's connection as it is, past its core (as a hostile or
  /// broken client would).
  func rawSend(_ message: ClientMessage, from index: Int) {
    guard let id = members[index].connection else { return }
    var line = codec.encode(message)
    line.removeLast()
    enqueue(.toRelay(id, line), at: arrivalTime(for: index, toRelay: true))
  }

  func stop(_ index: Int) { perform(members[index].core.stop(at: now), for: index) }

  func state(_ index: Int) -> GroupState { members[index].core.state }

  // MARK: Faults

  /// Cuts every connection at the relay, as a network cut would.
  func dropAll() { runtime.dropAllConnections() }

  /// Cuts one participant's connection, as a reset would: what is on the way to it is
  /// lost, and the relay sees the connection close.
  func cut(_ index: Int) {
    guard let id = members[index].connection else { return }
    outlets[id] = nil
    runtime.closed(id)
    deliver(.closedByRelay(index, generation: members[index].generation))
  }

  /// The relay process dies and a new one starts at the same address (new epoch): with no
  /// rooms, or `keepingRooms`, with the rooms as its store held them.
  func restartRelay(epoch: String, keepingRooms: Bool = false) {
    let kept = keepingRooms ? runtime.storedRooms() : []
    runtime.stop()
    runtime = RelayRuntime(
      configuration: relayConfiguration, clock: clock, epoch: epoch,
      store: keepingRooms ? InMemoryRoomStore() : nil, restoring: kept)
    for (_, entry) in outlets { entry.outlet.close(flush: false) }
  }

  // MARK: Running

  /// Runs everything due up to `seconds` from now, in time order.
  func run(for seconds: Double) {
    let end = clock.nanoseconds() + Int64(seconds * 1e9)
    while true {
      collectRelayOutput()
      var next = queue.map(\.at).min()
      for member in members {
        if let d = member.core.nextDeadline {
          let t = d.nanoseconds + localOffset
          if next.map({ t < $0 }) ?? true { next = t }
        }
      }
      let relayDue = runtime.tick()
      if relayDue < (next ?? Int64.max) { next = relayDue }
      guard let due = next, due <= end else { break }
      clock.advance(toNanoseconds: max(due, clock.nanoseconds()))
      step()
    }
    clock.advance(toNanoseconds: end)
    runtime.tick()
    collectRelayOutput()
  }

  private func step() {
    let t = clock.nanoseconds()
    // Deliveries first, in the order sent.
    let due = queue.enumerated().filter { $0.element.at <= t }.sorted {
      ($0.element.at, $0.element.order) < ($1.element.at, $1.element.order)
    }
    let dueIndices = Set(due.map(\.offset))
    queue = queue.enumerated().filter { !dueIndices.contains($0.offset) }.map(\.element)
    for (_, entry) in due {
      deliver(entry.delivery)
      collectRelayOutput()
    }
    for index in members.indices {
      if let d = members[index].core.nextDeadline, d.nanoseconds + localOffset <= t {
        perform(members[index].core.tick(at: now, seen: nil), for: index)
      }
    }
    runtime.tick()
  }

  private func deliver(_ delivery: Delivery) {
    switch delivery {
    case .toRelay(let id, let line):
      relayInbound.append(line)
      runtime.received(line, from: id)
    case .toMember(let index, let generation, var line):
      guard members[index].generation == generation else { return }
      if line.last == UInt8(ascii: "\n") { line.removeLast() }
      let message = try! codec.decodeServer(line)
      perform(members[index].core.received(message, at: now, seen: nil), for: index)
    case .connected(let index, let generation):
      guard members[index].generation == generation else { return }
      let outlet = Outlet()
      guard !refusing, let id = runtime.open(outlet) else {
        perform(
          members[index].core.connectFailed(
            .transport(.unreachable(endpoint: "sim", reason: "refused")), at: now), for: index)
        return
      }
      members[index].connection = id
      outlets[id] = (index, generation, outlet)
      perform(members[index].core.connected(at: now), for: index)
    case .keysDerived(let index, let keys):
      perform(members[index].core.roomKeysDerived(keys, at: now), for: index)
    case .closedByRelay(let index, let generation):
      guard members[index].generation == generation else { return }
      members[index].generation += 1
      members[index].connection = nil
      perform(members[index].core.connectionLost(at: now), for: index)
    }
  }

  /// Moves what the relay wrote onto the wire, and notices connections it closed.
  private func collectRelayOutput() {
    for (id, entry) in outlets.sorted(by: { $0.key < $1.key }) {
      let lines = entry.outlet.lines.withLock { l in
        defer { l = [] }
        return l
      }
      let closing = entry.outlet.closed.withLock { $0 } || entry.outlet.aborted.withLock { $0 }
      guard !lines.isEmpty || closing else { continue }
      let arrival = arrivalTime(for: entry.member, toRelay: false)
      for line in lines {
        enqueue(.toMember(entry.member, generation: entry.generation, line), at: arrival)
      }
      if entry.outlet.aborted.withLock({ $0 }) {
        // A reset: the participant loses whatever was still on the way to it.
        outlets[id] = nil
        deliver(.closedByRelay(entry.member, generation: entry.generation))
      } else if entry.outlet.closed.withLock({ $0 }) {
        outlets[id] = nil
        enqueue(.closedByRelay(entry.member, generation: entry.generation), at: arrival)
      }
    }
  }

  private func enqueue(_ delivery: Delivery, at t: Int64) {
    order += 1
    queue.append((t, order, delivery))
  }

  /// When a message sent now arrives: after the latency and a draw of jitter, never before
  /// the one sent before it in the same direction.
  private func arrivalTime(for member: Int, toRelay: Bool) -> Int64 {
    let delay = latency + (jitter > 0 ? random.value(in: 0...jitter) : 0)
    var at = clock.nanoseconds() + Int64(delay * 1e9)
    var last = lastArrival[member] ?? (0, 0)
    if toRelay {
      at = max(at, last.toRelay)
      last.toRelay = at
    } else {
      at = max(at, last.toMember)
      last.toMember = at
    }
    lastArrival[member] = last
    return at
  }

  private func perform(_ effects: [ParticipantEffect], for index: Int) {
    let arrival = arrivalTime(for: index, toRelay: true)
    for effect in effects {
      switch effect {
      case .connect:
        members[index].generation += 1
        enqueue(.connected(index, generation: members[index].generation), at: arrival)
      case .send(let message):
        guard let id = members[index].connection else { continue }
        if case .ping = message { members[index].pings += 1 }
        var line = codec.encode(message)
        line.removeLast()
        enqueue(.toRelay(id, line), at: arrival)
      case .closeConnection:
        if let id = members[index].connection {
          members[index].connection = nil
          members[index].generation += 1
          outlets[id] = nil
          runtime.closed(id)
        }
      case .player:
        break
      case .event(let event):
        members[index].events.append(event)
      case .answer(let ticket, let result):
        members[index].answers[ticket, default: []].append(result)
      case .deriveRoomKeys(let derivation):
        guard let password = members[index].password else { continue }
        let keys = try! RoomKeys.derive(password: password, derivation: derivation)
        if keyDerivationSeconds > 0 {
          enqueue(
            .keysDerived(index, keys),
            at: clock.nanoseconds() + Int64(keyDerivationSeconds * 1e9))
        } else {
          perform(members[index].core.roomKeysDerived(keys, at: now), for: index)
        }
      case .started(let result):
        members[index].started = result
      case .finished:
        members[index].finished = true
      case .carrier(let effect):
        members[index].carrier.append(effect)
      }
    }
  }
}
