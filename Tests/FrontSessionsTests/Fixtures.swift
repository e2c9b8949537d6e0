import FrontSessions
import Media
import ParticipantRuntime
import Participation
import PlaybackCoordination
import TerminalFront

/// A room with ann (this terminal) and bob; Harbour Lights to watch.
enum Fixtures {
  static let ann: ParticipantID = "p1"
  static let bob: ParticipantID = "p2"
  static let carol: ParticipantID = "p3"

  static let series = SeriesInfo(
    id: "harbour", title: "Harbour Lights",
    items: [
      ItemInfo(id: "harbour/s1e1", title: "Arrival", duration: 2520),
      ItemInfo(id: "harbour/s1e2", title: "The Lighthouse Keeper", duration: 2470),
      ItemInfo(id: "harbour/s1e3", title: "The Storm", duration: 2610),
    ])

  static let now = GroupInstant(seconds: 1000)
  static let local = LocalInstant(seconds: 500)

  static func people(joined: Bool) -> [Participant] {
    [
      Participant(id: ann, name: "ann", isJoined: joined),
      Participant(id: bob, name: "bob", isJoined: joined),
    ]
  }

  /// Nobody watching yet.
  static func lobby(sequence: UInt64 = 2) -> GroupState {
    GroupState(sequence: sequence, participants: people(joined: false))
  }

  /// ann and bob watch S1E2, playing from 2:40 (160 s) at the current instant.
  static func playing(sequence: UInt64 = 10, position: Double = 160, rate: Double = 1)
    -> GroupState
  {
    GroupState(
      sequence: sequence, participants: people(joined: true),
      session: WatchSession(
        id: 1, series: series, item: series.items[1],
        timeline: Timeline(itemTime: position, groupTime: now, rate: rate), intendedRate: rate,
        playbackRate: rate == 0 ? 1 : rate))
  }

  static func change(_ sequence: UInt64, by who: ParticipantID? = bob, _ kind: ChangeKind)
    -> ChangeEvent
  {
    let name: String? =
      switch who {
      case ann: "ann"
      case bob: "bob"
      case carol: "carol"
      default: nil
      }
    return ChangeEvent(
      sequence: sequence, at: now, originator: who, originatorName: name, kind: kind)
  }

  /// The local player showing `item` at `position`.
  static func player(
    _ item: ItemID? = "harbour/s1e2", at position: Double = 160, state: PlayerState = .playing,
    busy: Bool = false
  ) -> Media.PlayerSnapshot {
    Media.PlayerSnapshot(
      item: item, title: item.flatMap { series.item($0)?.title },
      duration: item.flatMap { series.item($0)?.duration }, position: position,
      rate: state == .playing ? 1 : 0, state: item == nil ? .idle : state, isBusy: busy,
      subtitle: nil, frame: "", problem: nil)
  }

  static func moment(
    at now: GroupInstant = now, player: Media.PlayerSnapshot = player(nil)
  ) -> FrontMoment {
    FrontMoment(groupTime: now, localTime: local, player: player)
  }
}
