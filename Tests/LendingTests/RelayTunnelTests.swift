import Lending
import LendingEndpoint
import NIOCore
import RelayRuntime
import RelayTLS
import Rooms
import Synchronization
import TCPRelayClient
import TestSupport
import Testing

/// The relayed path over real loopback TCP: a relay splices two members' connections
/// byte for byte, with bounded memory and at its rates, and closes them as it should.
@Suite("Tunnels through a real relay", .timeLimit(.minutes(2)))
struct RelayTunnelTests {
  static let fast = TunnelPolicy(bytesPerSecond: 1e9, bytesPerSecondPerRoom: 1e9)

  @Test("bytes go both ways, intact")
  func bothWays() async throws {
    let rig = try await RelayTunnelRig.start(Self.fast)
    let ann = try await rig.enter("ann")
    let bob = try await rig.enter("bob")
    let (borrower, lender) = try await rig.tunnel(from: bob, to: ann)
    borrower.write(3_000_000)
    lender.write(2_000_000)
    await eventually("the lender has the borrower's bytes") {
      lender.received.load(ordering: .relaxed) == 3_000_000
    }
    await eventually("the borrower has the lender's bytes") {
      borrower.received.load(ordering: .relaxed) == 2_000_000
    }
    #expect(lender.wrong.load(ordering: .relaxed) == 0)
    #expect(borrower.wrong.load(ordering: .relaxed) == 0)
    #expect(rig.server.runtime.statistics.openTunnels == 1)
    #expect(rig.server.runtime.statistics.tunnelBytes == 5_000_000)
    await rig.server.stop()
  }

  @Test("a side that does not read holds the other back: the relay reads no further than it writes")
  func backpressure() async throws {
    let rig = try await RelayTunnelRig.start(Self.fast)
    let ann = try await rig.enter("ann")
    let bob = try await rig.enter("bob")
    let (borrower, lender) = try await rig.tunnel(from: bob, to: ann, lenderReads: false)
    let total = 64 << 20
    borrower.write(total)
    // The writes the sockets take stop growing: the relay stopped reading.
    var last = -1
    await eventually("the borrower's writes stall") {
      let now = borrower.written.load(ordering: .relaxed)
      defer { last = now }
      try? await Task.sleep(for: .milliseconds(200))
      return now == last && now > 0
    }
    let taken = borrower.written.load(ordering: .relaxed)
    // What the kernels' buffers hold on the way, and at most 320 KiB in the relay; far
    // from all of it.
    #expect(taken < 32 << 20, "the relay took \(taken) bytes from a tunnel nobody read")
    #expect(rig.server.runtime.statistics.tunnelBytes < Int64(taken) + 1 << 20)
    lender.startReading()
    await eventually("everything arrives once the lender reads", within: 60) {
      lender.received.load(ordering: .relaxed) == total
    }
    #expect(lender.wrong.load(ordering: .relaxed) == 0)
    await rig.server.stop()
  }

  @Test("the relay's rate holds: 3 MB at 2 MB/s take more than a second")
  func rate() async throws {
    let rig = try await RelayTunnelRig.start(
      TunnelPolicy(bytesPerSecond: 2_000_000, bytesPerSecondPerRoom: 2_000_000))
    let ann = try await rig.enter("ann")
    let bob = try await rig.enter("bob")
    let (borrower, lender) = try await rig.tunnel(from: bob, to: ann)
    let clock = ContinuousClock()
    let start = clock.now
    borrower.write(3_000_000)
    await eventually("the bytes arrive", within: 20) {
      lender.received.load(ordering: .relaxed) == 3_000_000
    }
    let took = clock.now - start
    // A burst of a quarter second's worth, then 2 MB/s: (3 − 0.5) / 2 = 1.25 s at least.
    #expect(took > .milliseconds(1150), "3 MB took \(took)")
    #expect(took < .seconds(8), "3 MB took \(took)")
    #expect(lender.wrong.load(ordering: .relaxed) == 0)
    await rig.server.stop()
  }

