import ParticipantRuntime
import Participation
import PlaybackCoordination
import TCPRelayClient
import TestSupport
import Testing
import WireProtocol

@Suite("Bad peers on the TCP relay", .serialized, .timeLimit(.minutes(1)))
struct BadPeerTests {
  static let cases: [(String, String)] = [
    ("this is not json\n", "malformedFrame"),
    (
      "{\"type\":\"hello\",\"version\":99,\"name\":\"x\",\"room\":\"lobby\"}\n",
      "unsupportedVersion"
    ),
    (
      "{\"type\":\"hello\",\"version\":1,\"name\":\"x\",\"room\":\"lobby\"}\n",
      "unsupportedVersion"
    ),
    (String(repeating: "x", count: 70_000) + "\n", "frameTooLarge"),
    (String(repeating: "y", count: 70_000), "frameTooLarge"),
    ("{\"type\":\"command\",\"id\":1,\"command\":{\"type\":\"join\"}}\n", "helloRequired"),
    (
      "{\"type\":\"hello\",\"version\":\(ProtocolVersion.current),\"name\":\"x\",\"room\":\"lobby\"}\n{\"type\":\"command\",\"id\":1,\"command\":{\"type\":\"teleport\"}}\n",
      "malformedFrame"
    ),
  ]

  @Test(
    "garbage, oversized and wrong-version frames get one error and a close; the room carries on",
    arguments: cases)
  func badFrames(bytes: String, code: String) async throws {
    let relay = try await RelayHarness(.tcp, tls: false)
    let ann = try await relay.participant("ann")
    let bob = try await relay.participant("bob")
    try await ann.send(.start(series: testSeries, item: "harbour/s1e1")).get()

    let socket = try #require(RawSocket(port: relay.server!.port))
    let answer = await socket.exchange(bytes)
    let errors = answer.split(separator: "\n").filter { $0.contains("\"type\":\"error\"") }
    #expect(errors.count == 1, "one error line, got: \(answer.prefix(300))")
    #expect(errors.first?.contains("\"code\":\"\(code)\"") == true)
    #expect(errors.first?.contains("\"fatal\":true") == true)

    // Everyone else is unaffected.
    #expect(await ann.groupState.session?.intendedRate == 1, "the session means to play")
    try await bob.send(.join).get()
    try await bob.send(.pause(item: "harbour/s1e1", at: 0)).get()
    // The session no longer means to play: only bob's pause does that. (Not "ann's last
    // change is bob's": ann's own readiness may be sequenced after it — under load, it was,
    // once in three full runs, and the wait timed out with ann's readiness last.)
    await eventually("ann sees bob's pause") {
      await ann.groupState.session?.intendedRate == 0
    }
    let session = await ann.groupState.session
    let status = await ann.connectionStatus
    #expect(
      session?.intendedRate == 0,
      "ann's session: \(String(describing: session)); ann's connection: \(status)")
    #expect(await ann.groupState.participants.map(\.name) == ["ann", "bob"])
    await ann.stop()
    await bob.stop()
    await relay.stop()
  }
}

@Suite("Hostile numbers never crash the relay", .serialized, .timeLimit(.minutes(1)))
struct HostileNumberTests {
  /// A start with an item lasting 1e10 s, then readiness: before the fix the relay trapped
  /// converting (duration − position) / rate to nanoseconds, at once or when the first
  /// load wait timed out, taking every room with it.
  static let attack = [
    #"{"type":"hello","version":\#(ProtocolVersion.current),"name":"m","room":"r"}"#,
    #"{"type":"command","id":1,"command":{"type":"start","series":{"id":"x","title":"x","items":[{"id":"x/1","title":"t","duration":1e10}]},"item":"x/1"}}"#,
    #"{"type":"command","id":2,"command":{"type":"setReadiness","readiness":"ready"}}"#,
    #"{"type":"command","id":3,"command":{"type":"report","roundTrip":1e300,"startupLatency":1e300}}"#,
  ]

  @Test("an item of 1e10 s and absurd reports are refused; the relay and another room keep working")
  func hugeDuration() async throws {
    let relay = try await RelayHarness(.tcp, tls: false)
    let ann = try await relay.participant("ann")
    try await ann.send(.start(series: testSeries, item: "harbour/s1e1")).get()

    let socket = try #require(RawSocket(port: relay.server!.port))
    let answer = await socket.exchange(Self.attack.joined(separator: "\n") + "\n")
    let rejected = answer.split(separator: "\n").filter { $0.contains("\"type\":\"rejected\"") }
    #expect(rejected.count == 3, "\(answer.prefix(600))")
    #expect(rejected.first?.contains("no valid duration") == true)

    try await ann.send(.pause(item: "harbour/s1e1", at: 1)).get()
    #expect(await ann.groupState.session?.status == .paused)
    await ann.stop()
    await relay.stop()
  }
}

@Suite("Unreachable relays, in words")
struct UnreachableWordsTests {
  @Test("a host name nobody knows is \"unknown host\", not the resolver's error dump")
  func unknownHost() async {
    let transport = TCPTransport(host: "nosuchhost.invalid", port: 7700)
    do {
      _ = try await transport.connect()
      Issue.record("connected to a host that does not exist")
    } catch {
      #expect(
        error.description
          == "cannot reach the relay at nosuchhost.invalid:7700: unknown host (is the name right?)",
        "\(error.description)")
    }
  }
}
