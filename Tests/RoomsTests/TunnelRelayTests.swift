import PlaybackCoordination
import Synchronization
import Testing
import WireProtocol

@testable import Rooms

/// Drives the pure relay core for tunnels: who may ask for one, what the two members are
/// told, how a ticket's halves are paired and how a tunnel ends.
struct TunnelDriver {
  var core: RelayCore
  var now = GroupInstant(nanoseconds: 1_000_000_000)
  /// What each connection was sent, and the other actions, in order.
  var sent: [UInt64: [ServerMessage]] = [:]
  var closed: Set<UInt64> = []
  var splices: [(TunnelID, ConnectionID, ConnectionID)] = []
  var closedTunnels: [TunnelID] = []
  var participants: [UInt64: ParticipantID] = [:]

  /// Secrets 000…001, 000…002, …: predictable, and of the form a CSPRNG's take.
  final class Counter: Sendable {
    let next = Mutex(0)
  }

  init(_ policy: TunnelPolicy? = TunnelPolicy(bytesPerSecond: 4_000_000)) {
    var configuration = RelayConfiguration()
    configuration.tunnels = policy
    let counter = Counter()
    core = RelayCore(configuration: configuration) {
      let n = counter.next.withLock { n in
        n += 1
        return n
      }
      let hex = String(n, radix: 16)
      return String(repeating: "0", count: 32 - hex.count) + hex
    }
  }

  mutating func perform(_ actions: [RelayAction]) {
    for action in actions {
      switch action {
      case .send(let message, let to): sent[to.rawValue, default: []].append(message)
      case .broadcast(let message, let to):
        for id in to { sent[id.rawValue, default: []].append(message) }
      case .close(let id): closed.insert(id.rawValue)
      case .splice(let tunnel, let a, let b, _): splices.append((tunnel, a, b))
      case .closeTunnel(let tunnel): closedTunnels.append(tunnel)
      default: break
      }
    }
  }

  mutating func connect(_ n: UInt64) {
    perform(core.connected(ConnectionID(n), at: now))
  }

  /// Connection `n` opens and presents a tunnel's `secret` as its first line.
  mutating func present(_ secret: String, on n: UInt64) {
    connect(n)
    send(.tunnel(secret: secret), from: n)
  }

  mutating func send(_ message: ClientMessage, from n: UInt64) {
    perform(core.received(message, from: ConnectionID(n), at: now))
  }

  mutating func enter(_ n: UInt64, _ name: String, room: String = "lobby") {
    connect(n)
    send(.hello(version: ProtocolVersion.current, name: name, room: room, resume: nil), from: n)
    for case .welcome(let welcome) in sent[n] ?? [] { participants[n] = welcome.participant }
  }

  mutating func advance(_ seconds: Double) {
    let end = now.advanced(bySeconds: seconds)
    while now < end {
      now = min(end, now.advanced(bySeconds: 0.2))
      perform(core.tick(at: now))
    }
  }

  func tickets(_ n: UInt64) -> [(UInt64, String)] {
    (sent[n] ?? []).compactMap {
      if case .tunnelTicket(let ref, let secret) = $0 { (ref, secret) } else { nil }
    }
  }
  func refusals(_ n: UInt64) -> [(UInt64, String)] {
    (sent[n] ?? []).compactMap {
      if case .tunnelRefused(let ref, let reason) = $0 { (ref, reason) } else { nil }
    }
  }
  func calls(_ n: UInt64) -> [(String, ParticipantID)] {
    (sent[n] ?? []).compactMap {
      if case .tunnelCall(let secret, let borrower) = $0 { (secret, borrower) } else { nil }
    }
  }
  func errors(_ n: UInt64) -> [(ErrorCode, String, Bool)] {
    (sent[n] ?? []).compactMap {
      if case .error(let code, let text, let fatal) = $0 { (code, text, fatal) } else { nil }
    }
  }

  /// Ann (1) and bob (2) in the lobby; bob asks for a tunnel to ann.
  static func annAndBob(_ policy: TunnelPolicy? = TunnelPolicy(bytesPerSecond: 4_000_000))
    -> TunnelDriver
  {
    var r = TunnelDriver(policy)
    r.enter(1, "ann")
    r.enter(2, "bob")
    return r
  }
}

