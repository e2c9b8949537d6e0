import Foundation
import Logging
import ParticipantRuntime
import Participation
import RelayTLS
import Rooms
import TCPRelayServer
import TestSupport
import Testing

@testable import TCPRelayClient

@Suite("Participants check the relay they reach over TLS", .serialized, .timeLimit(.minutes(1)))
struct RelayTLSSessionTests {
  static func relay(
    _ identity: RelayIdentity?, host: String = "127.0.0.1", port: Int = 0,
    configuration: RelayConfiguration = .init()
  ) async throws -> RelayServer {
    var logger = Logger(label: "test.relay")
    logger.logLevel = .critical
    return try await RelayServer.start(
      host: host, port: port, configuration: configuration, logger: logger,
      identity: identity)
  }

  /// A loopback address of the test's own (127.0.0.0/8 is all this machine's): a relay
  /// that comes back on the port it had rebinds it at once, since no other test holds that
  /// port on this address (on 127.0.0.1 one may, and did: "address already in use").
  static func ownLoopbackHost() -> String {
    "127.\(Int.random(in: 10...250)).\(Int.random(in: 0...255)).\(Int.random(in: 1...254))"
  }

  static func start(_ port: Int, _ tls: RelayVerification?, host: String = "127.0.0.1") async
    -> ClientError?
  {
    let client = ParticipantClient(
      transport: TCPTransport(host: host, port: port, tls: tls),
      configuration: ParticipantConfiguration(name: "ann"))
    do {
      try await client.start()
      await client.stop()
      return nil
    } catch {
      return error
    }
  }

  static func temporaryKnownRelays() -> KnownRelays {
    KnownRelays(
      path: FileManager.default.temporaryDirectory
        .appendingPathComponent("cowatch-known-\(UInt64.random(in: 0...UInt64.max))/known-relays")
        .path)
  }

