import PlaybackCoordination
import Rooms
import WireProtocol

/// Passing rooms on: the successors' feed, taken every few milliseconds off the path that
/// forwards changes (as the store's writes are), and the handover when the relay's host
/// leaves.
extension RelayRuntime {
  /// Seconds between feeds while rooms change: what a successor may lack of the latest
  /// changes when the relay dies (the members' own copies hold the steps themselves).
  public static let successorFeedInterval = 0.005

  /// Feeds the successors until cancelled.
  func runSuccessorFeeder() async {
    while !Task.isCancelled {
      feedSuccessors()
      await outsideClock.sleep(seconds: Self.successorFeedInterval)
    }
  }

  /// Sends the successors what changed since the last feed.
  public func feedSuccessors() {
    state.withLock { s in
      guard s.core.hasSuccessorFeed else { return }
      perform(s.core.takeSuccessorFeed(), in: &s)
    }
  }

  /// The successors of `room` as its members were told.
  public func successors(ofRoom room: String) -> [Successor] {
    state.withLock { $0.core.successors(ofRoom: room) }
  }

  /// Hands every room that has a successor to its first one, fed with the last changes,
  /// and sends everyone there; returns the rooms moved and where. Rooms nobody can carry
  /// stay (closing the relay ends them).
  @discardableResult
  public func handOver() -> [(room: String, to: Successor)] {
    state.withLock { s in
      let (actions, moved) = s.core.handOver(at: clock.groupNow())
      perform(actions, in: &s)
      return moved
    }
  }
}

/// Asks the relay at an endpoint whether it runs a room now (`locate`).
public typealias RoomLocator =
  @Sendable (_ room: String, _ relay: RelayEndpoint) async -> LocateAnswer

/// A question this relay would ask another through its ``RoomLocator``, kept for a driver
/// of virtual time to answer instead (``RelayRuntime/keepLocateRequests()``).
public struct LocateRequest: Hashable, Sendable {
  public var room: String
  public var relay: RelayEndpoint
  /// Asked to learn whether the relay this member offered can be reached (answer with
  /// ``RelayRuntime/reachability(of:in:at:reachable:)``); nil: whether it runs the room
  /// (answer with ``RelayRuntime/located(_:at:_:)``).
  public var reachability: ParticipantID?
}

extension RelayRuntime {
  /// Keeps the questions this relay would ask other relays (it has no locator), for
  /// whoever drives it on virtual time to answer in order (``takeLocateRequests()``): the
  /// same runtime, with no task between a question and its answer.
  public func keepLocateRequests() {
    state.withLock { if $0.locateRequests == nil { $0.locateRequests = [] } }
  }

  /// The questions kept since the last call, oldest first.
  public func takeLocateRequests() -> [LocateRequest] {
    state.withLock { s in
      defer { if s.locateRequests != nil { s.locateRequests = [] } }
      return s.locateRequests ?? []
    }
  }

  /// Lets this relay ask its lost successors' relays whether one of them runs its room now
  /// (it was replaced while away); without it, it never asks.
  public func locateRooms(with locator: @escaping RoomLocator) {
    state.withLock { $0.locator = locator }
  }

  /// What the relay at `endpoint` answered about `room`: when it runs it now and is a
  /// successor this relay lost, everyone here is sent there and the room is let go.
  public func located(_ room: String, at endpoint: RelayEndpoint, _ answer: LocateAnswer) {
    let letGo = state.withLock { s -> Bool in
      guard !s.stopped else { return false }
      let (actions, letGo) = s.core.located(room, at: endpoint, answer, at: clock.groupNow())
      perform(actions, in: &s)
      return letGo
    }
    if letGo, let directory {
      Task(executorPreference: clock.taskExecutor) { try? await directory.release([room]) }
    }
  }

  /// Whether this relay reached the relay `participant` offered to carry `room` at.
  public func reachability(
    of participant: ParticipantID, in room: String, at endpoint: RelayEndpoint, reachable: Bool
  ) {
    state.withLock { s in
      guard !s.stopped else { return }
      perform(
        s.core.reachability(
          of: participant, in: room, at: endpoint, reachable: reachable, at: clock.groupNow()),
        in: &s)
    }
  }
}
