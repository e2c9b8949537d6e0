import PlaybackCoordination
import Testing

@testable import Participation

@Suite("Player following: what the player shows becomes requests")
struct PlayerFollowingTests {
  let at = Fixture.at
  let room = Fixture.playingRoom().state
  let clock = ClockOffsetEstimate(offset: 0, roundTrip: 0.01, uncertainty: 0.005)

  func following(hasPlayer: Bool = true) -> PlayerFollowing {
    var following = PlayerFollowing(
      configuration: ParticipantConfiguration(name: "ann"), hasPlayer: hasPlayer)
    following.welcomed(as: Fixture.ann, at: at(0))
    _ = following.adopt(room, as: Fixture.ann, clock: clock, at: at(0))
    return following
  }

  /// The requests among `actions`.
  func requests(_ actions: [PlayerFollowing.Action]) -> [GroupCommand] {
    actions.compactMap { if case .request(let command, _) = $0 { command } else { nil } }
  }

  func notices(_ actions: [PlayerFollowing.Action]) -> [String] {
    actions.compactMap { if case .notice(let notice) = $0 { notice.description } else { nil } }
  }

  func seen(position: Double, stalled: Bool = false, problem: String? = nil, length: Double? = nil)
    -> PlayerObservation
  {
    PlayerObservation(
      item: Fixture.episode, position: position, rate: 1, isStalled: stalled, problem: problem,
      fileDuration: length)
  }

  @Test("a stall suspends this participant, and its end resumes it, once each")
  func stalls() {
    var following = following()
    let stalled = following.tick(
      seen: seen(position: 5, stalled: true), state: room, as: Fixture.ann, clock: clock,
      at: at(5))
    #expect(requests(stalled) == [.beginSuspension(.stallRecovery)])
    let again = following.tick(
      seen: seen(position: 5, stalled: true), state: room, as: Fixture.ann, clock: clock,
      at: at(5.1))
    #expect(requests(again).isEmpty)
    var suspended = Fixture.playingRoom()
    _ = suspended.apply(.beginSuspension(.stallRecovery), from: Fixture.ann, at: Fixture.g(5))
    let recovered = following.tick(
      seen: seen(position: 5), state: suspended.state, as: Fixture.ann, clock: clock,
      at: at(5.2))
    #expect(requests(recovered).contains(.endSuspension(.stallRecovery, proposing: nil)))
  }

  @Test("reaching the end while the group plays asks to advance, once")
  func advance() {
    var following = following()
    let end = room.session!.item.duration
    let first = following.tick(
      seen: seen(position: end), state: room, as: Fixture.ann, clock: clock, at: at(9))
    #expect(requests(first) == [.advance(endedItem: Fixture.episode)])
    let second = following.tick(
      seen: seen(position: end), state: room, as: Fixture.ann, clock: clock, at: at(9.1))
    #expect(requests(second).isEmpty)
  }

  @Test("a file of another length is told once; a missing file steps away with its title")
  func fileProblems() {
    var following = following()
    let long = following.tick(
      seen: seen(position: 3, length: 400), state: room, as: Fixture.ann, clock: clock, at: at(3))
    #expect(notices(long).count == 1)
    #expect(notices(long).first?.contains("may be another cut") == true)
    let again = following.tick(
      seen: seen(position: 3.1, length: 400), state: room, as: Fixture.ann, clock: clock,
      at: at(3.1))
    #expect(notices(again).isEmpty)
    let missing = following.tick(
      seen: seen(position: 0, problem: PlayerObservation.noFile(for: Fixture.episode)),
      state: room, as: Fixture.ann, clock: clock, at: at(3.2))
    #expect(notices(missing).first?.hasPrefix("you don't have Harbour · Arrival") == true)
    #expect(requests(missing) == [.beginSuspension(.playerUnavailable)])
  }

  @Test("checks slow down while the group is paused, and nothing is checked before they are due")
  func pace() {
    var following = following()
    #expect(following.correctionInterval(in: room) == 0.05)
    var paused = Fixture.playingRoom()
    _ = paused.apply(.pause(item: Fixture.episode, at: 2), from: Fixture.bob, at: Fixture.g(2))
    #expect(following.correctionInterval(in: paused.state) == 0.25)
    _ = following.tick(
      seen: seen(position: 2), state: paused.state, as: Fixture.ann, clock: clock, at: at(2))
    #expect(following.nextCorrection == at(2.25))
    let early = following.tick(
      seen: seen(position: 300), state: room, as: Fixture.ann, clock: clock, at: at(2.1))
    #expect(early.isEmpty, "not due yet")
  }

  @Test("without a player, a participant in a session asks to be ready, once")
  func noPlayerIsReady() {
    var engine = Fixture.playingRoom()
    _ = engine.apply(.setReadiness(.loading), from: Fixture.ann, at: Fixture.g(5))
    var following = PlayerFollowing(
      configuration: ParticipantConfiguration(name: "ann"), hasPlayer: false)
    following.welcomed(as: Fixture.ann, at: at(0))
    let first = following.adopt(engine.state, as: Fixture.ann, clock: clock, at: at(5))
    #expect(requests(first) == [.setReadiness(.ready)])
    let second = following.adopt(engine.state, as: Fixture.ann, clock: clock, at: at(5.1))
    #expect(requests(second).isEmpty, "asked already")
    following.readinessRefused()
    let third = following.adopt(engine.state, as: Fixture.ann, clock: clock, at: at(5.2))
    #expect(requests(third) == [.setReadiness(.ready)])
  }
}
