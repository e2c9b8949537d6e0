import Clocks
import LineFraming
import Logging
import NIOCore
import NIOEmbedded
import RelayRuntime
import SyncplayBridge
import Testing

@testable import SyncplayServer

/// One Syncplay connection on an `EmbeddedChannel`, where a close runs in place: what the
/// connection does while it holds its lock must not call back into it.
@Suite("A Syncplay connection closing itself")
struct SyncplayConnectionTests {
  /// A connection on `channel`, admitted, its channel active.
  static func open(_ channel: EmbeddedChannel) throws -> SyncplayConnection {
    let runtime = RelayRuntime(clock: ManualClock())
    let connection = SyncplayConnection(
      channel: channel, runtime: runtime, configuration: SyncplayBridgeConfiguration(),
      clock: ManualClock(), logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() },
      passwordChecks: PasswordChecks(), tls: nil)
    try channel.pipeline.syncOperations.addHandler(
      SyncplayChannelHandler { _ in .admitted(connection) })
    channel.pipeline.fireChannelActive()
    return connection
  }

  @Test("a line it refuses is answered with an error, then the connection closes (no crash)")
  func refusedLineCloses() throws {
    let channel = EmbeddedChannel()
    _ = try Self.open(channel)
    // Not Syncplay's JSON: the bridge refuses it and asks to close the connection.
    try channel.writeInbound(InboundFrame.line(Array("not json".utf8)))
    channel.embeddedEventLoop.run()
    let answer = try channel.readOutbound(as: ByteBuffer.self)
    #expect(answer.map { String(buffer: $0) }?.contains("Error") == true)
    #expect(!channel.isActive)
  }

  @Test("a line past the limit: the same")
  func oversizedLineCloses() throws {
    let channel = EmbeddedChannel()
    _ = try Self.open(channel)
    try channel.writeInbound(InboundFrame.tooLarge(limit: 16_384))
    channel.embeddedEventLoop.run()
    let answer = try channel.readOutbound(as: ByteBuffer.self)
    #expect(answer.map { String(buffer: $0) }?.contains("Error") == true)
    #expect(!channel.isActive)
  }
}
