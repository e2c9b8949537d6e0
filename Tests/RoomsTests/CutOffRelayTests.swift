import PlaybackCoordination
import RelayRuntime
import Synchronization
import Testing
import WireProtocol

@testable import Rooms

/// A host's relay on the smaller side of a cut network: it refuses changes while the
/// members it lost could be electing a successor of theirs, so that only one side goes on.
@Suite("Relay: cut off from most of its room")
struct CutOffRelayTests {
  /// hal runs the relay on his machine; ann watches; bob, carl and dan offer to carry the
  /// room (numbered 1 to 5, in that order).
  static func five(carrying: Bool = true) -> RelayDriver {
    var r = RelayDriver(feedsSuccessors: true)
    r.hello(1, "hal", address: "127.0.0.1")
    r.send(.carry(r.ownOffer), from: 1)
    r.hello(2, "ann", address: "10.0.0.2")
    for (number, name) in [(3, "bob"), (4, "carl"), (5, "dan")] {
      r.hello(UInt64(number), name, address: "10.0.0.\(number)")
      if carrying {
        r.send(.carry(CarryOffer(port: 7700 + number, fingerprint: nil)), from: UInt64(number))
      }
    }
    return r
  }

  /// `host` runs the relay on its machine (connection 1); `others` (2, 3, …) each offer
  /// to carry the room.
  static func hosted(by host: String, with others: [String]) -> RelayDriver {
    var r = RelayDriver(feedsSuccessors: true)
    r.hello(1, host, address: "127.0.0.1")
    r.send(.carry(r.ownOffer), from: 1)
    for (index, name) in others.enumerated() {
      let number = UInt64(index + 2)
      r.hello(number, name, address: "10.0.0.\(number)")
      r.send(.carry(CarryOffer(port: 7700 + Int(number), fingerprint: nil)), from: number)
    }
    return r
  }

  /// Time passes with `alive` pinging every second, as participants do.
  static func advance(_ r: inout RelayDriver, _ seconds: Int, alive: [UInt64]) {
    for second in 0..<seconds {
      for id in alive {
        r.send(.ping(id: UInt64(second), t0: LocalInstant(nanoseconds: 0)), from: id)
      }
      r.advance(1)
    }
  }

  static func texts(_ r: RelayDriver, _ id: UInt64, code: ErrorCode = .cutOff) -> [String] {
    (r.outbox[ConnectionID(id)] ?? []).compactMap {
      if case .error(code, let text, false) = $0 { text } else { nil }
    }
  }

  @Test("who could win an election without those still here: a majority of the rest, never of two")
  func rival() {
    #expect(RelayCore.rivalPossible(connected: 1, unaccounted: 3))
    #expect(RelayCore.rivalPossible(connected: 0, unaccounted: 2))
    #expect(!RelayCore.rivalPossible(connected: 2, unaccounted: 2))
    #expect(!RelayCore.rivalPossible(connected: 1, unaccounted: 1))
    #expect(!RelayCore.rivalPossible(connected: 0, unaccounted: 1), "two people: each goes on")
    #expect(!RelayCore.rivalPossible(connected: 3, unaccounted: 0))
  }

