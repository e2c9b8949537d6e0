import PlaybackCoordination
import Rooms
import Synchronization
import WireProtocol

/// The rooms a participant's own relay may be asked to carry: the copies the room's relay
/// feeds it, and which of them it carries now. For that relay it is the ``RoomDirectory``
/// that decides whether a hello may bring a room in: a room it carries comes from its copy,
/// moved onto this relay's clock; a hello for any other waits a moment for the handover
/// (the others may reconnect before the handover reached this machine), then is refused
/// for now, and the participant tries again.
public final class ReplicaDirectory: RoomDirectory {
  struct Contents {
    var copies: [String: StoredRoom] = [:]
    /// Rooms handed over to this relay, with the nanoseconds that move their instants from
    /// the old relay's group clock onto this one's.
    var carried: [String: Int64] = [:]
  }

  let contents = Mutex(Contents())
  /// How long a hello waits for the handover of its room.
  let claimWait: Double

  public let leaseDuration = 5.0

  public init(claimWait: Double = 2) { self.claimWait = claimWait }

  /// Applies what the room's relay fed.
  public func apply(_ change: RoomChange) {
    contents.withLock { c in
      // A room carried here already runs on this relay: its copy is history.
      guard c.carried[change.name] == nil else { return }
      c.copies[change.name] = StoredRoom.applying(change, to: c.copies[change.name])
    }
  }

  /// The copy of `room`, if there is one (status and tests).
  public func copy(of room: String) -> StoredRoom? { contents.withLock { $0.copies[room] } }

  /// The room is handed over: this relay carries it from now on, with `state` (the room
  /// as the participant replayed it: the feed leaves the state out) unless the copy's is
  /// newer. `shift`: nanoseconds from the old relay's group clock to this relay's.
  public func carry(_ room: String, state: GroupState, shift: Int64) {
    contents.withLock { c in
      c.carried[room] = shift
      if let copy = c.copies[room], copy.state.sequence <= state.sequence {
        c.copies[room]?.state = state
      }
    }
  }

  public func claim(_ room: String) async throws(RoomStoreError) -> RoomClaim {
    let started = ContinuousClock.now
    while true {
      let found: StoredRoom?? = contents.withLock { c in
        guard let shift = c.carried[room] else { return .none }
        guard var copy = c.copies.removeValue(forKey: room) else { return .some(nil) }
        copy.state = copy.state.translated(by: shift)
        return .some(copy)
      }
      switch found {
      case .some(let copy?):
        return .owned(stored: copy, clock: nil)
      case .some(nil):
        throw RoomStoreError("this machine was handed room \(room) without a copy of it")
      case .none:
        guard ContinuousClock.now - started < .seconds(claimWait) else {
          throw RoomStoreError("this machine does not carry room \(room) (yet)")
        }
        try? await Task.sleep(nanoseconds: 10_000_000)
      }
    }
  }

  public func renewLeases() async throws(RoomStoreError) -> Set<String> { [] }

  public func release(_ rooms: [String]) async throws(RoomStoreError) {
    // Nobody is left in it here: it is gone (a room nobody is left in is gone).
    contents.withLock { c in
      for room in rooms {
        c.carried[room] = nil
        c.copies[room] = nil
      }
    }
  }

  public func peers() async throws(RoomStoreError) -> [RelayEndpoint] { [] }
}
