import Foundation
import ParticipantRuntime
import Participation
import ServedRelay
import TCPRelayClient
import Testing

@Suite("A relay started as `cowatch serve` starts it", .serialized)
struct ServedRelayTests {
  @Test("rooms kept in an SQLite file come back on the next start, and the notes say so")
  func restoresRooms() async throws {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("cowatch-service-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let store = directory.appendingPathComponent("relay.sqlite").path
    let options = ServedRelayOptions(host: "127.0.0.1", port: 0, store: store)

    try await enterAndStop(options)
    let second = try await ServedRelay.start(options)
    #expect(second.notes == ["rooms kept in \(store); 1 restored"])
    #expect(second.server.runtime.state(ofRoom: "attic")?.participants.map(\.name) == ["ann"])
    await second.stop()
  }

  /// Runs a relay in which ann enters room attic, and stops it (the store's lock goes with
  /// it).
  private func enterAndStop(_ options: ServedRelayOptions) async throws {
    let first = try await ServedRelay.start(options)
    #expect(first.notes == ["rooms kept in \(options.store ?? ""); 0 restored"])
    let client = ParticipantClient(
      transport: TCPTransport(host: "127.0.0.1", port: first.port),
      configuration: ParticipantConfiguration(name: "ann", room: "attic"))
    try await client.start()
    await client.kill()
    await first.stop()
    await first.wait()
  }

  @Test("a store that cannot be opened is one clear error")
  func badStore() async {
    let options = ServedRelayOptions(port: 0, store: "/proc/no/such/dir/relay.sqlite")
    await #expect(throws: ServedRelayError.self) { try await ServedRelay.start(options) }
  }

  @Test(
    "Syncplay's clients are taken on a port of their own, in plain TCP without a CA's certificate")
  func syncplayPort() async throws {
    let service = try await ServedRelay.start(ServedRelayOptions(port: 0, syncplayPort: 0))
    #expect(service.notes.first == "rooms kept in memory only (--store memory)")
    let syncplay = try #require(service.syncplay)
    #expect(
      service.notes.last
        == "Syncplay clients accepted on 127.0.0.1:\(syncplay.port) (plain TCP: Syncplay's client needs a CA's certificate for TLS)"
    )
    await service.stop()
  }
}
