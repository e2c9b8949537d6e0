import PlaybackCoordination
import Testing

@Suite("Group engine: the room's owner, lock and playback control")
struct GroupEngineOwnershipTests {
  @Test("the first to enter owns the room; the others do not")
  func firstEntrantOwns() {
    let h = Harness.room()
    #expect(h.state.control == RoomControl(owner: alice, locked: false, playback: .everyone))
    #expect(h.state.owner?.name == "alice")
  }

  @Test("only the owner may lock, choose who controls, hand over or remove")
  func ownerOnly() {
    var h = Harness.room()
    let notOwner = Rejection.notOwner(owner: "alice")
    #expect(h.rejected(.setLocked(true), bob, at: 1) == notOwner)
    #expect(h.rejected(.setPlaybackControl(.owner), bob, at: 1) == notOwner)
    #expect(h.rejected(.transferOwnership(to: bob), bob, at: 1) == notOwner)
    #expect(h.rejected(.remove(carol), bob, at: 1) == notOwner)
    #expect(h.rejected(.setKept(true), bob, at: 1) == notOwner)
    #expect(h.ok(.setLocked(true), alice, at: 2).kinds == [.lockChanged(true)])
    #expect(h.state.control.locked)
    // Repeating a setting changes nothing and says nothing.
    #expect(h.ok(.setLocked(true), alice, at: 3).isEmpty)
    #expect(h.ok(.setLocked(false), alice, at: 4).kinds == [.lockChanged(false)])
  }