  @Test(
    "bob, carl and dan cut off from hal and ann: changes and chat refused in words, places kept; back, all goes through again"
  )
  func minoritySide() throws {
    var r = Self.five()
    let carl = try #require(r.welcome(4)?.resume)
    r.drop(3)
    r.drop(4)
    r.drop(5)
    r.advance(0.2)
    let told = Self.texts(r, 2)
    #expect(told.count == 1 && told[0].contains("lost touch with bob, carl and dan"), "\(told)")
    #expect(Self.texts(r, 1).count == 1)
    r.send(.command(id: 1, .setAutoAdvance(true)), from: 2)
    r.send(.send(seq: 2, to: .all, kind: "chat", body: "where is everyone?"), from: 2)
    let refused = r.rejections(2)
    #expect(refused.map(\.0) == [1, 2])
    #expect(refused.allSatisfy { $0.1.contains("cut off from bob, carl and dan") }, "\(refused)")
    // Their places stay while the room is cut off: far past the reconnect grace.
    Self.advance(&r, 30, alive: [1, 2])
    #expect(r.lastState(2)?.participants.count == 5)
    // Nobody new enters a room that may be going on elsewhere.
    r.hello(6, "eve", address: "10.0.0.6")
    #expect(r.errors(6) == [.cutOff] && r.closed.contains(ConnectionID(6)))
    // carl is back: bob and dan alone are no majority; everyone reads it, carl too.
    r.hello(7, "carl", address: "10.0.0.4", resume: carl)
    #expect(Self.texts(r, 2).last?.contains("go through again") == true)
    #expect(Self.texts(r, 7).last?.contains("go through again") == true)
    r.send(.command(id: 3, .setAutoAdvance(true)), from: 2)
    #expect(r.accepted(2) == [3])
    Self.advance(&r, 10, alive: [1, 2, 7])
    #expect(r.lastState(2)?.participants.count == 3, "bob's and dan's places expired")
  }

  @Test(
    "the host's side the larger (ann with hal, bob cut off): it goes on, and bob's place expires")
  func majoritySide() {
    var r = Self.hosted(by: "hal", with: ["ann", "bob"])
    r.drop(3)
    r.advance(0.2)
    r.send(.command(id: 1, .setAutoAdvance(true)), from: 2)
    #expect(r.accepted(2) == [1] && Self.texts(r, 2).isEmpty)
    Self.advance(&r, 10, alive: [1, 2])
    #expect(r.lastState(2)?.participants.count == 2)
  }

  @Test("two people: the host left alone goes on (as the other does on its side)")
  func twoPeople() {
    var r = Self.hosted(by: "hal", with: ["bob"])
    r.drop(2)
    r.advance(0.2)
    r.send(.command(id: 1, .setAutoAdvance(true)), from: 1)
    #expect(r.accepted(1) == [1] && Self.texts(r, 1).isEmpty)
  }

  @Test("members lost who carry nothing cannot run the room elsewhere: nothing is refused")
  func noSuccessorLost() {
    var r = Self.five(carrying: false)
    r.drop(3)
    r.drop(4)
    r.drop(5)
    r.advance(0.2)
    r.send(.command(id: 1, .setAutoAdvance(true)), from: 2)
    #expect(r.accepted(2) == [1] && Self.texts(r, 2).isEmpty)
  }

  @Test(
    "nothing listens where the lost successors' relays were (their processes are gone): the room goes on"
  )
  func processesGone() async throws {
    var r = Self.five()
    let asked = Mutex(0)
    r.runtime.locateRooms { _, _ in
      asked.withLock { $0 += 1 }
      return .nothingListening
    }
    r.drop(3)
    r.drop(4)
    r.drop(5)
    // The locator answers on tasks of its own: each step waits for what it started.
    for _ in 0..<400 where Self.texts(r, 2).count < 2 {
      r.advance(0.05)
      await r.settle()
    }
    let told = Self.texts(r, 2)
    #expect(told.count == 2 && told[1].contains("go through again"), "\(told)")
    #expect(asked.withLock { $0 } >= 3)
    r.send(.command(id: 1, .setAutoAdvance(true)), from: 2)
    #expect(r.accepted(2) == [1])
  }

  @Test("a lost successor that does not answer (asleep, or across the cut) keeps the room cut off")
  func silentSuccessors() async throws {
    var r = Self.five()
    r.runtime.locateRooms { _, _ in .noAnswer }
    r.drop(3)
    r.drop(4)
    r.drop(5)
    for _ in 0..<20 {
      r.advance(0.1)
      await r.settle()
    }
    #expect(Self.texts(r, 2).count == 1)
    r.send(.command(id: 1, .setAutoAdvance(true)), from: 2)
    #expect(r.rejections(2).map(\.0) == [1])
  }
}
