import PlaybackCoordination
import Testing

let s1e1: ItemID = "harbour/s1e1"
let s1e2: ItemID = "harbour/s1e2"
let s1e3: ItemID = "harbour/s1e3"

/// Three episodes of 600 s, 900 s and 300 s.
let harbour = SeriesInfo(
  id: "harbour", title: "Harbour",
  items: [
    ItemInfo(id: s1e1, title: "Arrival", duration: 600),
    ItemInfo(id: s1e2, title: "Tides", duration: 900),
    ItemInfo(id: s1e3, title: "Departure", duration: 300),
  ])

let alice: ParticipantID = "alice"
let bob: ParticipantID = "bob"
let carol: ParticipantID = "carol"

func g(_ seconds: Double) -> GroupInstant { GroupInstant(seconds: seconds) }

func isClose(_ a: Double, _ b: Double, within tolerance: Double = 1e-6) -> Bool {
  abs(a - b) <= tolerance
}

extension Array where Element == ChangeEvent {
  var kinds: [ChangeKind] { map(\.kind) }
}

/// One engine driven with times in seconds, with checks that accepted commands are
/// accepted and that rejected ones change nothing.
struct Harness {
  var engine: GroupEngine

  init(_ configuration: EngineConfiguration = .init()) {
    engine = GroupEngine(configuration: configuration)
  }

  var state: GroupState { engine.state }
  var session: WatchSession { engine.state.session! }
  func participant(_ id: ParticipantID) -> Participant { engine.state.participant(id)! }
  func position(at t: Double) -> Double { session.position(at: g(t)) }

  @discardableResult
  mutating func ok(
    _ command: GroupCommand, _ participant: ParticipantID, at t: Double,
    sourceLocation: SourceLocation = #_sourceLocation
  ) -> [ChangeEvent] {
    switch engine.apply(command, from: participant, at: g(t)) {
    case .success(let events): return events
    case .failure(let rejection):
      Issue.record(
        "\(command) from \(participant) rejected: \(rejection)", sourceLocation: sourceLocation)
      return []
    }
  }

  /// Applies a command that must be rejected, and checks that the whole state is unchanged.
  @discardableResult
  mutating func rejected(
    _ command: GroupCommand, _ participant: ParticipantID, at t: Double,
    sourceLocation: SourceLocation = #_sourceLocation
  ) -> Rejection? {
    let before = engine.state
    let result = engine.apply(command, from: participant, at: g(t))
    #expect(engine.state == before, "a rejection changed the state", sourceLocation: sourceLocation)
    switch result {
    case .success(let events):
      Issue.record("\(command) accepted: \(events.kinds)", sourceLocation: sourceLocation)
      return nil
    case .failure(let rejection): return rejection
    }
  }

  @discardableResult
  mutating func tick(at t: Double) -> [ChangeEvent] { engine.tick(at: g(t)) }

  /// Everyone the session still waits an answer from says "not now" at `t`.
  mutating func declineAll(at t: Double, sourceLocation: SourceLocation = #_sourceLocation) {
    for id in session.invited { ok(.decline, id, at: t, sourceLocation: sourceLocation) }
  }

  /// alice, bob and carol in the room at t = 0.
  static func room(_ configuration: EngineConfiguration = .init()) -> Harness {
    var h = Harness(configuration)
    for id in [alice, bob, carol] { h.ok(.enter(name: id.rawValue), id, at: 0) }
    return h
  }

  /// alice starts s1e1 at t = 1; bob and carol say "not now" at 1.5, and alice is ready
  /// at t = 2, so the group plays from 0 at 2.1 (minimum start delay); bob then joins late
  /// at 3 and is ready at 4; carol stays in the room only. Position at t is t − 2.1.
  static func playing(_ configuration: EngineConfiguration = .init()) -> Harness {
    var h = room(configuration)
    h.ok(.start(series: harbour, item: s1e1), alice, at: 1)
    h.declineAll(at: 1.5)
    h.ok(.setReadiness(.ready), alice, at: 2)
    h.ok(.join, bob, at: 3)
    h.ok(.setReadiness(.ready), bob, at: 4)
    return h
  }
}
