import Foundation
import PlaybackCoordination

@testable import WireProtocol

/// Values and their exact protocol-2 JSON, written out by hand (not captured from the
/// encoder), so that any change to the format, intended or not, fails a test and has to be
/// made here and in docs/PROTOCOL.md on purpose.
///
/// The JSON is as ``WireCodec`` writes it: keys sorted, no spaces, optional fields left out.
enum Fixture {
  /// A reaction's body (version 17), and that body as a JSON string.
  static let reactionBody = #"{"at":754.2,"text":"😂"}"#
  static let reactionBodyJSON = #""{\"at\":754.2,\"text\":\"😂\"}""#
  static let item1 = ItemInfo(id: "harbour/s1e1", title: "Arrival", duration: 150)
  static let item1JSON = #"{"duration":150,"id":"harbour/s1e1","title":"Arrival"}"#
  static let item2 = ItemInfo(id: "harbour/s1e2", title: "Fog", duration: 140)
  static let item2JSON = #"{"duration":140,"id":"harbour/s1e2","title":"Fog"}"#

  static let series = SeriesInfo(id: "harbour", title: "Harbour Lights", items: [item1, item2])
  static let seriesJSON =
    #"{"id":"harbour","items":[\#(item1JSON),\#(item2JSON)],"title":"Harbour Lights"}"#

  static let timeline = Timeline(
    itemTime: 12.5, groupTime: GroupInstant(nanoseconds: 3_600_000_000_000), rate: 0)
  static let timelineJSON = #"{"groupTime":3600000000000,"itemTime":12.5,"rate":0}"#
  /// A seek while playing: the old spot plays on until the switch.
  static let ledInTimeline = Timeline(
    itemTime: 300, groupTime: GroupInstant(nanoseconds: 3_600_200_000_000), rate: 1,
    priorItemTime: 12.7, priorRate: 1)
  static let ledInTimelineJSON =
    #"{"groupTime":3600200000000,"itemTime":300,"priorItemTime":12.7,"priorRate":1,"rate":1}"#

  static let wait = GroupWait(
    participant: "p2", cause: .stalled, since: GroupInstant(nanoseconds: 3_590_000_000_000),
    deadline: GroupInstant(nanoseconds: 3_600_000_000_000))
  static let waitJSON =
    #"{"cause":{"type":"stalled"},"deadline":3600000000000,"participant":"p2","since":3590000000000}"#

  /// Every optional field present.
  static let ann = Participant(
    id: "p1", name: "ann", isJoined: true, readiness: .ready, suspensions: [], autoAdvance: true,
    isConnected: true, roundTrip: 0.5, startupLatency: 0.25, playerOffset: 0.125,
    origin: .syncplay, personalOffset: 0.2, sealingKey: String(repeating: "cd", count: 32),
    lender: "p2", readyToWatch: true)
  static let annJSON =
    #"{"autoAdvance":true,"id":"p1","isConnected":true,"isJoined":true,"lender":"p2","name":"ann","origin":"syncplay","personalOffset":0.2,"playerOffset":0.125,"readiness":"ready","readyToWatch":true,"roundTrip":0.5,"sealingKey":"cdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcd","startupLatency":0.25,"suspensions":[]}"#
  /// `playerOffset` absent, `origin` the default (cowatch, not written).
  static let bob = Participant(
    id: "p2", name: "bob", isJoined: true, readiness: .stalled, suspensions: [.interrupted],
    autoAdvance: false, isConnected: false)
  static let bobJSON =
    #"{"autoAdvance":false,"id":"p2","isConnected":false,"isJoined":true,"name":"bob","readiness":"stalled","roundTrip":0,"startupLatency":0,"suspensions":["interrupted"]}"#

  /// Every optional field present.
  static let played = ChangeEvent(
    sequence: 41, at: GroupInstant(nanoseconds: 3_580_000_000_000), originator: "p1",
    originatorName: "ann",
    kind: .played(at: 10, rate: 1.5, startsAt: GroupInstant(nanoseconds: 3_580_200_000_000)))
  static let playedJSON =
    #"{"at":3580000000000,"kind":{"at":10,"rate":1.5,"startsAt":3580200000000,"type":"played"},"originator":"p1","originatorName":"ann","sequence":41}"#
  /// Made by the group itself: no originator.
  static let waitStarted = ChangeEvent(
    sequence: 42, at: GroupInstant(nanoseconds: 3_590_000_000_000), originator: nil,
    originatorName: nil, kind: .waitStarted(participant: "p2", cause: .stalled))
  static let waitStartedJSON =
    #"{"at":3590000000000,"kind":{"cause":{"type":"stalled"},"participant":"p2","type":"waitStarted"},"sequence":42}"#

  /// Every optional field present.
  static let session = WatchSession(
    id: 3, series: series, item: item1, timeline: timeline, intendedRate: 1, waits: [wait],
    excused: ["p3"], reachedEnd: false, playbackRate: 1.5, catchingUp: ["p4"],
    lastPlaybackChange: played, startedBy: "ann", invited: ["p5"],
    readyCheck: ReadyCheck(
      askedBy: "p1", askedByName: "ann", since: GroupInstant(nanoseconds: 3_600_000_000_000),
      deadline: GroupInstant(nanoseconds: 3_720_000_000_000)),
    countdown: GroupInstant(nanoseconds: 3_603_000_000_000))
  static let sessionJSON =
    #"{"catchingUp":["p4"],"countdown":3603000000000,"excused":["p3"],"id":3,"intendedRate":1,"invited":["p5"],"item":\#(item1JSON),"lastPlaybackChange":\#(playedJSON),"playbackRate":1.5,"reachedEnd":false,"readyCheck":{"askedBy":"p1","askedByName":"ann","deadline":3720000000000,"since":3600000000000},"series":\#(seriesJSON),"startedBy":"ann","timeline":\#(timelineJSON),"waits":[\#(waitJSON)]}"#

