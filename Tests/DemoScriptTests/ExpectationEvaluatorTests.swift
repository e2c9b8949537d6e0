import DemoScript
import PlaybackCoordination
import Testing

private let series = SeriesInfo(
  id: "harbour", title: "Harbour",
  items: [ItemInfo(id: "harbour/s1e1", title: "One", duration: 150)])

/// A group playing harbour/s1e1 with ann and bob joined; bob suspended if asked.
private func group(status rate: Double = 1, bobSuspended: Bool = false, waitingForBob: Bool = false)
  -> GroupState
{
  var bob = Participant(id: "p2", name: "bob", isJoined: true)
  if bobSuspended { bob.suspensions = [.interrupted] }
  var session = WatchSession(
    id: 1, series: series, item: series.items[0],
    timeline: Timeline(itemTime: 10, groupTime: .init(nanoseconds: 0), rate: rate),
    intendedRate: waitingForBob ? 1 : rate)
  if waitingForBob {
    session.waits = [
      GroupWait(
        participant: "p2", cause: .stalled, since: .init(nanoseconds: 0),
        deadline: .init(nanoseconds: 1))
    ]
  }
  return GroupState(
    participants: [Participant(id: "p1", name: "ann", isJoined: true, autoAdvance: true), bob],
    session: session)
}

private func view(
  _ name: String, _ state: GroupState, position: Double? = 10, notices: [String] = []
) -> ParticipantObservation {
  ParticipantObservation(
    name: name, group: state, me: name == "ann" ? "p1" : "p2", playerItem: "harbour/s1e1",
    playerPosition: position, notices: notices)
}

@Suite("expect checks")
struct ExpectationEvaluatorTests {
  @Test("a check run late (a loaded machine) expects a playing group further on, a paused one not")
  func lateness() {
    let expect = Expectation(who: .all, checks: [.position(5, tolerance: 0.5)])
    #expect(
      !ExpectationEvaluator.mismatches(expect, in: [view("ann", group(), position: 15.2)]).isEmpty)
    #expect(
      ExpectationEvaluator.mismatches(
        expect, in: [view("ann", group(), position: 15.2)], lateness: 10
      ).isEmpty, "10 s late at 1×: 15 expected")
    #expect(
      !ExpectationEvaluator.mismatches(
        expect, in: [view("ann", group(status: 0), position: 15.2)], lateness: 10
      ).isEmpty, "paused: where it was")
  }

  @Test("a participant's state word: the group's status, or suspended, or none")
  func stateWords() {
    #expect(view("ann", group()).state == .playing)
    #expect(view("ann", group(status: 0)).state == .paused)
    #expect(view("ann", group(waitingForBob: true)).state == .waiting)
    #expect(view("bob", group(bobSuspended: true)).state == .suspended)
    #expect(
      view("ann", GroupState(participants: [Participant(id: "p1", name: "ann")])).state == .none)
  }

  @Test("mismatches name the participant, what was seen and what was expected")
  func mismatches() {
    let state = group(waitingForBob: true)
    let expectation = Expectation(
      who: .all,
      checks: [
        .state(.paused), .waitingFor(["bob"]), .position(12, tolerance: 0.5), .notice("bob paused"),
        .autoAdvance(true), .item("harbour/s1e1"),
      ])
    let problems = ExpectationEvaluator.mismatches(
      expectation,
      in: [view("ann", state, notices: ["Bob paused at 0:10"]), view("bob", state, position: 11.8)])
    #expect(
      problems == [
        "ann: state is waiting, expected paused",
        "bob: state is waiting, expected paused",
        "ann: position is 0:10, expected 0:12±0.5",
        "bob: no notice containing \"bob paused\" (last: none)",
        "bob: auto-advance is off, expected on",
      ])
  }

  @Test("together compares the players with one another")
  func together() {
    let state = group()
    let close = [view("ann", state, position: 10), view("bob", state, position: 10.1)]
    #expect(
      ExpectationEvaluator.mismatches(
        Expectation(who: .all, checks: [.together(tolerance: 0.2)]), in: close) == [])
    let apart = [view("ann", state, position: 10), view("bob", state, position: 11)]
    #expect(
      ExpectationEvaluator.mismatches(
        Expectation(who: .all, checks: [.together(tolerance: 0.2)]), in: apart) == [
          "players are 1 s apart (ann 0:10, bob 0:11), more than ±0.2"
        ])
  }
}
