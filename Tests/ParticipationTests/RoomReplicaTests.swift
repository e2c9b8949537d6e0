import PlaybackCoordination
import Testing

@testable import Participation

@Suite("Room replica: steps, resync and the session phase")
struct RoomReplicaTests {
  let ann = Fixture.ann
  let g = Fixture.g

  /// The relay applies `command` and hands back the step its replicas replay.
  func step(_ relay: inout GroupEngine, _ command: GroupCommand, from: ParticipantID, at: Double)
    -> SequencedStep
  {
    let before = relay.state.sequence
    _ = relay.apply(command, from: from, at: g(at))
    return SequencedStep(
      before: before, after: relay.state.sequence, at: g(at), input: .command(command, from: from))
  }

  @Test("steps replay in order; a missed one asks for the state, and later ones wait for it")
  func missedStep() {
    var relay = Fixture.playingRoom()
    var replica = RoomReplica()
    replica.welcomed(configuration: relay.configuration, state: relay.state)
    let pause = step(&relay, .pause(item: Fixture.episode, at: 5), from: ann, at: 5)
    guard case .applied(let state, let events) = replica.replay(pause) else {
      Issue.record("a step that fits was not applied")
      return
    }
    #expect(state == relay.state)
    #expect(events.count == 1)
    _ = step(&relay, .seek(item: Fixture.episode, to: 20), from: ann, at: 6)
    let play = step(&relay, .play(item: Fixture.episode, rate: nil), from: ann, at: 7)
    guard case .resync = replica.replay(play) else {
      Issue.record("a step after a missed one was applied")
      return
    }
    let later = step(&relay, .pause(item: Fixture.episode, at: 21), from: ann, at: 8)
    guard case .ignored = replica.replay(later) else {
      Issue.record("a step was applied while the whole state was on its way")
      return
    }
    replica.replace(with: relay.state)
    let seek = step(&relay, .seek(item: Fixture.episode, to: 30), from: ann, at: 9)
    guard case .applied(let caughtUp, _) = replica.replay(seek) else {
      Issue.record("steps did not apply again after the whole state")
      return
    }
    #expect(caughtUp == relay.state)
  }

  @Test("joined, then the session ends: invalidated, by whom")
  func phases() {
    var relay = Fixture.playingRoom()
    var replica = RoomReplica()
    let joined = replica.adopt(relay.state, events: [], as: ann, lost: .left)
    #expect(joined == [.joined(sessionID: relay.state.session!.id)])
    #expect(replica.adopt(relay.state, events: [], as: ann, lost: .left).isEmpty)
    let events = (try? relay.apply(.end, from: Fixture.bob, at: g(9)).get()) ?? []
    let ended = replica.adopt(relay.state, events: events, as: ann, lost: .left)
    #expect(ended == [.invalidated(.ended(by: "bob"))])
    #expect(replica.stopped(.relayLost) == nil, "a session that ended is not lost again")
  }

  @Test("a relay that restarted without the session: invalidated for that reason")
  func lostSession() {
    let relay = Fixture.playingRoom()
    var replica = RoomReplica()
    _ = replica.adopt(relay.state, events: [], as: ann, lost: .left)
    let phases = replica.adopt(GroupState(), events: [], as: ann, lost: .relayRestarted)
    #expect(phases == [.invalidated(.relayRestarted)])
  }
}
