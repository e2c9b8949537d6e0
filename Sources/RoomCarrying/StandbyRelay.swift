import Clocks
import Logging
import NIOSSL
import ParticipantRuntime
import Participation
import PlaybackCoordination
import Rooms
import TCPRelayServer
import Transports
import WireProtocol

/// A participant's own relay, listening from the start and ready to carry the room its
/// participant is in: the room's relay feeds it a copy (through the participant's
/// connection) while it is among the first successors, and hands the room to it when its
/// host leaves; then everyone reconnects here with their resume tokens, and the room goes
/// on on this machine, passing itself on in turn.
public final class StandbyRelay: RoomCarrier {
  public let server: RelayServer
  public let directory: ReplicaDirectory
  /// What the participant offers the room's relay.
  public let offer: CarryOffer
  private let logger: Logger

  private init(
    server: RelayServer, directory: ReplicaDirectory, offer: CarryOffer, logger: Logger
  ) {
    self.server = server
    self.directory = directory
    self.offer = offer
    self.logger = logger
  }

  /// Starts listening on `port` (0: any free one) of `host`, with TLS when `tls` is given
  /// (`fingerprint` is its certificate's, for the offer).
  public static func start(
    host: String = "0.0.0.0", port: Int = 0, tls: NIOSSLContext?, fingerprint: String?,
    configuration: RelayConfiguration = .init(), clock: any SessionClock = MonotonicClock(),
    logger: Logger = Logger(label: "cowatch.standby")
  ) async throws(RelayServerError) -> StandbyRelay {
    let directory = ReplicaDirectory(clock: clock)
    var configuration = configuration
    // Resumes addressed to this relay name its certificate.
    if let fingerprint { configuration.certificateFingerprints = [fingerprint] }
    let server = try await RelayServer.start(
      host: host, port: port, configuration: configuration, clock: clock, logger: logger,
      directory: directory, tls: tls, feedsSuccessors: true)
    return StandbyRelay(
      server: server, directory: directory,
      offer: CarryOffer(
        port: server.port, fingerprint: fingerprint, relayKey: server.runtime.ownerKey),
      logger: logger)
  }

  public func perform(
    _ effect: CarrierEffect, groupClock: ClockOffsetEstimate?, at now: LocalInstant
  ) {
    switch effect {
    case .replica(let change):
      directory.apply(change)
    case .carry(let room, let state):
      // The old relay's group clock as this participant estimates it, against this
      // relay's own (the same monotonic clock the participant reads): instants move by
      // the difference, so that nobody's player jumps.
      if groupClock == nil {
        logger.warning("carrying room \(room) without a clock estimate: instants kept as they are")
      }
      directory.carry(
        room, state: state, shift: ReplicaDirectory.shift(groupClock, at: now))
      logger.notice("carrying room \(room) from now on")
    }
  }

  public var relayEpoch: String { server.runtime.epoch }

  /// Lets an election here read what `client` (this machine's participant) knows: the
  /// room as it replayed it and its estimate of the old relay's clock.
  public func attach(_ client: ParticipantClient) {
    directory.attach(
      { [weak client] in
        guard let client else { return nil }
        let snapshot = await client.snapshot()
        return ReplicaBook.Known(
          state: snapshot.state, clock: snapshot.clock, now: snapshot.localTime,
          connected: snapshot.connection == .connected)
      },
      told: { [weak client] in await client?.carryingRoom() })
  }

  /// Lets this relay, once it carries a room, find where the room went on if it is
  /// replaced while away (its machine slept): it asks the successors it lost, over
  /// `transport` (the participant's, with its TLS rules).
  public func locateRooms(over transport: any Transport) {
    server.runtime.locateRooms { room, relay in
      await RoomLocating.locate(room, at: relay, over: transport)
    }
  }

  /// Stops listening and closes what it serves (the rooms it carries end with it).
  public func stop() async { await server.stop() }
}
