import ParticipantRuntime
import TestSupport
import Testing
import WireProtocol

@Suite("Long lines on the TCP relay", .serialized, .timeLimit(.minutes(1)))
struct LongLineTests {
  /// The relay reads into small buffers (an idle participant should cost little) that grow
  /// when reads fill them: a line just under the frame limit must still arrive whole.
  @Test("a hello padded to just under the 64 KiB frame limit, in one write, is welcomed")
  func nearTheLimit() async throws {
    let relay = try await RelayHarness(.tcp, tls: false)
    let socket = try #require(RawSocket(port: relay.server!.port))
    // JSON allows whitespace between members: the same hello, 65,000 bytes long.
    let head = #"{"type":"hello","version":\#(ProtocolVersion.current),"#
    let tail = #""name":"pad","room":"lobby"}"#
    let padding = String(repeating: " ", count: 65_000 - head.utf8.count - tail.utf8.count)
    let line = head + padding + tail
    #expect(line.utf8.count == 65_000)
    let answer = await socket.exchange(line + "\n")
    let first = answer.split(separator: "\n").first.map(String.init) ?? ""
    #expect(first.contains(#""type":"welcome""#), "\(answer.prefix(300))")
    #expect(first.contains(#""name":"pad""#))
    await relay.stop()
  }
}

/// The edges issue: bytes held in unfinished lines were bounded per connection only, so
/// 2,000 connections each holding most of a frame held 128 MB.
@Suite("Unfinished lines on the TCP relay, all together", .serialized, .timeLimit(.minutes(1)))
struct PartialLineBudgetTests {
  @Test(
    "past the relay's budget for unfinished lines, the connection that overflows it is refused in words; the others keep theirs"
  )
  func bounded() async throws {
    var configuration = RelayHarness.fastConfiguration
    configuration.maximumPartialLineBytes = 100_000
    configuration.helloTimeout = 30
    let relay = try await RelayHarness(.tcp, configuration: configuration, tls: false)
    let port = try #require(relay.server?.port)
    let partial = String(repeating: "x", count: 40_000)
    var first = RawSocket(port: port)
    try #require(first != nil)
    let second = try #require(RawSocket(port: port))
    await first?.write(partial)
    await second.write(partial)
    let server = try #require(relay.server)
    await eventually("the relay holds both halves") { server.unfinishedLineBytes == 80_000 }
    // 120,000 bytes would be held: this one is refused.
    let third = try #require(RawSocket(port: port))
    let answer = await third.exchange(partial)
    #expect(answer.contains("unfinished lines"), "\(answer.prefix(300))")
    #expect(answer.contains("rateLimited"))
    // A connection that goes gives its share back: the next one's unfinished line is held
    // (nothing is said to it: the relay waits for the rest of its line).
    first = nil
    await eventually("the first connection's share is given back") {
      server.unfinishedLineBytes == 40_000
    }
    let fourth = try #require(RawSocket(port: port))
    let held = await fourth.exchange(partial)
    #expect(held.isEmpty, "\(held.prefix(300))")
    withExtendedLifetime(second) {}
    await relay.stop()
  }
}