  @Test("a half whose other half never comes is told why and closed when the ticket expires")
  func halfOpen() async throws {
    // The ticket lives long enough for the half to reach the relay on a loaded machine (at
    // half a second, two busy cores sometimes let it expire first: "no tunnel has that
    // ticket", a different refusal than the one this test is about).
    let rig = try await RelayTunnelRig.start(
      TunnelPolicy(bytesPerSecond: 1e6, ticketLifetime: 3))
    let ann = try await rig.enter("ann")
    let bob = try await rig.enter("bob")
    let secret = try await bob.ask(for: ann.id).get()
    do {
      _ = try await rig.dialer.dial(secret: secret, relay: nil, fingerprint: nil, timeout: 10)
      Issue.record("a half was spliced with nobody")
    } catch {
      #expect(error.description.contains("did not come within"), "\(error)")
    }
  }

  @Test(
    "a tunnel that carries nothing either way for its idle timeout is closed; one in use is not")
  func idle() async throws {
    let rig = try await RelayTunnelRig.start(
      TunnelPolicy(bytesPerSecond: 1e9, bytesPerSecondPerRoom: 1e9, idleTimeout: 2))
    let ann = try await rig.enter("ann")
    let bob = try await rig.enter("bob")
    let (busyBorrower, busyLender) = try await rig.tunnel(from: bob, to: ann)
    let (borrower, lender) = try await rig.tunnel(from: bob, to: ann)
    // One tunnel carries a little every 0.1 s for 4 s, twice its idle timeout; the other
    // nothing. The writes are the event loop's, so that a busy task pool cannot space them
    // out past the timeout.
    let rounds = Atomic<Int>(0)
    busyBorrower.channel.eventLoop.scheduleRepeatedTask(
      initialDelay: .zero, delay: .milliseconds(100)
    ) { task in
      let round = rounds.add(1, ordering: .relaxed).oldValue
      busyBorrower.write(100, from: round * 100)
      if round + 1 >= 40 { task.cancel() }
    }
    await eventually("the idle tunnel closes") {
      !borrower.channel.isActive && !lender.channel.isActive
    }
    await eventually("the busy tunnel carries it all") {
      busyLender.received.load(ordering: .relaxed) == 4000
    }
    #expect(busyBorrower.channel.isActive && busyLender.channel.isActive)
    #expect(busyLender.received.load(ordering: .relaxed) == 4000)
    #expect(busyLender.wrong.load(ordering: .relaxed) == 0)
    await rig.server.stop()
  }

  @Test("a member who leaves the room closes its tunnel")
  func memberLeaves() async throws {
    let rig = try await RelayTunnelRig.start(Self.fast)
    let ann = try await rig.enter("ann")
    let bob = try await rig.enter("bob")
    let (borrower, lender) = try await rig.tunnel(from: bob, to: ann)
    #expect(borrower.channel.isActive && lender.channel.isActive)
    await ann.leave()
    await eventually("both halves close") {
      !borrower.channel.isActive && !lender.channel.isActive
    }
    #expect(rig.server.runtime.statistics.openTunnels == 0)
    await rig.server.stop()
  }

  @Test("a relay without a rate carries nothing: asked, it says so; a ticket line is refused")
  func notCarried() async throws {
    let rig = try await RelayTunnelRig.start(nil)
    let ann = try await rig.enter("ann")
    let bob = try await rig.enter("bob")
    let answer = await bob.ask(for: ann.id)
    #expect(answer.failureText?.contains("does not carry lent copies") == true)
    do {
      _ = try await rig.dialer.dial(
        secret: String(repeating: "a", count: 32), relay: nil, fingerprint: nil)
      Issue.record("a relay without a rate opened a tunnel")
    } catch {
      #expect(error.description.contains("does not carry lent copies"), "\(error)")
    }
    #expect(rig.server.runtime.statistics.tunnelsRefused == 1)
    await rig.server.stop()
  }

