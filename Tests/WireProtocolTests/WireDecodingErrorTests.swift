import Foundation
import PlaybackCoordination
import Testing

@testable import WireProtocol

/// A peer that gets the format wrong is told exactly what and where, in JSON terms, since
/// it may not be written in Swift. These texts reach people in `malformedFrame` errors.
@Suite("Wire format: decoding errors")
struct WireDecodingErrorTests {
  static let client: [(String, String)] = [
    // Unknown types, at every level.
    (#"{"type":"nope"}"#, #"type: unknown message type "nope""#),
    (
      #"{"type":"command","id":1,"command":{"type":"teleport"}}"#,
      #"command.type: unknown command type "teleport""#
    ),
    (
      #"{"type":"send","seq":1,"to":{"type":"some"},"kind":"chat","body":"x"}"#,
      #"to.type: unknown recipients type "some""#
    ),
    (
      #"{"type":"command","id":1,"command":{"type":"setReadiness","readiness":"sleepy"}}"#,
      #"command.readiness: unknown readiness "sleepy" (expected ready, loading or stalled)"#
    ),
    (
      #"{"type":"command","id":1,"command":{"type":"exit","reason":"bored"}}"#,
      #"command.reason: unknown exit reason "bored" (expected quit, disconnected, timedOut or removed)"#
    ),
    // Missing fields, named with where they were expected.
    (#"{"version":2}"#, #"missing field "type""#),
    (#"{"type":"hello"}"#, #"missing field "version""#),
    (#"{"type":"command","id":1,"command":{"type":"pause"}}"#, #"missing field "at" in command"#),
    (
      #"{"type":"send","seq":1,"to":{"type":"only"},"kind":"chat","body":"x"}"#,
      #"missing field "participants" in to"#
    ),
    (
      #"{"type":"command","id":1,"command":{"type":"start","item":"a/b","series":{"id":"a","title":"A","items":[{"id":"a/b","title":"B"}]}}}"#,
      #"missing field "duration" in command.series.items[0]"#
    ),
    // A version-1 command: its case name was the key, there was no "type".
    (
      #"{"type":"command","id":1,"command":{"pause":{"at":1}}}"#,
      #"missing field "type" in command"#
    ),
    // Wrong types, said in JSON words.
    (
      #"{"type":"hello","version":"one","name":"a","room":"b"}"#,
      "wrong type for version: expected an integer"
    ),
    (
      #"{"type":"command","id":1,"command":{"type":"pause","at":"soon"}}"#,
      "wrong type for command.at: expected a number"
    ),
    (
      #"{"type":"command","id":1,"command":{"type":"setAutoAdvance","enabled":"yes"}}"#,
      "wrong type for command.enabled: expected true or false"
    ),
    (#"{"type":"command","id":1,"command":"join"}"#, "wrong type for command: expected an object"),
    (
      #"{"type":"send","seq":1,"to":{"type":"only","participants":"p2"},"kind":"k","body":"b"}"#,
      "wrong type for to.participants: expected an array"
    ),
    (#"{"type":"ping","id":1,"t0":null}"#, "t0 is null: expected an integer"),
    ("[]", "wrong type for the message: expected an object"),
    ("not json", "not valid JSON"),
  ]

  @Test("participant → relay", arguments: client)
  func clientErrors(_ json: String, _ message: String) {
    #expect(throws: WireError.malformed(message)) {
      try WireCodec().decodeClient(Array(json.utf8))
    }
  }

  static let server: [(String, String)] = [
    (
      #"{"type":"step","step":{"before":1,"after":2,"at":5,"input":{"type":"command","command":{"type":"join"}}}}"#,
      #"missing field "from" in step.input"#
    ),
    (
      #"{"type":"step","step":{"before":1,"after":2,"at":5,"input":{"type":"nap"}}}"#,
      #"step.input.type: unknown step input type "nap""#
    ),
    (
      #"{"type":"update","state":{"sequence":1,"participants":[],"sessionCounter":0},"events":[{"sequence":1,"at":0,"kind":{"type":"exploded"}}]}"#,
      #"events[0].kind.type: unknown change type "exploded""#
    ),
    (
      #"{"type":"update","state":{"sequence":1,"participants":[],"sessionCounter":0},"events":[{"sequence":1,"at":0,"kind":{"type":"waitStarted","participant":"p2","cause":{"type":"bored"}}}]}"#,
      #"events[0].kind.cause.type: unknown wait cause type "bored""#
    ),
    (
      #"{"type":"rejected","id":1,"reason":{"type":"tooLoud"}}"#,
      #"reason.type: unknown rejection type "tooLoud""#
    ),
    (
      #"{"type":"rejected","id":1,"reason":{"type":"rateOutOfRange","rate":9,"allowed":{"min":4,"max":0.25}}}"#,
      "reason.allowed.max: max 0.25 is below min 4.0"
    ),
    (
      #"{"type":"rejected","id":1,"reason":{"type":"rateOutOfRange","rate":9,"allowed":[0.25,4]}}"#,
      "wrong type for reason.allowed: expected an object"
    ),
    (
      #"{"type":"error","code":"oops","message":"x","fatal":true}"#,
      #"code: unknown error code "oops" (expected malformedFrame, frameTooLarge, unsupportedVersion, helloRequired, alreadyGreeted, roomFull, invalidHello, rateLimited, messageTooLarge, unknownRecipient, tooManyConnections, tooManyRooms, messagesLost, heartbeatTimeout, serverShuttingDown, roomLocked, removedFromRoom, wrongPassword, roomNotProtected, tlsRequired, storeUnavailable, roomClosed, cutOff or tunnelRefused)"#
    ),
    (
      #"{"type":"update","state":{"sequence":1,"participants":[{"id":"p1"}],"sessionCounter":0},"events":[]}"#,
      #"missing field "name" in state.participants[0]"#
    ),
  ]

  @Test("relay → participant", arguments: server)
  func serverErrors(_ json: String, _ message: String) {
    #expect(throws: WireError.malformed(message)) {
      try WireCodec().decodeServer(Array(json.utf8))
    }
  }

  @Test("an unknown string-enum value lists every value there is")
  func stringEnumsListTheirValues() {
    func message<Value: Decodable>(_ type: Value.Type) -> String {
      do {
        _ = try JSONDecoder().decode(Value.self, from: Data(#""?""#.utf8))
        return ""
      } catch DecodingError.dataCorrupted(let context) {
        return context.debugDescription
      } catch {
        return "\(error)"
      }
    }
    for (value, _) in Golden.readiness {
      #expect(message(Readiness.self).contains(WireCaseNames.of(value)))
    }
    for (value, _) in Golden.exitReasons {
      #expect(message(ExitReason.self).contains(WireCaseNames.of(value)))
    }
    for (value, _) in Golden.playbackStatuses {
      #expect(message(PlaybackStatus.self).contains(WireCaseNames.of(value)))
    }
  }
}
