import Foundation
import SyncplayProtocol
import Testing

@Suite("Syncplay's wire format")
struct SyncplayCodecTests {
  let codec = SyncplayCodec()

  func decode(_ line: String) throws(SyncplayError) -> [SyncplayClientMessage] {
    try codec.decode(Array(line.utf8))
  }

  @Test("reads the Hello Debian's Syncplay 1.6.9 client sends")
  func hello() throws {
    let line =
      #"{"Hello": {"username": "sam", "room": {"name": "lobby"}, "version": "1.2.255", "realversion": "1.6.9", "features": {"sharedPlaylists": true, "chat": true, "featureList": true, "readiness": true, "managedRooms": true}}}"#
      + "\r"
    #expect(
      try decode(line)
        == [.hello(SyncplayHello(username: "sam", room: "lobby", version: "1.6.9", password: nil))])
  }

  @Test("reads a State with its ping and ignoring-on-the-fly counters")
  func state() throws {
    let line =
      #"{"State": {"playstate": {"position": 15.67, "paused": true, "doSeek": true}, "ping": {"latencyCalculation": 901.85, "clientLatencyCalculation": 1795596056.97, "clientRtt": 0.05}, "ignoringOnTheFly": {"server": 1, "client": 2}}}"#
    let expected = SyncplayClientState(
      playstate: .init(position: 15.67, paused: true, doSeek: true), latencyCalculation: 901.85,
      clientLatencyCalculation: 1795596056.97, clientRtt: 0.05, ignoringServer: 1,
      ignoringClient: 2)
    #expect(try decode(line) == [.state(expected)])
  }

  @Test("reads Set: file, readiness, playlist")
  func settings() throws {
    #expect(
      try decode(#"{"Set": {"file": {"name": "clip.mp4", "duration": 120.0, "size": 2417501}}}"#)
        == [.set(.file(SyncplayFile(name: "clip.mp4", duration: 120, size: .number(2_417_501))))])
    #expect(
      try decode(#"{"Set": {"ready": {"isReady": false, "manuallyInitiated": false}}}"#)
        == [.set(.ready(isReady: false, manuallyInitiated: false))])
    #expect(
      try decode(#"{"Set": {"playlistIndex": {"index": 2}}}"#) == [.set(.playlistIndex(2))])
    #expect(
      try decode(#"{"Set": {"playlistChange": {"files": ["a.mkv", "b.mkv"]}}}"#)
        == [.set(.playlistChange(files: ["a.mkv", "b.mkv"]))])
    #expect(
      try decode(#"{"Set": {"features": {"chat": true}}}"#) == [.set(.ignored("features"))])
  }

  @Test("chat is cut to Syncplay's length; TLS requests and List are read")
  func chatAndOthers() throws {
    let long = String(repeating: "x", count: 400)
    #expect(try decode(#"{"Chat": "\#(long)"}"#) == [.chat(String(repeating: "x", count: 150))])
    #expect(try decode(#"{"TLS": {"startTLS": "send"}}"#) == [.startTLS])
    #expect(try decode(#"{"List": null}"#) == [.list])
    #expect(try decode("") == [])
    #expect(try decode("\r") == [])
  }

  @Test(
    "refuses what is not Syncplay, in words",
    arguments: [
      ("{nope", SyncplayError.notJSON),
      ("[1,2]", .notAnObject),
      (#"{"Launch": {}}"#, .unknownCommand("Launch")),
      (#"{"Hello": {"username": "x"}}"#, .missing("Hello.room")),
      (
        #"{"Hello": {"username": 5, "room": {"name": "r"}, "version": "1"}}"#,
        .badField("Hello.username", expected: "a string")
      ),
      (
        #"{"State": {"playstate": {"position": 1e300, "paused": true}}}"#,
        .badField("State.playstate.position", expected: "a number of seconds (at most 10000000)")
      ),
      (
        #"{"State": {"playstate": {"position": "1", "paused": true}}}"#,
        .badField("State.playstate.position", expected: "a number of seconds (at most 10000000)")
      ),
      (
        #"{"State": {"ping": {"clientRtt": -1}}}"#,
        .badField("State.ping.clientRtt", expected: "seconds from 0 to 3600")
      ),
      (
        #"{"State": {"ignoringOnTheFly": {"server": 1.5}}}"#,
        .badField("State.ignoringOnTheFly.server", expected: "a whole number from 0 to 1000000")
      ),
      (
        #"{"Set": {"playlistIndex": {"index": -1}}}"#,
        .badField("Set.playlistIndex.index", expected: "a whole number from 0 to 250")
      ),
      (
        #"{"Set": {"file": {"name": "a", "duration": 1, "size": [1]}}}"#,
        .badField("Set.file.size", expected: "a size in bytes or its hash")
      ),
      (
        #"{"Set": {"ready": {"isReady": "yes"}}}"#,
        .badField("Set.ready.isReady", expected: "true or false")
      ),
    ])
  func refuses(line: String, error: SyncplayError) {
    #expect(throws: error) { try decode(line) }
  }

  @Test("a line past 16 KiB, invalid UTF-8 and deep nesting are refused, not crashed on")
  func limits() {
    let long = "{\"Chat\": \"" + String(repeating: "a", count: 17_000) + "\"}"
    #expect(throws: SyncplayError.lineTooLong(limit: 16_384)) { try decode(long) }
    #expect(throws: SyncplayError.notUTF8) { try codec.decode([0x7B, 0xFF, 0xFE, 0x7D]) }
    let deep = String(repeating: "[", count: 8_000) + String(repeating: "]", count: 8_000)
    #expect(throws: SyncplayError.self) { try decode("{\"Chat\": \(deep)}") }
  }

  @Test("random bytes either decode or give one error, never a crash")
  func garbage() {
    var random = SystemRandomNumberGenerator()
    let pieces = [
      "{", "}", "[", "]", "\"", ":", ",", "State", "Hello", "Set", "playstate", "position",
      "1e999", "-0", "null", "true", "\\u0000", "é", "\u{202E}", " ", "9999999999",
    ]
    for _ in 0..<2_000 {
      var line = ""
      for _ in 0..<Int.random(in: 0...30, using: &random) {
        line += pieces.randomElement(using: &random)!
      }
      do { _ = try decode(line) } catch {}
    }
  }

  @Test("states go out as Syncplay's server writes them, one CRLF line")
  func encodesState() throws {
    let line = codec.encode(
      .state(
        SyncplayServerState(
          position: 12.5, paused: true, doSeek: false, setBy: "ann", latencyCalculation: 3,
          serverRtt: 0.01, clientLatencyCalculation: 7, ignoringServer: 1, ignoringClient: nil)))
    #expect(line.suffix(2) == [13, 10])
    let object = try JSONSerialization.jsonObject(with: Data(line.dropLast(2))) as! [String: Any]
    let state = object["State"] as! [String: Any]
    let playstate = state["playstate"] as! [String: Any]
    #expect(playstate["position"] as? Double == 12.5)
    #expect(playstate["paused"] as? Bool == true)
    #expect(playstate["setBy"] as? String == "ann")
    #expect((state["ignoringOnTheFly"] as! [String: Any])["server"] as? Int == 1)
    #expect((state["ping"] as! [String: Any])["clientLatencyCalculation"] as? Double == 7)
  }
}