  @Test(
    "a borrower reads a lent copy by ranges through a TLS relay's tunnel, TLS pinned to the lender inside it"
  )
  func lentCopyThroughTunnel() async throws {
    let relayIdentity = try RelayIdentity.makeSelfSigned()
    let rig = try await RelayTunnelRig.start(Self.fast, identity: relayIdentity)
    let ann = try await rig.enter("ann")
    let carol = try await rig.enter("carol")
    let (endpoint, identity) = try await LenderEndpointTests.lender()
    let item = MemoryItem(300_000)
    let grant = try LenderEndpointTests.grant(endpoint, item)
    // An address nobody listens at: carol cannot reach ann directly.
    let url = "https://127.0.0.1:1\(grant.path)"
    let route = Self.route(rig, from: carol, to: ann, serving: endpoint)
    let remote = try await RemoteItemSource.open(url, pinned: identity.fingerprint, route: route)
    #expect(remote.size == 300_000)
    let part = try await remote.read(from: 100_000, maximum: 150_000)
    #expect(Array(part.readableBytesView) == Array(item.bytes[100_000..<250_000]))
    let end = try await remote.read(from: 290_000, maximum: 64_000)
    #expect(Array(end.readableBytesView) == Array(item.bytes[290_000..<300_000]))
    // One tunnel for the whole read: the connection is kept open.
    #expect(rig.server.runtime.statistics.openTunnels == 1)
    // Counted once each write is done, which can be after the reader has the bytes.
    await eventually("the lender counts what it sent") { endpoint.counts.bytesSent == 160_000 }
    #expect(endpoint.counts.bytesSent == 160_000)
    await remote.close()

    // Another certificate pinned: refused through the tunnel as directly.
    let other = try RelayIdentity.makeSelfSigned()
    do {
      _ = try await RemoteItemSource.open(url, pinned: other.fingerprint, route: route)
      Issue.record("read through a tunnel from a certificate that was not the lender's")
    } catch {
      #expect(error.description.contains("through the room's relay"), "\(error)")
      #expect(error.description.lowercased().contains("certificate"), "\(error)")
    }
    await endpoint.stop()
    await rig.server.stop()
  }

  @Test(
    "a borrower's first bytes that reach the lender before its endpoint takes the stream are served all the same"
  )
  func firstBytesHeld() async throws {
    let rig = try await RelayTunnelRig.start(Self.fast)
    let ann = try await rig.enter("ann")
    let carol = try await rig.enter("carol")
    let (endpoint, identity) = try await LenderEndpointTests.lender()
    let item = MemoryItem(100_000)
    let grant = try LenderEndpointTests.grant(endpoint, item)
    // The lender takes the stream only once the borrower's TLS hello has surely arrived and
    // been held (the race a real lender loses when its process is busy).
    let route = Self.route(
      rig, from: carol, to: ann, serving: endpoint, adoptAfter: .milliseconds(300))
    let remote = try await RemoteItemSource.open(
      "https://127.0.0.1:1\(grant.path)", pinned: identity.fingerprint, timeout: 5, route: route)
    let part = try await remote.read(from: 0, maximum: 100_000)
    #expect(Array(part.readableBytesView) == item.bytes)
    await remote.close()
    await endpoint.stop()
    await rig.server.stop()
  }

  /// The way a borrower's process reaches a lender through the relay: each connection asks
  /// for a ticket; the lender answers the call and serves its half from its endpoint
  /// (`adoptAfter` later than it could).
  static func route(
    _ rig: RelayTunnelRig, from borrower: RelayTunnelRig.Member, to lender: RelayTunnelRig.Member,
    serving endpoint: LenderEndpoint, adoptAfter delay: Duration = .zero
  ) -> LenderRoute {
    LenderRoute(description: "through the room's relay") {
      let secret = try await borrower.ask(for: lender.id).get()
      let call = try await lender.call(from: borrower.id)
      let dialer = rig.dialer
      Task {
        guard let half = try? await dialer.dial(secret: call, relay: nil, fingerprint: nil)
        else { return }
        if delay > .zero { try? await Task.sleep(for: delay) }
        await endpoint.adopt(LenderRoute.Opened(channel: half.channel, release: half.release))
      }
      let half = try await dialer.dial(secret: secret, relay: nil, fingerprint: nil)
      return LenderRoute.Opened(channel: half.channel, release: half.release)
    }
  }
}

extension Result where Failure == RelayTunnelRig.TunnelRefusalText {
  var failureText: String? {
    if case .failure(let refusal) = self { refusal.text } else { nil }
  }
}
