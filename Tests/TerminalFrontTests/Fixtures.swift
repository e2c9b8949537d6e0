import PlaybackCoordination
import TerminalFront

/// A room with alice (this terminal), bob and carol watching Harbour Lights S1E2.
enum Fixtures {
  static let alice: ParticipantID = "p1"
  static let bob: ParticipantID = "p2"
  static let carol: ParticipantID = "p3"

  static let series = SeriesInfo(
    id: "harbour", title: "Harbour Lights",
    items: [
      ItemInfo(id: "harbour/s1e1", title: "Arrival", duration: 2520),
      ItemInfo(id: "harbour/s1e2", title: "The Lighthouse Keeper", duration: 2470),
      ItemInfo(id: "harbour/s1e3", title: "The Storm", duration: 2610),
      ItemInfo(id: "harbour/s1e4", title: "Low Tide", duration: 2400),
    ])

  static let testCard = SeriesInfo(
    id: "testcard", title: "Test Card",
    items: [ItemInfo(id: "testcard/bars", title: "Colour bars", duration: 600)])

  /// Two entries in the room's queue: bob's S1E3, then carol's colour bars.
  static let queue = [
    QueueEntry(id: 4, series: series, item: "harbour/s1e3", addedBy: bob, addedByName: "bob"),
    QueueEntry(
      id: 7, series: testCard, item: "testcard/bars", addedBy: carol, addedByName: "carol"),
  ]

  static let now = GroupInstant(seconds: 1000)

  static func participants(joined: Bool = true) -> [Participant] {
    [
      Participant(
        id: alice, name: "alice", isJoined: joined, autoAdvance: true, playerOffset: 0.003),
      Participant(id: bob, name: "bob", isJoined: true, playerOffset: 0.012),
      Participant(id: carol, name: "carol", isJoined: true, playerOffset: -0.034),
    ]
  }

  static func session(position: Double = 754, rate: Double = 1, intended: Double? = nil)
    -> WatchSession
  {
    WatchSession(
      id: 1, series: series, item: series.items[1],
      timeline: Timeline(itemTime: position, groupTime: now, rate: rate),
      intendedRate: intended ?? rate)
  }

  static func pattern(_ position: Double) -> String {
    let label = " HARBOUR S1E2 · \(TimeFormat.clock(position)) "
    return String(repeating: "█", count: 24) + label + String(repeating: "█", count: 80)
  }

  /// Playing at 12:34, with a few notices (one fading, one chat with an emoji).
  static func playing() -> FrontModel {
    var model = FrontModel(
      roomName: "lobby", localParticipant: alice,
      group: GroupState(sequence: 10, participants: participants(), session: session()),
      player: PlayerView(
        item: "harbour/s1e2", itemTitle: "The Lighthouse Keeper", seriesTitle: "Harbour Lights",
        position: 754,
        duration: 2470, rate: 1, activity: .playing, subtitle: "Did you see the light last night?",
        testPattern: pattern(754)),
      now: now, connection: .connected, membership: .joined, catalog: [series, testCard])
    model.notices = [
      NoticeLine("carol: popcorn ready 🍿", at: now.advanced(bySeconds: -2), kind: .chat),
      NoticeLine("carol joined", at: now.advanced(bySeconds: -3), kind: .event),
      NoticeLine("bob played from 12:00", at: now.advanced(bySeconds: -14), kind: .event),
      NoticeLine("an old notice that has gone", at: now.advanced(bySeconds: -300), kind: .event),
    ]
    return model
  }

  static func pausedByBob() -> FrontModel {
    var model = playing()
    model.group.session = session(rate: 0)
    model.player.rate = 0
    model.player.activity = .paused
    model.apply(
      ChangeEvent(
        sequence: 11, at: now, originator: bob, originatorName: "bob", kind: .paused(at: 754)))
    return model
  }

  static func waiting() -> FrontModel {
    var model = playing()
    var s = session(rate: 0, intended: 1)
    s.waits = [
      GroupWait(
        participant: bob, cause: .loading, since: now, deadline: now.advanced(bySeconds: 52)),
      GroupWait(
        participant: carol, cause: .stalled, since: now, deadline: now.advanced(bySeconds: 7.2)),
    ]
    model.group.session = s
    model.group.participants[1].readiness = .loading
    model.group.participants[2].readiness = .stalled
    model.player.rate = 0
    return model
  }

  static func suspended() -> FrontModel {
    var model = playing()
    model.group.participants[0].suspensions = [.interrupted]
    model.player.rate = 0
    model.player.activity = .paused
    return model
  }

  static func reconnecting() -> FrontModel {
    var model = playing()
    model.connection = .reconnecting
    model.group.participants[1].isConnected = false
    return model
  }

  static func finished() -> FrontModel {
    var model = playing()
    var s = session(position: 2470, rate: 0)
    s.reachedEnd = true
    model.group.session = s
    model.player.position = 2470
    model.player.activity = .ended
    model.player.subtitle = nil
    return model
  }

  static func noSession() -> FrontModel {
    FrontModel(
      roomName: "lobby", localParticipant: alice,
      group: GroupState(
        sequence: 3,
        participants: participants(joined: false).map {
          var p = $0
          p.isJoined = false
          return p
        }),
      now: now, connection: .connected, membership: .noSession, catalog: [series, testCard])
  }

  /// bob started a session; alice has not joined; the controller offers it.
  static func sessionOffered() -> FrontModel {
    var model = playing()
    model.group.participants[0].isJoined = false
    model.membership = .waiting
    model.player = PlayerView()
    model.apply(
      ChangeEvent(
        sequence: 11, at: now, originator: bob, originatorName: "bob",
        kind: .sessionStarted(item: "harbour/s1e2")))
    var controller = FrontController()
    controller.prepare(&model)
    return model
  }

  /// alice chose "Only me": her player plays S1E1 for her alone; no session in the room.
  static func watchingAlone() -> FrontModel {
    var model = noSession()
    model.watchingAlone = true
    model.invite = "cowatch join 10.0.0.7 --name NAME"
    model.player = PlayerView(
      item: "harbour/s1e1", itemTitle: "The Lamp Goes Out", seriesTitle: "Harbour Lights",
      position: 65, duration: 1500, rate: 1, activity: .playing,
      subtitle: "MARA: The lamp went out again.", testPattern: pattern(65))
    return model
  }

  /// Nothing watched; the host's invite line is shown.
  static func hostWithInvite() -> FrontModel {
    var model = noSession()
    model.invite = "cowatch join 10.0.0.7 --name NAME"
    return model
  }

  static func invalidated() -> FrontModel {
    var model = noSession()
    model.membership = .invalidated(reason: "bob ended it for everyone")
    return model
  }

  /// Playing at 1.5× with a long name, a CJK name and help shown.
  static func helpShown() -> FrontModel {
    var model = playing()
    model.showsHelp = true
    return model
  }

  static func fastAndWide() -> FrontModel {
    var model = playing()
    model.group.session = session(rate: 1.5)
    model.group.participants.append(
      Participant(id: "p4", name: "小明", isJoined: true, playerOffset: 0.21))
    model.group.participants.append(
      Participant(id: "p5", name: "maximilian-the-late", isJoined: false))
    model.player.subtitle = "灯台の光を見ましたか？"
    return model
  }
}
