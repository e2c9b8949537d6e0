import Logging
import ParticipantRuntime
import Participation
import RelayTLS
import RoomsTesting
import TCPRelayClient
import TCPRelayServer
import Testing
import Transports

/// An invite link's addresses, tried at once: the first that answers with the right
/// certificate is the room's, and the others cost nothing.
@Suite("Several addresses of one relay", .timeLimit(.minutes(1)))
struct RacingTransportTests {
  static func relay(_ identity: RelayIdentity) async throws -> RelayServer {
    var logger = Logger(label: "test.relay")
    logger.logLevel = .critical
    return try await RelayServer.start(
      host: "127.0.0.1", port: 0, logger: logger, identity: identity)
  }

  static func pinned(_ port: Int, _ fingerprint: String) -> TCPTransport {
    TCPTransport(
      host: "127.0.0.1", port: port,
      tls: RelayVerification(pinned: fingerprint, knownRelays: nil))
  }

  @Test("a dead address first in the link: the live one is joined, without waiting for the dead")
  func deadFirst() async throws {
    let identity = try RelayIdentity.makeSelfSigned()
    let server = try await Self.relay(identity)
    let silent = try #require(SilentListener())
    defer {
      silent.close()
      Task { await server.stop() }
    }
    let transport = RacingTransport(addresses: [
      Self.pinned(silent.port, identity.fingerprint),
      Self.pinned(server.port, identity.fingerprint),
    ])
    let client = ParticipantClient(
      transport: transport, configuration: ParticipantConfiguration(name: "ann"))
    let started = ContinuousClock.now
    try await client.start()
    // The silent address's handshake would give up only after 10 s.
    #expect(ContinuousClock.now - started < .seconds(8))
    #expect(await client.connectionStatus == .connected)
    await client.stop()
  }

  @Test("someone else's relay at one address (another network's machine): the room's is joined")
  func wrongCertificateElsewhere() async throws {
    let identity = try RelayIdentity.makeSelfSigned()
    let stranger = try await Self.relay(try RelayIdentity.makeSelfSigned())
    let server = try await Self.relay(identity)
    defer {
      Task {
        await stranger.stop()
        await server.stop()
      }
    }
    let transport = RacingTransport(addresses: [
      Self.pinned(stranger.port, identity.fingerprint),
      Self.pinned(server.port, identity.fingerprint),
    ])
    let connection = try await transport.connect()
    await connection.close()
    // Only the stranger: its refusal is the answer, in words.
    let alone = RacingTransport(addresses: [
      Self.pinned(stranger.port, identity.fingerprint),
      Self.pinned(stranger.port, identity.fingerprint),
    ])
    await #expect {
      try await alone.connect()
    } throws: { error in
      guard let error = error as? TransportError, case .untrusted = error else { return false }
      return true
    }
  }

  @Test("no address answers: one error that names each one and why")
  func allDead() async throws {
    let silent = try #require(SilentListener())
    let closed = try #require(SilentListener())
    let closedPort = closed.port
    closed.close()
    defer { silent.close() }
    let transport = RacingTransport(addresses: [
      TCPTransport(host: "127.0.0.1", port: closedPort),
      TCPTransport(host: "127.0.0.1", port: silent.port, connectTimeout: 1),
    ])
    do {
      let connection = try await transport.connect()
      await connection.close()
      // The closed port was taken by someone else meanwhile: nothing to check.
    } catch {
      #expect(error.description.contains("127.0.0.1:\(closedPort): "), "\(error)")
      #expect(error.description.contains(" or "), "\(error)")
    }
  }

  @Test("none of the room's addresses answers: the successors are tried, with their certificates")
  func fallsBackToSuccessors() async throws {
    let identity = try RelayIdentity.makeSelfSigned()
    let successor = try RelayIdentity.makeSelfSigned()
    let server = try await Self.relay(successor)
    let silent = try #require(SilentListener())
    defer {
      silent.close()
      Task { await server.stop() }
    }
    let transport = RacingTransport(
      addresses: [
        TCPTransport(
          host: "127.0.0.1", port: silent.port, connectTimeout: 1,
          tls: RelayVerification(pinned: identity.fingerprint, knownRelays: nil))
      ],
      fallbacks: [Self.pinned(server.port, successor.fingerprint)])
    let connection = try await transport.connect()
    await connection.close()
  }
}
