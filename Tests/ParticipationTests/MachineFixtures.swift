import PlaybackCoordination

/// Rooms and instants for the tests of the participant core's small machines.
enum Fixture {
  static func at(_ seconds: Double) -> LocalInstant { LocalInstant(seconds: 100 + seconds) }
  static func g(_ seconds: Double) -> GroupInstant { GroupInstant(seconds: 100 + seconds) }

  static let ann: ParticipantID = "p1"
  static let bob: ParticipantID = "p2"
  static let episode: ItemID = "harbour/s1e1"

  /// A relay's engine with ann and bob in a session of Harbour, both joined and ready,
  /// playing from 0 since `g(0)`.
  static func playingRoom() -> GroupEngine {
    var engine = GroupEngine()
    let steps: [(GroupCommand, ParticipantID)] = [
      (.enter(name: "ann"), ann), (.enter(name: "bob"), bob),
      (.start(series: series, item: episode), ann), (.join, bob),
      (.setReadiness(.ready), ann), (.setReadiness(.ready), bob),
      (.play(item: episode, rate: nil), ann),
    ]
    for (command, from) in steps { _ = engine.apply(command, from: from, at: g(0)) }
    for deadline in 1...40 { _ = engine.tick(at: g(Double(deadline) / 10)) }
    return engine
  }
}
