import PlaybackCoordination
import Testing

@Suite("Group engine: whose copy a participant watches from")
struct GroupEngineLenderTests {
  @Test("set by the borrower, told once; only someone else who is here lends")
  func watchFrom() {
    var h = Harness.room()
    #expect(h.ok(.watchFrom(alice), carol, at: 1).kinds == [.watchingFrom(alice)])
    #expect(h.participant(carol).lender == alice)
    #expect(h.ok(.watchFrom(alice), carol, at: 2).isEmpty, "no change, no event")
    #expect(h.rejected(.watchFrom(carol), carol, at: 3) != nil, "not from oneself")
    #expect(h.rejected(.watchFrom("dan"), carol, at: 3) == .unknownParticipant("dan"))
    #expect(h.ok(.watchFrom(nil), carol, at: 4).kinds == [.watchingFrom(nil)])
    #expect(h.participant(carol).lender == nil)
  }

  @Test("the lender leaving the room, or being removed, leaves its borrowers reading nothing")
  func lenderGone() {
    var h = Harness.room()
    h.ok(.watchFrom(bob), carol, at: 1)
    h.ok(.watchFrom(bob), alice, at: 1)
    h.ok(.exit(reason: .quit), bob, at: 2)
    #expect(h.participant(carol).lender == nil && h.participant(alice).lender == nil)

    var removed = Harness.room()
    removed.ok(.watchFrom(bob), carol, at: 1)
    removed.ok(.remove(bob), alice, at: 2)
    #expect(removed.participant(carol).lender == nil)
  }

  @Test("a lender who only leaves the watch session stays the lender: its copy is still lent")
  func lenderLeavesTheSession() {
    var h = Harness.playing()
    h.ok(.watchFrom(alice), bob, at: 5)
    h.ok(.leave, alice, at: 6)
    #expect(h.participant(bob).lender == alice)
  }
}
