import Narration
import Participation
import PlaybackCoordination
import Testing

@testable import PlayerOSD

/// The on-screen display's words and timing, on virtual time: what someone watching full
/// screen reads of the group, for how long, and what they never read there.
@Suite("the group in the player's on-screen display")
struct OSDFeedTests {
  static let ann: ParticipantID = "p1"
  static let bob: ParticipantID = "p2"
  static let dan: ParticipantID = "p3"
  static let series = SeriesInfo(
    id: "show", title: "Show", items: [ItemInfo(id: "show/e1", title: "Pilot", duration: 1800)])
  static let start = LocalInstant(nanoseconds: 5_000_000_000)

  static func group(waits: [GroupWait] = [], excused: [ParticipantID] = []) -> GroupState {
    GroupState(
      participants: [
        Participant(id: ann, name: "ann", isJoined: true),
        Participant(id: bob, name: "bob", isJoined: true),
        Participant(id: dan, name: "dan", isJoined: true),
      ],
      session: WatchSession(
        id: 1, series: series, item: series.items[0],
        timeline: Timeline(itemTime: 754, groupTime: GroupInstant(seconds: 100), rate: 0),
        intendedRate: 1, waits: waits, excused: excused))
  }

  func change(_ kind: ChangeKind, by who: ParticipantID?, _ sequence: UInt64 = 1) -> ChangeEvent {
    let name = [Self.ann: "ann", Self.bob: "bob", Self.dan: "dan"][who ?? ""]
    return ChangeEvent(
      sequence: sequence, at: GroupInstant(seconds: 100), originator: who, originatorName: name,
      kind: kind)
  }

  /// A feed that knows it is ann's.
  func feed(_ mode: OSDMode = .chat) -> OSDFeed {
    var feed = OSDFeed(mode: mode)
    _ = feed.heard(
      .welcomed(participant: Self.ann, resumed: false, relayEpoch: "e"), at: Self.start)
    return feed
  }

  func at(_ seconds: Double) -> LocalInstant { Self.start.advanced(bySeconds: seconds) }

  @Test("someone's pause is shown with who and where, for a few seconds, then taken down")
  func pauseShownThenGone() {
    var feed = feed()
    let shown = feed.heard(
      .state(Self.group(), events: [change(.paused(at: 754), by: Self.bob)]), at: at(0))
    #expect(shown == .show("bob paused at 12:34", seconds: 4))
    #expect(feed.nextExpiry == at(4))
    #expect(feed.tick(at: at(3.9)) == nil)
    #expect(feed.tick(at: at(4)) == .clear)
    #expect(feed.text == nil)
    #expect(feed.tick(at: at(5)) == nil, "taken down once")
  }