  @Test("a relay with another certificate at the pinned address is refused, in words")
  func pinned() async throws {
    let identity = try RelayIdentity.makeSelfSigned()
    let other = try RelayIdentity.makeSelfSigned()
    let server = try await Self.relay(identity)
    defer { Task { await server.stop() } }
    #expect(
      await Self.start(
        server.port, RelayVerification(pinned: identity.fingerprint, knownRelays: nil)) == nil)
    let refused = await Self.start(
      server.port, RelayVerification(pinned: other.fingerprint, knownRelays: nil))
    guard case .transport(.untrusted(let why)) = refused else {
      Issue.record("not refused as untrusted: \(String(describing: refused))")
      return
    }
    #expect(
      why.contains(
        "presents \(RelayFingerprint.shown(identity.fingerprint)), not the pinned \(RelayFingerprint.shown(other.fingerprint))"
      ))
    await server.stop()
  }

  @Test(
    "trust on first use: asked once (or told beforehand), remembered, then enforced against a changed certificate"
  )
  func trustOnFirstUse() async throws {
    let known = Self.temporaryKnownRelays()
    defer {
      try? FileManager.default.removeItem(
        atPath: (known.path as NSString).deletingLastPathComponent)
    }
    let first = try RelayIdentity.makeSelfSigned()
    let server = try await Self.relay(first)
    let port = server.port
    let endpoint = "127.0.0.1:\(port)"
    // Headless, not told: refused with what to do.
    guard
      case .transport(.untrusted(let why)) = await Self.start(
        port, RelayVerification(knownRelays: known))
    else {
      Issue.record("an unknown relay was accepted without asking")
      return
    }
    #expect(why.contains("--trust-new-relay"))
    // Asked, and declined: refused, nothing remembered.
    let declined = await Self.start(
      port, RelayVerification(knownRelays: known, ask: { _, _ in false }))
    #expect(
      declined
        == .transport(
          .untrusted(
            "you did not trust the relay at \(endpoint) (\(RelayFingerprint.shown(first.fingerprint)))"
          )))
    #expect(known.fingerprint(for: endpoint) == nil)
    // Asked, with the fingerprint shown, and trusted: remembered.
    let asked = AskLog()
    #expect(
      await Self.start(
        port, RelayVerification(knownRelays: known, ask: { e, f in await asked.add("\(e) \(f)") }))
        == nil)
    #expect(await asked.entries == ["\(endpoint) \(first.fingerprint)"])
    #expect(known.fingerprint(for: endpoint) == first.fingerprint)
    // Known now: no question asked.
    #expect(
      await Self.start(port, RelayVerification(knownRelays: known, ask: { _, _ in false })) == nil)

    // The relay at that address presents another certificate than the one remembered (as
    // one in the way would): refused loudly, even when told to trust new relays, and the
    // remembered one stays.
    let other = try RelayIdentity.makeSelfSigned().fingerprint
    try known.remember(other, for: endpoint)
    let changed = await Self.start(port, RelayVerification(knownRelays: known, trustNew: true))
    guard case .transport(.untrusted(let loud)) = changed else {
      Issue.record("a changed certificate was accepted: \(String(describing: changed))")
      await server.stop()
      return
    }
    #expect(loud.hasPrefix("THE RELAY AT \(endpoint) PRESENTS A DIFFERENT CERTIFICATE"))
    #expect(known.fingerprint(for: endpoint) == other, "what was remembered is not replaced")
    await server.stop()
  }

  @Test(
    "a person who reads the fingerprint longer than the relay waits for a hello still gets in: the question never holds a connection open"
  )
  func slowAnswer() async throws {
    let known = Self.temporaryKnownRelays()
    defer {
      try? FileManager.default.removeItem(
        atPath: (known.path as NSString).deletingLastPathComponent)
    }
    let identity = try RelayIdentity.makeSelfSigned()
    // The relay closes a connection that sends no hello within 1 s; the person answers
    // after 2.5 s (a real relay waits 5 s, a real person 30). Not shorter: the relay's
    // clock starts at the TCP accept, before the TLS handshake, and a debug build's
    // handshake beside the rest of the suite took more than 0.2 s (the hello came late on
    // the second connection, and the test failed though nothing held the first open).
    var configuration = RelayConfiguration()
    configuration.helloTimeout = 1
    let server = try await Self.relay(identity, configuration: configuration)
    let endpoint = "127.0.0.1:\(server.port)"
    let asked = AskLog()
    let outcome = await Self.start(
      server.port,
      RelayVerification(
        knownRelays: known,
        ask: { e, f in
          try? await Task.sleep(for: .milliseconds(2500))
          return await asked.add("\(e) \(f)")
        }))
    #expect(outcome == nil, "\(String(describing: outcome))")
    #expect(await asked.entries == ["\(endpoint) \(identity.fingerprint)"], "asked once")
    #expect(known.fingerprint(for: endpoint) == identity.fingerprint)
    await server.stop()
  }

  @Test("a relay that closes the connection during the handshake is not said to lack TLS")
  func closedDuringHandshake() {
    for shutdown in ["uncleanShutdown", "EOF during handshake"] {
      let said = HandshakeWatcher.describe(text: "handshake failed: \(shutdown)")
      #expect(!said.contains("--no-tls"), "\(said)")
      #expect(said.contains("closed the connection"), "\(said)")
    }
    let plain = HandshakeWatcher.describe(
      text: "error:100000f7:SSL routines:OPENSSL_internal:WRONG_VERSION_NUMBER")
    #expect(plain.contains("does not speak TLS"))
  }

  @Test(
    "a plain client at a TLS relay, and a TLS client at a plain relay: one clear error each, no hang"
  )
  func mismatch() async throws {
    let tlsRelay = try await Self.relay(try RelayIdentity.makeSelfSigned())
    let plain = await Self.start(tlsRelay.port, nil)
    guard case .refused(.tlsRequired, let message) = plain else {
      Issue.record("plain client at a TLS relay: \(String(describing: plain))")
      await tlsRelay.stop()
      return
    }
    #expect(message.contains("only speaks TLS"))
    await tlsRelay.stop()

    let plainRelay = try await Self.relay(nil)
    let tlsClient = await Self.start(
      plainRelay.port, RelayVerification(knownRelays: nil, trustNew: true))
    guard case .transport(.unreachable(_, let reason)) = tlsClient else {
      Issue.record("TLS client at a plain relay: \(String(describing: tlsClient))")
      await plainRelay.stop()
      return
    }
    #expect(reason.contains("does not speak TLS"), "\(reason)")
    await plainRelay.stop()
  }

  @Test(
    "a relay that comes back with another certificate is not reconnected to: the participant stops and says why"
  )
  func changedOnReconnect() async throws {
    let identity = try RelayIdentity.makeSelfSigned()
    let host = Self.ownLoopbackHost()
    // A port outside the ephemeral range: the participant reconnects to it while no relay
    // listens, and a connection from an ephemeral port to itself is one Linux makes
    // (simultaneous open), which then holds the port the impostor needs ("address already
    // in use", once in the suite).
    var started: RelayServer?
    for _ in 0..<20 where started == nil {
      started = try? await Self.relay(identity, host: host, port: Int.random(in: 20_000..<32_000))
    }
    let server = try #require(started, "no free port below the ephemeral range")
    let port = server.port
    var configuration = ParticipantConfiguration(name: "ann")
    configuration.reconnectInitialDelay = 0.05
    let client = ParticipantClient(
      transport: TCPTransport(
        host: host, port: port,
        tls: RelayVerification(pinned: identity.fingerprint, knownRelays: nil)),
      configuration: configuration)
    try await client.start()
    await server.stop()
    let impostor = try await Self.relay(
      try RelayIdentity.makeSelfSigned(), host: host, port: port)
    #expect(
      await eventually(10) { await client.connectionStatus == .disconnected },
      "ann stops rather than reconnect to the impostor")
    #expect(impostor.state(ofRoom: "lobby") == nil, "it never entered the impostor's room")
    await client.stop()
    await impostor.stop()
  }
}

actor AskLog {
  var entries: [String] = []
  func add(_ entry: String) -> Bool {
    entries.append(entry)
    return true
  }
}