@Suite("Tunnels: tickets and splices in the relay core")
struct TunnelRelayTests {
  @Test("a member asks for a tunnel to another: it gets a ticket and the lender is called")
  func ticket() throws {
    var r = TunnelDriver.annAndBob()
    let ann = try #require(r.participants[1])
    let bob = try #require(r.participants[2])
    r.send(.tunnelOpen(ref: 7, lender: ann), from: 2)
    let (ref, secret) = try #require(r.tickets(2).first)
    #expect(ref == 7)
    #expect(TunnelSecret.isPlausible(secret))
    // The lender's half has a secret of its own.
    let call = try #require(r.calls(1).first)
    #expect(TunnelSecret.isPlausible(call.0) && call.0 != secret)
    #expect(call.1 == bob)
    #expect(r.core.tunnelCounts.waiting == 1)
  }

  @Test("the two halves that come with their secrets are spliced, and a secret pairs no third")
  func splice() throws {
    var r = TunnelDriver.annAndBob()
    r.send(.tunnelOpen(ref: 1, lender: try #require(r.participants[1])), from: 2)
    let secret = try #require(r.tickets(2).first?.1)
    let call = try #require(r.calls(1).first?.0)
    r.present(secret, on: 10)
    #expect(r.splices.isEmpty)
    #expect(r.errors(10).isEmpty)
    r.present(call, on: 11)
    #expect(r.splices.map { [$0.1.rawValue, $0.2.rawValue] } == [[10, 11]])
    #expect(r.core.tunnelCounts.open == 1)
    // A third connection with the same secret: refused, and the tunnel is untouched.
    r.present(secret, on: 12)
    #expect(r.errors(12).map(\.0) == [.tunnelRefused])
    #expect(r.errors(12).first?.2 == true)
    #expect(r.closed.contains(12))
    #expect(r.core.tunnelCounts.open == 1)
    #expect(r.closedTunnels.isEmpty)
  }

  @Test(
    "the borrower's secret cannot open the lender's half: a borrower (or whom it tells) is never both ends"
  )
  func borrowerIsNotTheLender() throws {
    var r = TunnelDriver.annAndBob()
    r.send(.tunnelOpen(ref: 1, lender: try #require(r.participants[1])), from: 2)
    let secret = try #require(r.tickets(2).first?.1)
    r.present(secret, on: 10)
    r.present(secret, on: 11)
    #expect(r.errors(11).map(\.0) == [.tunnelRefused])
    #expect(r.closed.contains(11))
    #expect(r.splices.isEmpty)
    // The lender's half still splices with the borrower's.
    r.present(try #require(r.calls(1).first?.0), on: 12)
    #expect(r.splices.map { [$0.1.rawValue, $0.2.rawValue] } == [[10, 12]])
  }

  @Test("a forged secret gets one clear error and changes nothing")
  func forged() throws {
    var r = TunnelDriver.annAndBob()
    r.send(.tunnelOpen(ref: 1, lender: try #require(r.participants[1])), from: 2)
    r.present(String(repeating: "f", count: 32), on: 10)
    #expect(r.errors(10).map(\.0) == [.tunnelRefused])
    #expect(r.errors(10).first?.1.contains("no tunnel has that ticket") == true)
    #expect(r.closed.contains(10))
    #expect(r.core.tunnelCounts.waiting == 1)
    #expect(r.splices.isEmpty)
  }

  @Test("a secret that is not 32 hex digits does not decode: it never reaches the rules")
  func secretForm() {
    let codec = WireCodec()
    for secret in [
      "", "ABCDEF0123456789ABCDEF0123456789", String(repeating: "0", count: 33), "../x",
    ] {
      let line = Array(#"{"type":"tunnel","secret":"\#(secret)"}"#.utf8)
      #expect(throws: WireError.self) { try codec.decodeClient(line) }
    }
  }

  @Test(
    "refused in words, changing nothing: a relay that does not carry, yourself, strangers, former members, members away"
  )
  func refusals() throws {
    var off = TunnelDriver.annAndBob(nil)
    off.send(.tunnelOpen(ref: 1, lender: try #require(off.participants[1])), from: 2)
    #expect(off.refusals(2).first?.1.contains("does not carry lent copies") == true)
    #expect(off.calls(1).isEmpty)
    // Nor does it take a tunnel's first line.
    off.connect(10)
    off.send(.tunnel(secret: String(repeating: "1", count: 32)), from: 10)
    #expect(off.errors(10).map(\.0) == [.tunnelRefused])

    var r = TunnelDriver.annAndBob()
    let ann = try #require(r.participants[1])
    let bob = try #require(r.participants[2])
    r.send(.tunnelOpen(ref: 1, lender: bob), from: 2)
    r.send(.tunnelOpen(ref: 2, lender: ParticipantID("p99")), from: 2)
    // Dan leaves the lobby for good.
    r.enter(4, "dan")
    let dan = try #require(r.participants[4])
    r.send(.bye, from: 4)
    r.send(.tunnelOpen(ref: 4, lender: dan), from: 2)
    // Ann's connection drops: she keeps her place, but is away.
    r.perform(r.core.disconnected(ConnectionID(1), at: r.now))
    r.send(.tunnelOpen(ref: 5, lender: ann), from: 2)
    let refused = r.refusals(2)
    #expect(refused.map(\.0) == [1, 2, 4, 5])
    #expect(refused[0].1 == "you cannot borrow from yourself")
    #expect(refused[1].1.contains("is not in this room"))
    #expect(refused[2].1.contains("is not in this room"))
    #expect(refused[3].1.contains("ann is away"))
    #expect(r.tickets(2).isEmpty)
    #expect(r.core.tunnelCounts.waiting == 0)
    #expect(r.core.tunnelCounts.refused == 4)
  }

  @Test("a connection that has not said hello cannot ask for a tunnel")
  func helloFirst() throws {
    var r = TunnelDriver.annAndBob()
    r.connect(9)
    r.send(.tunnelOpen(ref: 1, lender: try #require(r.participants[1])), from: 9)
    #expect(r.errors(9).map(\.0) == [.helloRequired])
    #expect(r.calls(1).isEmpty)
  }

  @Test("tunnels are bounded per borrower, per room and in all")
  func bounds() throws {
    var r = TunnelDriver.annAndBob(
      TunnelPolicy(
        bytesPerSecond: 1e6, maximumPerBorrower: 2, maximumPerRoom: 3, maximumTotal: 4))
    let ann = try #require(r.participants[1])
    r.enter(3, "carol")
    r.send(.tunnelOpen(ref: 1, lender: ann), from: 2)
    r.send(.tunnelOpen(ref: 2, lender: ann), from: 2)
    r.send(.tunnelOpen(ref: 3, lender: ann), from: 2)
    #expect(r.tickets(2).map(\.0) == [1, 2])
    #expect(r.refusals(2).first?.1.contains("2 tunnels open or waiting already") == true)
    r.send(.tunnelOpen(ref: 1, lender: ann), from: 3)
    r.send(.tunnelOpen(ref: 2, lender: ann), from: 3)
    #expect(r.tickets(3).map(\.0) == [1])
    #expect(r.refusals(3).first?.1.contains("this room has 3 tunnels") == true)
    // Another room: the relay's own bound.
    r.enter(5, "eve", room: "attic")
    r.enter(6, "fay", room: "attic")
    let eve = try #require(r.participants[5])
    r.send(.tunnelOpen(ref: 1, lender: eve), from: 6)
    r.send(.tunnelOpen(ref: 2, lender: eve), from: 6)
    #expect(r.tickets(6).map(\.0) == [1])
    #expect(r.refusals(6).first?.1.contains("the relay carries 4 tunnels already") == true)
  }

  @Test("a ticket whose halves do not both come within 10 s expires: the half that came is told")
  func expiry() throws {
    var r = TunnelDriver.annAndBob()
    r.send(.tunnelOpen(ref: 1, lender: try #require(r.participants[1])), from: 2)
    let secret = try #require(r.tickets(2).first?.1)
    r.present(secret, on: 10)
    r.advance(9.8)
    #expect(r.errors(10).isEmpty)
    r.advance(0.4)
    #expect(r.errors(10).map(\.0) == [.tunnelRefused])
    #expect(r.errors(10).first?.1.contains("did not come within 10 s") == true)
    #expect(r.closed.contains(10))
    #expect(r.core.tunnelCounts.waiting == 0)
    // The lender's half, late: its secret is gone.
    r.present(try #require(r.calls(1).first?.0), on: 11)
    #expect(r.errors(11).map(\.0) == [.tunnelRefused])
    #expect(r.splices.isEmpty)
  }

  @Test("a member who leaves closes its tunnels, spliced or waiting")
  func memberLeaves() throws {
    var r = TunnelDriver.annAndBob()
    let ann = try #require(r.participants[1])
    r.send(.tunnelOpen(ref: 1, lender: ann), from: 2)
    r.send(.tunnelOpen(ref: 2, lender: ann), from: 2)
    let secrets = r.tickets(2).map(\.1)
    let calls = r.calls(1).map(\.0)
    r.present(secrets[0], on: 10)
    r.present(calls[0], on: 11)
    r.present(secrets[1], on: 12)
    let spliced = try #require(r.splices.first?.0)
    r.send(.bye, from: 2)
    #expect(r.closedTunnels == [spliced])
    #expect(r.closed.contains(12))
    #expect(r.errors(12).first?.1.contains("left the room") == true)
    #expect(r.core.tunnelCounts.open == 0)
    #expect(r.core.tunnelCounts.waiting == 0)
  }

  @Test("a member whose connection drops keeps its tunnels for the grace; past it they close")
  func graceThenGone() throws {
    var r = TunnelDriver.annAndBob()
    r.send(.tunnelOpen(ref: 1, lender: try #require(r.participants[1])), from: 2)
    let secret = try #require(r.tickets(2).first?.1)
    r.present(secret, on: 10)
    r.present(try #require(r.calls(1).first?.0), on: 11)
    #expect(r.splices.count == 1)
    r.perform(r.core.disconnected(ConnectionID(1), at: r.now))
    r.advance(3)
    #expect(r.closedTunnels.isEmpty)
    r.advance(4)
    #expect(r.closedTunnels.count == 1)
  }

  @Test("a waiting half that closes takes the tunnel with it; a spliced one's end is counted")
  func halvesEnd() throws {
    var r = TunnelDriver.annAndBob()
    let ann = try #require(r.participants[1])
    r.send(.tunnelOpen(ref: 1, lender: ann), from: 2)
    r.send(.tunnelOpen(ref: 2, lender: ann), from: 2)
    let secrets = r.tickets(2).map(\.1)
    let calls = r.calls(1).map(\.0)
    r.present(secrets[0], on: 10)
    r.perform(r.core.disconnected(ConnectionID(10), at: r.now))
    #expect(r.core.tunnelCounts.waiting == 1)
    r.present(calls[0], on: 11)
    #expect(r.errors(11).map(\.0) == [.tunnelRefused])
    r.present(secrets[1], on: 12)
    r.present(calls[1], on: 13)
    let tunnel = try #require(r.splices.first?.0)
    r.perform(r.core.tunnelEnded(tunnel, at: r.now))
    #expect(r.core.tunnelCounts.open == 0)
  }
}

@Suite("Tunnels: rates")
struct TunnelRateTests {
  @Test("reads within the burst pass; past it the reader waits as long as the debt takes to pay")
  func debt() {
    var rates = TunnelRates(
      policy: TunnelPolicy(bytesPerSecond: 1_000_000, bytesPerSecondPerRoom: 1_000_000), at: 0)
    // The burst is a quarter of a second at the rate (250 kB).
    #expect(rates.charge(200_000, room: "lobby", at: 0) == 0)
    let wait = rates.charge(100_000, room: "lobby", at: 0)
    #expect(abs(wait - 0.05) < 1e-9)
    // Half a second later, the debt is paid and the bucket refilled by 0.45 s.
    #expect(rates.charge(100_000, room: "lobby", at: 500_000_000) == 0)
    #expect(rates.carried == 400_000)
  }

  @Test("a room's share holds even when the relay's total would allow more")
  func perRoom() {
    var rates = TunnelRates(
      policy: TunnelPolicy(bytesPerSecond: 8_000_000, bytesPerSecondPerRoom: 1_000_000), at: 0)
    // The room's burst is 250 kB; the relay's 2 MB.
    #expect(rates.charge(250_000, room: "a", at: 0) == 0)
    #expect(rates.charge(250_000, room: "a", at: 0) > 0.2)
    #expect(rates.charge(250_000, room: "b", at: 0) == 0)
  }

  @Test("a room in debt keeps its bucket when its tunnels close, so reopening pays nothing off")
  func forgetInDebt() {
    var rates = TunnelRates(
      policy: TunnelPolicy(bytesPerSecond: 1_000_000, bytesPerSecondPerRoom: 1_000_000), at: 0)
    _ = rates.charge(1_000_000, room: "a", at: 0)
    rates.forget(room: "a", at: 0)
    #expect(rates.roomCount == 1)
    #expect(rates.charge(1, room: "a", at: 0) > 0.7)
    rates.forget(room: "a", at: 2_000_000_000)
    #expect(rates.roomCount == 0)
  }

  @Test(
    "--lend-relay-rate takes 4MB/s, 500KB/s or bytes a second, and refuses anything else in words",
    arguments: [("4MB/s", 4e6), ("500KB/s", 5e5), ("1.5GB/s", 1.5e9), ("250000", 2.5e5)])
  func parse(text: String, rate: Double) {
    #expect((try? TunnelPolicy.parseRate(text).get()) == rate)
  }

  @Test(
    "a rate it cannot take", arguments: ["fast", "4 MiB/s", "-1MB/s", "0", "9KB/s", "20GB/s", ""])
  func parseRefused(text: String) {
    guard case .failure(let error) = TunnelPolicy.parseRate(text) else {
      Issue.record("\(text) was taken")
      return
    }
    #expect(error.description.contains("4MB/s"))
  }

  @Test("a room's share is a quarter of the total, and at least 1 MB/s when the total allows")
  func share() {
    #expect(TunnelPolicy(bytesPerSecond: 40e6).bytesPerSecondPerRoom == 10e6)
    #expect(TunnelPolicy(bytesPerSecond: 2e6).bytesPerSecondPerRoom == 1e6)
    #expect(TunnelPolicy(bytesPerSecond: 500e3).bytesPerSecondPerRoom == 500e3)
  }
}

@Suite("Tunnels: the relay's runtime on the in-memory path")
struct TunnelRuntimeTests {
  @Test(
    "an edge that cannot splice (in memory) closes both halves and frees the tunnel; refusals are counted"
  )
  func cannotSplice() throws {
    var configuration = RelayConfiguration()
    configuration.tunnels = TunnelPolicy(bytesPerSecond: 1e6)
    var r = RelayDriver(configuration)
    r.hello(1, "ann")
    r.hello(2, "bob")
    let ann = try #require(r.welcome(1)?.participant)
    r.send(.tunnelOpen(ref: 1, lender: ParticipantID("p9")), from: 2)
    r.send(.tunnelOpen(ref: 2, lender: ann), from: 2)
    let ticket = try #require(
      (r.outbox[ConnectionID(2)] ?? []).compactMap {
        if case .tunnelTicket(2, let secret) = $0 { secret } else { nil }
      }.first)
    let call = try #require(
      (r.outbox[ConnectionID(1)] ?? []).compactMap {
        if case .tunnelCall(let secret, _) = $0 { secret } else { nil }
      }.first)
    r.connect(10)
    r.send(.tunnel(secret: ticket), from: 10)
    r.connect(11)
    r.send(.tunnel(secret: call), from: 11)
    #expect(r.closed.isSuperset(of: [ConnectionID(10), ConnectionID(11)]))
    #expect(r.runtime.statistics.openTunnels == 0)
    #expect(r.runtime.statistics.tunnelsRefused == 1)
    // The tunnel is gone: bob may ask again, up to his bound.
    for ref in UInt64(3)...6 { r.send(.tunnelOpen(ref: ref, lender: ann), from: 2) }
    let tickets = (r.outbox[ConnectionID(2)] ?? []).count {
      if case .tunnelTicket = $0 { true } else { false }
    }
    #expect(tickets == 5)
  }
}