  @Test(
    "with owner control, the others' play, pause, seek, rate, switch, start and end are refused")
  func ownerControlsPlayback() {
    var h = Harness.playing()
    #expect(
      h.ok(.setPlaybackControl(.owner), alice, at: 5).kinds == [.playbackControlChanged(.owner)])
    let refused = Rejection.ownerControlsPlayback(owner: "alice")
    let commands: [GroupCommand] = [
      .pause(item: s1e1, at: 3), .play(item: s1e1, rate: 1.5), .seek(item: s1e1, to: 30),
      .setRate(item: s1e1, rate: 2), .replace(series: harbour, item: s1e2, confirmed: true),
      .start(series: harbour, item: s1e3), .end,
    ]
    for command in commands {
      #expect(h.rejected(command, bob, at: 6) == refused, "\(command)")
    }
    // Stepping away and catching up stay open to everyone; proposing a time is a seek.
    h.ok(.beginSuspension(.interrupted), bob, at: 7)
    #expect(h.rejected(.endSuspension(nil, proposing: 40), bob, at: 8) == refused)
    h.ok(.endSuspension(nil, proposing: nil), bob, at: 8)
    // The owner's auto-advance goes on to the next episode; any player reaching the end
    // may report it (that is nobody's choice).
    h.ok(.setAutoAdvance(true), alice, at: 9)
    h.ok(.advance(endedItem: s1e1), bob, at: 601.5)
    #expect(h.session.item.id == s1e2)
    // The owner still can, and can hand control back.
    h.ok(.pause(item: s1e2, at: h.position(at: 602)), alice, at: 602)
    h.ok(.setPlaybackControl(.everyone), alice, at: 603)
    h.ok(.play(item: s1e2, rate: nil), bob, at: 604)
  }

  @Test(
    "with owner control, going on to the next episode is the owner's choice: another's auto-advance does not switch everyone"
  )
  func ownerDecidesAutoAdvance() {
    var h = Harness.playing()
    h.ok(.setPlaybackControl(.owner), alice, at: 5)
    h.ok(.setAutoAdvance(true), bob, at: 6)
    h.ok(.advance(endedItem: s1e1), bob, at: 601.5)
    #expect(h.session.item.id == s1e1)
    #expect(h.session.reachedEnd)
    // With everyone in control, anyone's auto-advance counts, as before.
    var open = Harness.playing()
    open.ok(.setAutoAdvance(true), bob, at: 6)
    open.ok(.advance(endedItem: s1e1), bob, at: 601.5)
    #expect(open.session.item.id == s1e2)
  }

  @Test("handing over: the new owner decides, the old one no longer does")
  func handOver() {
    var h = Harness.room()
    let events = h.ok(.transferOwnership(to: carol), alice, at: 1)
    #expect(events.kinds == [.ownerChanged(to: carol)])
    #expect(events.first?.originator == alice)
    #expect(h.state.control.owner == carol)
    #expect(h.rejected(.setLocked(true), alice, at: 2) == .notOwner(owner: "carol"))
    h.ok(.setLocked(true), carol, at: 2)
    #expect(
      h.rejected(.transferOwnership(to: "mallory"), carol, at: 3) == .unknownParticipant("mallory"))
  }

  @Test("when the owner leaves, the longest-present participant owns the room, with its rules")
  func passesOnLeave() {
    var h = Harness.room()
    h.ok(.setLocked(true), alice, at: 1)
    h.ok(.setPlaybackControl(.owner), alice, at: 1)
    let events = h.ok(.exit(reason: .quit), alice, at: 2)
    #expect(events.kinds == [.exited(.quit), .ownerChanged(to: bob)])
    #expect(h.state.control == RoomControl(owner: bob, locked: true, playback: .owner))
    // A participant other than the owner leaving changes nothing.
    #expect(h.ok(.exit(reason: .quit), carol, at: 3).kinds == [.exited(.quit)])
    // The last one out leaves an open room for whoever comes next.
    h.ok(.exit(reason: .disconnected), bob, at: 4)
    #expect(h.state.control == RoomControl())
    h.ok(.enter(name: "dave"), "dave", at: 5)
    #expect(h.state.control.owner == "dave")
  }

  @Test(
    "a room its owner asked to keep stays kept when it empties, the rest of its rules open again; the next one in can let it go"
  )
  func keptOutlastsEmptying() {
    var h = Harness.room()
    #expect(h.ok(.setKept(true), alice, at: 1).kinds == [.keptChanged(true)])
    #expect(h.ok(.setKept(true), alice, at: 1).isEmpty, "asked twice, said once")
    h.ok(.setLocked(true), alice, at: 1)
    h.ok(.setStartWhenAllReady(true), alice, at: 1)
    // Handed over with the room, like its other rules.
    h.ok(.exit(reason: .quit), alice, at: 2)
    #expect(
      h.state.control == RoomControl(owner: bob, locked: true, startWhenAllReady: true, kept: true))
    h.ok(.exit(reason: .quit), bob, at: 3)
    h.ok(.exit(reason: .timedOut), carol, at: 4)
    #expect(h.state.control == RoomControl(kept: true), "open again, but kept")
    h.ok(.enter(name: "dave"), "dave", at: 5)
    #expect(h.state.control == RoomControl(owner: "dave", kept: true))
    #expect(h.ok(.setKept(false), "dave", at: 6).kinds == [.keptChanged(false)])
    #expect(!h.state.control.kept)
  }

  @Test("removing: the participant leaves the room and its waits; the owner cannot remove itself")
  func removing() {
    var h = Harness.playing()
    h.ok(.setReadiness(.stalled), bob, at: 10)
    #expect(h.session.waits.map(\.participant) == [bob])
    let events = h.ok(.remove(bob), alice, at: 11)
    #expect(events.kinds.first == .removed(participant: bob, name: "bob"))
    #expect(events.first?.originator == alice)
    #expect(h.state.participant(bob) == nil)
    #expect(h.session.waits.isEmpty)
    #expect(h.session.timeline.rate > 0, "the group went on without the removed participant")
    #expect(
      h.rejected(.remove(alice), alice, at: 12)
        == .invalidValue("you cannot remove yourself; leave the room instead"))
    #expect(h.rejected(.remove(bob), alice, at: 12) == .unknownParticipant(bob))
  }

  @Test("replicas replaying the owner's steps agree, rejections included")
  func replicasAgree() {
    var relay = Harness.room()
    var replica = GroupEngine(configuration: relay.engine.configuration, state: relay.state)
    let script: [(GroupCommand, ParticipantID)] = [
      (.setPlaybackControl(.owner), alice), (.start(series: harbour, item: s1e1), bob),
      (.start(series: harbour, item: s1e1), alice), (.transferOwnership(to: bob), alice),
      (.setLocked(true), bob), (.remove(alice), bob), (.exit(reason: .quit), bob),
    ]
    for (index, (command, from)) in script.enumerated() {
      let at = g(Double(index + 1))
      let before = relay.state.sequence
      guard case .success = relay.engine.apply(command, from: from, at: at) else { continue }
      let step = SequencedStep(
        before: before, after: relay.state.sequence, at: at, input: .command(command, from: from))
      #expect(replica.replay(step) != nil)
    }
    #expect(replica.state == relay.state)
    #expect(relay.state.control.owner == carol)
  }
}