  /// Every optional field present.
  static let state = GroupState(
    sequence: 42, participants: [ann, bob], session: session, lastChange: waitStarted,
    sessionCounter: 3,
    control: RoomControl(
      owner: "p1", locked: true, playback: .owner, startWhenAllReady: true, kept: true))
  static let stateJSON =
    #"{"control":{"kept":true,"locked":true,"owner":"p1","playback":"owner","startWhenAllReady":true},"lastChange":\#(waitStartedJSON),"participants":[\#(annJSON),\#(bobJSON)],"sequence":42,"session":\#(sessionJSON),"sessionCounter":3}"#
  static let queueEntry = QueueEntry(
    id: 3, series: series, item: "harbour/s1e2", addedBy: "p2", addedByName: "bob")
  static let queueEntryJSON =
    #"{"addedBy":"p2","addedByName":"bob","id":3,"item":"harbour/s1e2","series":\#(seriesJSON)}"#
  /// The same room with a queue: every field there is.
  static let queuedState = GroupState(
    sequence: 42, participants: [ann, bob], session: session, lastChange: waitStarted,
    sessionCounter: 3,
    control: RoomControl(
      owner: "p1", locked: true, playback: .owner, startWhenAllReady: true, kept: true),
    queue: [queueEntry], queueCounter: 3)
  static let queuedStateJSON =
    #"{"control":{"kept":true,"locked":true,"owner":"p1","playback":"owner","startWhenAllReady":true},"lastChange":\#(waitStartedJSON),"participants":[\#(annJSON),\#(bobJSON)],"queue":[\#(queueEntryJSON)],"queueCounter":3,"sequence":42,"session":\#(sessionJSON),"sessionCounter":3}"#
  /// A fresh room: no session, no last change.
  static let emptyState = GroupState()
  static let emptyStateJSON =
    #"{"control":{"locked":false,"playback":"everyone"},"participants":[],"sequence":0,"sessionCounter":0}"#

  static let configuration = EngineConfiguration()
  static let configurationJSON =
    #"{"allowedRates":{"max":4,"min":0.25},"answerTimeout":30,"endTolerance":3,"firstLoadTimeout":60,"maximumStartDelay":3,"minimumStartDelay":0.1,"readyCheckTimeout":120,"readyCountdown":3,"rebufferTimeout":10,"roundTripFactor":2,"suspensionWaitTimeout":10,"waitingReasons":["stallRecovery"]}"#
  /// Several waiting reasons: a `Set` in Swift, always written sorted.
  static let strictConfiguration = EngineConfiguration(
    waitingReasons: [.stallRecovery, .interrupted, .changingTime, "phone call"],
    allowedRates: 0.5...2)
  static let strictConfigurationJSON =
    #"{"allowedRates":{"max":2,"min":0.5},"answerTimeout":30,"endTolerance":3,"firstLoadTimeout":60,"maximumStartDelay":3,"minimumStartDelay":0.1,"readyCheckTimeout":120,"readyCountdown":3,"rebufferTimeout":10,"roundTripFactor":2,"suspensionWaitTimeout":10,"waitingReasons":["changingTime","interrupted","phone call","stallRecovery"]}"#

  static let token = ResumeToken(participant: "p1")
  static let tokenJSON = #"{"participant":"p1"}"#

  static let welcome = Welcome(
    participant: "p1", room: "lobby", resume: token, configuration: configuration, state: state,
    resumed: false, relayEpoch: "e7",
    relays: [RelayEndpoint(address: "relay2.example:7700", fingerprint: "SHA256:abc")],
    keepsRooms: true)
  static let welcomeJSON =
    #"{"configuration":\#(configurationJSON),"keepsRooms":true,"participant":"p1","relayEpoch":"e7","relays":[{"address":"relay2.example:7700","fingerprint":"SHA256:abc"}],"resume":\#(tokenJSON),"resumed":false,"room":"lobby","state":\#(stateJSON)}"#

  static let pauseStep = SequencedStep(
    before: 7, after: 8, at: GroupInstant(nanoseconds: 3_600_000_000_000),
    input: .command(.pause(item: "harbour/s1e1", at: 754.25), from: "p2"))
  static let pauseStepJSON =
    #"{"after":8,"at":3600000000000,"before":7,"input":{"command":{"at":754.25,"item":"harbour/s1e1","type":"pause"},"from":"p2","type":"command"}}"#
  static let tickStep = SequencedStep(
    before: 8, after: 10, at: GroupInstant(nanoseconds: 3_610_000_000_000), input: .tick)
  static let tickStepJSON = #"{"after":10,"at":3610000000000,"before":8,"input":{"type":"tick"}}"#
}

/// The JSON ``WireCodec`` writes for a value, without the line's `\n`.
func wireJSON<Value: Encodable>(_ value: Value) -> String {
  String(decoding: WireCodec().encode(value).dropLast(), as: UTF8.self)
}

/// A value read back through ``WireCodec``.
func fromWire<Value: Decodable>(_ type: Value.Type, _ json: String) throws -> Value {
  try WireCodec().decode(Value.self, Array(json.utf8))
}

/// Lets the struct table hold values of different types and still encode them.
struct AnyEncodable: Encodable {
  let value: any Encodable
  init(_ value: any Encodable) { self.value = value }
  func encode(to encoder: any Encoder) throws { try value.encode(to: encoder) }
}
