import Foundation
import Logging
import RelayRuntime
import Rooms
import SyncplayBridge
import SyncplayHarness
import SyncplayServer
import TestSupport
import Testing

/// Attacks on the Syncplay port that need no Syncplay client: sockets that never speak,
/// more sockets than an address may hold, and lines the port refuses.
@Suite("The Syncplay port under abuse", .timeLimit(.minutes(1)))
struct SyncplayPortLimitTests {
  static func port(
    perAddress: Int = 64, helloTimeout: Double, partialLineBytes: Int = 32 * 1_048_576
  ) async throws -> (InMemoryRelay, SyncplayServer) {
    var configuration = RelayConfiguration()
    configuration.maximumConnectionsPerAddress = perAddress
    configuration.maximumPartialLineBytes = partialLineBytes
    let relay = InMemoryRelay(configuration: configuration)
    relay.start()
    let server = try await SyncplayServer.start(
      runtime: relay.runtime, port: 0,
      configuration: SyncplayBridgeConfiguration(helloTimeout: helloTimeout),
      logger: Logger(label: "test.syncplay") { _ in SwiftLogNoOpLogHandler() })
    return (relay, server)
  }

  @Test("one address may hold only its share of the port's connections")
  func perAddress() async throws {
    let (relay, server) = try await Self.port(perAddress: 2, helloTimeout: 60)
    let port = server.port
    let idle = try [SyncplayLine(port: port), SyncplayLine(port: port)]
    #expect(await eventually(10) { server.connectionCount == 2 })
    let third = try await blocking { try SyncplayLine(port: port).readLine() }
    #expect(third.contains("too many connections from 127.0.0.1"), "\(third)")
    #expect(server.connectionCount == 2, "the refused one took no place")
    _ = idle
    await server.stop()
    await relay.stop()
  }

  @Test(
    "unfinished lines are bounded in all on the Syncplay port too: the connection that overflows the budget is refused in words, the others keep theirs"
  )
  func partialLines() async throws {
    // A quarter of the relay's budget, but never less than one whole line: 16 KiB here, so
    // two 9,000-byte halves of a line (each well within a line's 16 KiB) are one too many.
    let (relay, server) = try await Self.port(helloTimeout: 60, partialLineBytes: 40_000)
    let port = server.port
    let half = String(repeating: "x", count: 9_000)
    let first = try SyncplayLine(port: port)
    try first.sendUnfinished(half)
    #expect(await eventually(10) { server.unfinishedLineBytes == 9_000 }, "the half is held")
    let heard = try await blocking {
      let second = try SyncplayLine(port: port)
      try second.sendUnfinished(half)
      return second.readLine()
    }
    #expect(heard.contains("Error"), "\(heard)")
    // The first finishes its line: it is answered as any line is (not refused for size).
    try first.send("")
    let answer = try await blocking { first.readLine() }
    #expect(answer.contains("Error") && !answer.contains("too long"), "\(answer)")
    await server.stop()
    await relay.stop()
  }

  @Test("a socket that never says Hello is told so and closed, and gives its place back")
  func helloTimeout() async throws {
    let (relay, server) = try await Self.port(helloTimeout: 1)
    let port = server.port
    // Waits as long as it may take: beside busy loops and the parallel suite, the relay's
    // 1 s timer once fired after the socket's usual 10 s read wait (the subject here is
    // that the words come, not how soon).
    let heard = try await blocking { try SyncplayLine(port: port, within: 60).readLine() }
    #expect(heard.contains("no Hello within 1 s"), "\(heard)")
    #expect(await eventually(5) { server.connectionCount == 0 }, "closed sockets keep their places")
    await server.stop()
    await relay.stop()
  }

  @Test("lines the port refuses, on real sockets: each is answered and closed; the port serves on")
  func refusedLines() async throws {
    let (relay, server) = try await Self.port(helloTimeout: 60)
    let port = server.port
    // Each makes the port close the connection from inside its own handling of the line
    // (once a crash of the whole relay: the close called back into the locked connection).
    for line in ["not json", #"{"Hello": 5}"#, "[]", #"{"State": {}}"#] {
      let heard = try await blocking { try SyncplayLine.exchange(port: port, line) }
      #expect(heard.contains("Error"), "\(line) → \(heard)")
    }
    #expect(await eventually(5) { server.connectionCount == 0 })
    let still = try await blocking { try SyncplayLine.exchange(port: port, "still there?") }
    #expect(still.contains("Error"), "\(still)")
    await server.stop()
    await relay.stop()
  }
}
