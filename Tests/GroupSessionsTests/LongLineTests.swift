import GroupSessions
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
