import PlaybackCoordination
import RoomsTesting
import Testing
import WireProtocol

@testable import Rooms

/// A successor's book of the rooms it may carry, decided with no clock at all: the feed,
/// the votes, the election, the claim.
@Suite("Carrying rooms: the replica book")
struct ReplicaBookTests {
  /// ann ran the relay; bob and carl were in the room with her.
  static func book() -> (ReplicaBook, GroupState) {
    var book = ReplicaBook()
    var state = GroupState()
    state.participants = ["p1", "p2", "p3"].map {
      Participant(id: ParticipantID($0), name: $0, isConnected: true)
    }
    let members = ["p1", "p2", "p3"].map {
      ResumeKeys.member($0)
    }
    book.apply(
      RoomChange(
        name: "lobby", state: state, nextNumber: 4, members: members, departed: [],
        restart: true, host: "p1"))
    return (book, state)
  }

  static func known(_ state: GroupState, connected: Bool = false) -> ReplicaBook.Known {
    ReplicaBook.Known(
      state: state, clock: nil, now: LocalInstant(nanoseconds: 0), connected: connected)
  }

  @Test("a majority of right proofs carries the room; a forged proof is no vote")
  func majority() {
    var (book, state) = Self.book()
    book.helloWaiting(
      for: "lobby", resume: ResumeKeys.token("p2"), check: ResumeKeys.check, on: ConnectionID(1))
    book.helloWaiting(
      for: "lobby", resume: ResumeKeys.token("p3", forged: true), check: ResumeKeys.check,
      on: ConnectionID(2))
    do {
      let won = book.elect("lobby", known: Self.known(state))
      #expect(!won)
    }
    guard case .notCarried = book.claim("lobby") else {
      Issue.record("carried without a majority")
      return
    }
    book.helloWaiting(
      for: "lobby", resume: ResumeKeys.token("p3"), check: ResumeKeys.check, on: ConnectionID(4))
    do {
      let won = book.elect("lobby", known: Self.known(state))
      #expect(won)
    }
    guard case .carried(let copy) = book.claim("lobby") else {
      Issue.record("not carried after the election")
      return
    }
    #expect(copy.members.count == 3)
    #expect(!book.hasVotes(for: "lobby"), "the votes are spent")
  }

  @Test(
    "a claim waits until its deadline, kept by the book: a later hello does not move it; past it, the claim gives up and its votes go"
  )
  func claimDeadline() {
    var (book, state) = Self.book()
    let second: Int64 = 1_000_000_000
    #expect(book.claimBegan("lobby", at: 10 * second, wait: 3) == 13 * second)
    #expect(book.claimBegan("lobby", at: 12 * second, wait: 3) == 13 * second, "the first one's")
    book.helloWaiting(
      for: "lobby", resume: ResumeKeys.token("p2"), check: ResumeKeys.check, on: ConnectionID(1))
    guard
      case .waiting(let until) = book.decideClaim(
        "lobby", known: Self.known(state), at: 12 * second)
    else {
      Issue.record("decided before a majority or the deadline")
      return
    }
    #expect(until == 13 * second)
    guard case .gaveUp = book.decideClaim("lobby", known: Self.known(state), at: 13 * second) else {
      Issue.record("did not give up at the deadline")
      return
    }
    #expect(book.claimDeadlines.isEmpty)
    #expect(!book.hasVotes(for: "lobby"), "the votes went with the claim")
    // A new claim: two right proofs of three elect this machine, and the participant is told.
    book.claimBegan("lobby", at: 20 * second, wait: 3)
    for (index, member) in ["p2", "p3"].enumerated() {
      book.helloWaiting(
        for: "lobby", resume: ResumeKeys.token(member), check: ResumeKeys.check,
        on: ConnectionID(UInt64(10 + index)))
    }
    guard
      case .carried(let copy, let elected) = book.decideClaim(
        "lobby", known: Self.known(state), at: 21 * second)
    else {
      Issue.record("not carried after a majority")
      return
    }
    #expect(elected)
    #expect(copy.members.count == 3)
    #expect(book.claimDeadlines.isEmpty)
  }

  @Test("a vote goes with its connection, and with a claim that gave up")
  func votesGo() {
    let (fresh, state) = Self.book()
    var book = fresh
    book.helloWaiting(
      for: "lobby", resume: ResumeKeys.token("p2"), check: ResumeKeys.check, on: ConnectionID(1))
    book.helloGone(on: ConnectionID(1))
    book.helloWaiting(
      for: "lobby", resume: ResumeKeys.token("p3"), check: ResumeKeys.check, on: ConnectionID(2))
    do {
      let won = book.elect("lobby", known: Self.known(state))
      #expect(!won)
    }
    book.gaveUp("lobby")
    // p3's hello was refused with that claim: a later hello of p2 alone is no majority.
    book.helloWaiting(
      for: "lobby", resume: ResumeKeys.token("p2"), check: ResumeKeys.check, on: ConnectionID(3))
    do {
      let won = book.elect("lobby", known: Self.known(state))
      #expect(!won)
    }
  }

  @Test("while this machine's participant still reaches a relay, or knows nothing, no takeover")
  func stillConnected() {
    var (book, state) = Self.book()
    book.helloWaiting(
      for: "lobby", resume: ResumeKeys.token("p2"), check: ResumeKeys.check, on: ConnectionID(1))
    book.helloWaiting(
      for: "lobby", resume: ResumeKeys.token("p3"), check: ResumeKeys.check, on: ConnectionID(2))
    do {
      let won = book.elect("lobby", known: Self.known(state, connected: true))
      #expect(!won)
    }
    do {
      let won = book.elect("lobby", known: nil)
      #expect(!won)
    }
    do {
      let won = book.elect("lobby", known: Self.known(state))
      #expect(won)
    }
  }

  @Test("a handover carries the room with the participant's newer state, moved by the shift")
  func handover() {
    var (book, state) = Self.book()
    state.sequence = 9
    state.session = WatchSession(
      id: 1,
      series: SeriesInfo(
        id: "s", title: "S", items: [ItemInfo(id: "s/1", title: "One", duration: 60)]),
      item: ItemInfo(id: "s/1", title: "One", duration: 60),
      timeline: Timeline(itemTime: 5, groupTime: GroupInstant(seconds: 100), rate: 1),
      intendedRate: 1)
    book.carry("lobby", state: state, shift: -40_000_000_000)
    guard case .carried(let copy) = book.claim("lobby") else {
      Issue.record("a handed-over room was not carried")
      return
    }
    #expect(copy.state.sequence == 9)
    #expect(copy.state.session?.timeline.groupTime == GroupInstant(seconds: 60))
    // Fed after it runs here: history, not applied.
    var later = ReplicaBook()
    later.carry("attic", state: GroupState(), shift: 0)
    #expect(later.summary(of: "attic").contains("no copy"))
    guard case .noCopy = later.claim("attic") else {
      Issue.record("a room handed over without a copy was claimed")
      return
    }
  }
}
