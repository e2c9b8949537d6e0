import Foundation
import Logging
import RelayRuntime
import Rooms
import SyncplayBridge
import SyncplayHarness
import SyncplayServer
import Testing

/// Attacks on the Syncplay port that need no Syncplay client: sockets that never speak and
/// more sockets than an address may hold.
@Suite("The Syncplay port under abuse", .timeLimit(.minutes(1)))
struct SyncplayPortLimitTests {
  @Test("a socket that never says Hello is told so and closed; one address may hold only its share")
  func limits() async throws {
    var configuration = RelayConfiguration()
    configuration.maximumConnectionsPerAddress = 2
    let relay = InMemoryRelay(configuration: configuration)
    relay.start()
    let server = try await SyncplayServer.start(
      runtime: relay.runtime, port: 0, configuration: SyncplayBridgeConfiguration(helloTimeout: 1),
      logger: Logger(label: "test.syncplay") { _ in SwiftLogNoOpLogHandler() })
    // Two idle sockets from 127.0.0.1 take the address's share; a third is refused at once.
    let port = server.port
    let idle = try [SyncplayLine(port: port), SyncplayLine(port: port)]
    #expect(await eventually(5) { server.connectionCount == 2 })
    let third = try await blocking { try SyncplayLine(port: port).readLine() }
    #expect(third.contains("too many connections from 127.0.0.1"), "\(third)")
    // The idle ones hear why they are dropped, within the hello timeout.
    let heard = try await blocking { idle.map { $0.readLine() } }
    #expect(heard.allSatisfy { $0.contains("no Hello within 1 s") }, "\(heard)")
    #expect(await eventually(5) { server.connectionCount == 0 }, "closed sockets keep their places")
    await server.stop()
    await relay.stop()
  }
}
