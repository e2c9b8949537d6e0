import PlaybackCoordination
import Testing

@testable import Rooms

@Suite("Electing who carries a room on")
struct RoomElectionTests {
  static func state(_ members: [(String, connected: Bool)]) -> GroupState {
    var state = GroupState()
    state.participants = members.map {
      Participant(id: ParticipantID($0.0), name: $0.0, isConnected: $0.connected)
    }
    return state
  }

  @Test("a majority of those last in the room, the relay's host left out")
  func majority() {
    var e = RoomElection(
      lastKnown: Self.state([("p1", true), ("p2", true), ("p3", true), ("p4", true), ("p5", true)]),
      relayHost: "p1")
    #expect(e.electorate == ["p2", "p3", "p4", "p5"])
    #expect(e.needed == 3)
    do {
      let won = e.vote("p2")
      #expect(!won)
    }
    do {
      let won = e.vote("p1")
      #expect(!won)
    }  // the host's vote does not count
    do {
      let won = e.vote("p3")
      #expect(!won)
    }
    e.withdraw("p3")
    do {
      let won = e.vote("p4")
      #expect(!won)
    }
    do {
      let won = e.vote("p5")
      #expect(won)
    }
  }

  @Test("only the host and one other: the one left carries on alone")
  func twoOfThem() {
    var e = RoomElection(lastKnown: Self.state([("p1", true), ("p2", true)]), relayHost: "p1")
    #expect(e.needed == 1)
    do {
      let won = e.vote("p2")
      #expect(won)
    }
  }

  @Test("members away when the relay went do not count, for or against")
  func away() {
    var e = RoomElection(
      lastKnown: Self.state([("p1", true), ("p2", true), ("p3", false), ("p4", true)]),
      relayHost: "p1")
    #expect(e.electorate == ["p2", "p4"])
    do {
      let won = e.vote("p3")
      #expect(!won)
    }
    do {
      let won = e.vote("p2")
      #expect(!won)
    }
    do {
      let won = e.vote("p4")
      #expect(won)
    }
  }

  @Test("two candidates never both hold a majority: each member is at one at a time")
  func oneWinner() {
    let state = Self.state((1...7).map { ("p\($0)", true) })
    var first = RoomElection(lastKnown: state, relayHost: "p1")
    var second = RoomElection(lastKnown: state, relayHost: "p1")
    var g = SystemRandomNumberGenerator()
    var at: [ParticipantID: Int] = [:]
    for _ in 0..<2000 {
      let member = ParticipantID("p\(Int.random(in: 1...7, using: &g))")
      // Moves its one connection to a candidate (or drops it).
      switch at[member] {
      case 1: first.withdraw(member)
      case 2: second.withdraw(member)
      default: break
      }
      let to = Int.random(in: 0...2, using: &g)
      at[member] = to
      if to == 1 { _ = first.vote(member) }
      if to == 2 { _ = second.vote(member) }
      #expect(!(first.isWon && second.isWon))
    }
  }
}
