import Foundation
import Logging
import ParticipantRuntime
import Participation
import PlaybackCoordination
import RelayRuntime
import RelayTLS
import RoomCrypto
import Rooms
import SyncplayHarness
import SyncplayServer

/// A relay with its Syncplay port on loopback, Syncplay's own client (with its mpv) in it,
/// and Cowatch participants on the same runtime: the real thing on both sides, on real time.
final class SyncplayRoom: @unchecked Sendable {
  let directory: URL
  let relay: InMemoryRelay
  let server: SyncplayServer
  let clip: String
  var clients: [SyncplayClientProcess] = []
  var participants: [ParticipantClient] = []
  let tls: TestCertificateAuthority?

  static func makeDirectory() -> URL {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("cowatch-syncplay-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
    try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    return directory
  }

  static let room = "lobby"
  /// The clip's name carries the series and episode, as people's files do.
  static let clipName = "Night.Ferry.S01E03.Port.Askaig.mp4"
  static let clipSeconds = 150.0

  init(
    tls: TestCertificateAuthority? = nil, directory given: URL? = nil,
    configuration: RelayConfiguration = .init()
  ) async throws {
    directory = given ?? Self.makeDirectory()
    // One clip for every test and run (made once: ffmpeg is the costliest part of a room).
    let clips = FileManager.default.temporaryDirectory.appendingPathComponent(
      "cowatch-test-clips-v1")
    try? FileManager.default.createDirectory(at: clips, withIntermediateDirectories: true)
    clip = clips.appendingPathComponent(Self.clipName).path
    let clip = self.clip
    try await blocking { try TestClip.make(clip, seconds: Self.clipSeconds) }
    relay = InMemoryRelay(configuration: configuration)
    relay.start()
    let context = try tls.map {
      try RelayIdentity.load(certificate: $0.certificatePath, key: $0.keyPath).serverContext()
    }
    self.tls = tls
    server = try await SyncplayServer.start(
      runtime: relay.runtime, host: "127.0.0.1", port: 0,
      logger: Logger(label: "test.syncplay") { _ in SwiftLogNoOpLogHandler() }, tls: context)
  }

  /// Syncplay's client as `name`, with its file open.
  func syncplay(
    _ name: String, room: String = SyncplayRoom.room, password: String? = nil, file: String? = nil
  ) async throws -> (SyncplayClientProcess, MpvProbe) {
    // With TLS, by the name the certificate is for, and trusting the test's authority.
    let server = "\(tls == nil ? "127.0.0.1" : "localhost"):\(self.server.port)"
    let (file, directory, environment) = (file ?? clip, directory, tls?.syncplayEnvironment ?? [:])
    let (client, probe) = try await blocking {
      try SyncplayClientProcess.launch {
        try SyncplayClientProcess(
          server: server, name: name, room: room, file: file, directory: directory,
          password: password, environment: environment)
      }
    }
    clients.append(client)
    return (client, probe)
  }

  /// Ends a Syncplay client and its mpv (which takes up to a second).
  func end(_ client: SyncplayClientProcess) async {
    _ = try? await blocking { client.stop() }
  }

  /// A Cowatch participant without a player (always ready), in the room and its session.
  func cowatch(_ name: String, room: String = SyncplayRoom.room, password: String? = nil)
    async throws -> ParticipantClient
  {
    var configuration = ParticipantConfiguration(name: name, room: room)
    // A cheap derivation for a room these tests create with a password.
    configuration.keyDerivationCost = 12
    let client = ParticipantClient(
      transport: relay.transport, configuration: configuration,
      password: try password.map { try RoomPassword($0) })
    try await client.start()
    participants.append(client)
    return client
  }

  var state: GroupState? { relay.state(ofRoom: Self.room) }

  func participant(_ name: String, room: String = SyncplayRoom.room) -> Participant? {
    relay.state(ofRoom: room)?.participants.first { $0.name == name }
  }

  func stop() async {
    for client in clients { await end(client) }
    for participant in participants { await participant.stop() }
    await server.stop()
    await relay.stop()
    try? FileManager.default.removeItem(at: directory)
  }
}

/// Waits until `condition` holds, checking every 50 ms, at most `seconds`.