  @Test("a key pressed in my own player says that everyone followed")
  func ownChangesReachEveryone() {
    var feed = feed()
    #expect(
      feed.heard(.state(Self.group(), events: [change(.paused(at: 754), by: Self.ann)]), at: at(0))
        == .show("you paused for everyone at 12:34", seconds: 4))
    var other = self.feed()
    _ = other.heard(
      .state(
        Self.group(),
        events: [
          change(.played(at: 60, rate: 1, startsAt: GroupInstant(seconds: 100)), by: Self.ann)
        ]
      ), at: at(0))
    #expect(other.text == "you played for everyone from 1:00")
    _ = other.heard(
      .state(Self.group(), events: [change(.seeked(to: 90), by: Self.ann, 2)]), at: at(1))
    _ = other.heard(
      .state(Self.group(), events: [change(.rateChanged(rate: 1.5), by: Self.ann, 3)]), at: at(2))
    #expect(
      other.text
        == "you played for everyone from 1:00\nyou moved everyone to 1:30\nyou set the speed to 1.5× for everyone"
    )
  }

  @Test("chat is shown with --osd chat, not with --osd changes; --osd none shows nothing")
  func modes() {
    let chat = ClientEvent.message(from: Self.bob, name: "bob", kind: .chat, body: "brb")
    let pause = ClientEvent.state(Self.group(), events: [change(.paused(at: 754), by: Self.bob)])
    var all = feed(.chat)
    #expect(all.heard(chat, at: at(0)) == .show("bob: brb", seconds: 7))
    var changes = feed(.changes)
    #expect(changes.heard(chat, at: at(0)) == nil)
    #expect(changes.heard(pause, at: at(0)) == .show("bob paused at 12:34", seconds: 4))
    var none = feed(.none)
    #expect(none.heard(chat, at: at(0)) == nil)
    #expect(none.heard(pause, at: at(0)) == nil)
    #expect(none.saw(Self.group(), groupTime: GroupInstant(seconds: 100), at: at(0)) == nil)
    // My own chat I typed myself; other payloads are not chat.
    #expect(
      all.heard(.message(from: Self.ann, name: "ann", kind: .chat, body: "hi"), at: at(1)) == nil)
    #expect(
      all.heard(.message(from: Self.bob, name: "bob", kind: "cursor", body: "x"), at: at(1)) == nil)
    // A line for some people only says so.
    _ = all.heard(
      .message(from: Self.bob, name: "bob", kind: .chat, body: "psst", to: [Self.ann]), at: at(2))
    #expect(all.text == "bob: brb\nbob → you: psst")
  }

  @Test(
    "a reaction is shown with who, what and the film time; what was said before I came is never flashed"
  )
  func reactionsAndEarlier() {
    var osd = feed(.chat)
    let reaction = Reaction(text: "😂", at: 754.2)
    #expect(
      osd.heard(.reaction(from: Self.bob, name: "bob", reaction), at: at(0))
        == .show("bob reacted 😂 at 12:34", seconds: 7))
    var fresh = feed(.chat)
    #expect(
      fresh.heard(.reaction(from: Self.bob, name: "bob", reaction, earlier: true), at: at(0))
        == nil)
    #expect(
      fresh.heard(
        .message(from: Self.bob, name: "bob", kind: .chat, body: "old", earlier: true), at: at(0))
        == nil)
    // My own reaction I made myself; --osd changes leaves reactions out as it does chat.
    #expect(fresh.heard(.reaction(from: Self.ann, name: "ann", reaction), at: at(1)) == nil)
    var changes = feed(.changes)
    #expect(changes.heard(.reaction(from: Self.bob, name: "bob", reaction), at: at(0)) == nil)
  }

  @Test("someone else's text cannot break the display: control characters go, long lines are cut")
  func untrustedText() {
    var feed = feed()
    _ = feed.heard(
      .message(from: Self.bob, name: "bob", kind: .chat, body: "a\nb\u{1B}[2Jc${pause}"), at: at(0))
    #expect(feed.text == "bob: a b [2Jc${pause}")
    _ = feed.heard(
      .message(from: Self.bob, name: "bob", kind: .chat, body: String(repeating: "x", count: 500)),
      at: at(1))
    let last = feed.text!.split(separator: "\n").last!
    #expect(last.count == 90 && last.hasSuffix("…"))
  }

  @Test("a ready check shows whom it waits for; its countdown counts down in the picture")
  func readyCheck() {
    var feed = feed()
    var asked = Self.group()
    asked.session?.intendedRate = 0
    asked.session?.readyCheck = ReadyCheck(
      askedBy: Self.bob, askedByName: "bob", since: GroupInstant(seconds: 100),
      deadline: GroupInstant(seconds: 220))
    asked.participants[1].readyToWatch = true
    #expect(
      feed.saw(asked, groupTime: GroupInstant(seconds: 100.2), at: at(0))
        == .show("ready? waiting for you, dan (2:00)", seconds: 1.5))
    var counting = Self.group()
    let startsAt = GroupInstant(seconds: 203)
    counting.session?.timeline = Timeline(itemTime: 754, groupTime: startsAt, rate: 1)
    counting.session?.countdown = startsAt
    #expect(
      feed.saw(counting, groupTime: GroupInstant(seconds: 200.5), at: at(1))
        == .show("▶ starting in 3…", seconds: 1.5))
    #expect(
      feed.saw(counting, groupTime: GroupInstant(seconds: 201.5), at: at(2))
        == .show("▶ starting in 2…", seconds: 1.5))
    #expect(feed.saw(counting, groupTime: GroupInstant(seconds: 203), at: at(3.5)) == .clear)
  }

  @Test("a wait shows after a second with the seconds left counting down, and goes when it ends")
  func waits() {
    var feed = feed()
    let since = GroupInstant(seconds: 100)
    let waiting = Self.group(waits: [
      GroupWait(
        participant: Self.dan, cause: .stalled, since: since, deadline: GroupInstant(seconds: 108))
    ])
    // Every start waits a moment for the players: not shown.
    #expect(feed.saw(waiting, groupTime: GroupInstant(seconds: 100.5), at: at(0)) == nil)
    #expect(
      feed.saw(waiting, groupTime: GroupInstant(seconds: 101.2), at: at(0.7))
        == .show("waiting for dan: buffering, 7 s left", seconds: 1.5))
    // The same words half a second later need nothing new yet…
    #expect(feed.saw(waiting, groupTime: GroupInstant(seconds: 101.7), at: at(1.2)) == nil)
    // …and are shown again before they would drop out.
    #expect(
      feed.saw(waiting, groupTime: GroupInstant(seconds: 101.9), at: at(1.4))
        == .show("waiting for dan: buffering, 7 s left", seconds: 1.5))
    #expect(
      feed.saw(waiting, groupTime: GroupInstant(seconds: 102.1), at: at(1.6))
        == .show("waiting for dan: buffering, 6 s left", seconds: 1.5))
    // A change arrives meanwhile: under the wait.
    _ = feed.heard(.state(waiting, events: [change(.paused(at: 754), by: Self.bob)]), at: at(1.7))
    #expect(feed.text == "waiting for dan: buffering, 6 s left\nbob paused at 12:34")
    // The wait ends: the change stays until its time is up.
    #expect(
      feed.saw(Self.group(), groupTime: GroupInstant(seconds: 103), at: at(2.5))
        == .show("bob paused at 12:34", seconds: 3.2))
    // My own wait is mine.
    var mine = self.feed()
    let stepped = Self.group(waits: [
      GroupWait(
        participant: Self.ann, cause: .suspended(.interrupted), since: since,
        deadline: GroupInstant(seconds: 130))
    ])
    _ = mine.saw(stepped, groupTime: GroupInstant(seconds: 102), at: at(0))
    #expect(mine.text?.hasPrefix("waiting for you: ") == true, "\(mine.text ?? "nothing")")
  }

  @Test("the start of a wait, readiness and 'everyone is ready' are left to the wait line")
  func quietChanges() {
    var feed = feed()
    let events = [
      change(.readinessChanged(.loading), by: Self.bob, 1),
      change(.waitStarted(participant: Self.bob, cause: .loading), by: nil, 2),
      change(.waitEnded(at: 754, startsAt: GroupInstant(seconds: 101)), by: nil, 3),
      change(.reported, by: Self.bob, 4),
    ]
    #expect(feed.heard(.state(Self.group(), events: events), at: at(0)) == nil)
    // Going on without someone is news.
    _ = feed.heard(
      .state(
        Self.group(excused: [Self.dan]),
        events: [change(.waitEnded(at: 754, startsAt: GroupInstant(seconds: 101)), by: nil, 5)]),
      at: at(1))
    #expect(feed.text == "playing from 12:34 without dan")
  }

  @Test("at most four lines at once, newest last; arrivals and refusals are shown")
  func manyLines() {
    var feed = feed()
    for (n, who) in [Self.bob, Self.dan, Self.bob, Self.dan, Self.bob].enumerated() {
      _ = feed.heard(
        .state(Self.group(), events: [change(.entered, by: who, UInt64(n + 1))]), at: at(Double(n)))
    }
    #expect(feed.text?.split(separator: "\n").count == 4)
    #expect(feed.text?.hasSuffix("bob entered the room") == true)
    _ = feed.heard(
      .rejected(
        .pause(item: "show/e1", at: 3), .ownerControlsPlayback(owner: "dan"), awaited: false),
      at: at(5))
    #expect(
      feed.text?.split(separator: "\n").last?.hasPrefix("not done: ") == true, "\(feed.text ?? "")")
  }
}
