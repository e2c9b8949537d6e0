import Clocks
import PlaybackCoordination
import Rooms
import Synchronization
import WireProtocol

/// The rooms a participant's own relay may be asked to carry: for that relay it is the
/// ``RoomDirectory`` that decides whether a hello may bring a room in. The decisions are a
/// ``ReplicaBook``'s, the claim's deadline included; this runtime only performs them: it
/// holds the book under a lock, asks this machine's participant what it knows, and waits
/// on the clock it was given:
///
/// - a room handed over to it comes from its copy, moved onto this relay's clock;
/// - a room whose relay went without a handover comes in once a majority of its members
///   reconnected here (each waiting hello whose resume proof checks out is a vote);
/// - any other hello waits a moment (the others may reconnect before the handover reached
///   this machine), then is refused for now, and the participant tries again.
public final class ReplicaDirectory: RoomDirectory {
  struct Contents {
    var book = ReplicaBook()
    var participant: ParticipantView?
    var told: ParticipantTold?
  }

  /// What this machine's participant knows now (see ``ReplicaBook/Known``).
  public typealias ParticipantView = @Sendable () async -> ReplicaBook.Known?
  public typealias ParticipantTold = @Sendable () async -> Void

  let contents = Mutex(Contents())
  /// How long a hello waits for its room to be handed over or elected here.
  let claimWait: Double
  private let clock: any SessionClock
  /// How often a claim that waits looks again (votes come as hellos do).
  static let claimPoll = 0.01

  public let leaseDuration = 5.0

  public init(claimWait: Double = 3, clock: any SessionClock = MonotonicClock()) {
    self.claimWait = claimWait
    self.clock = clock
  }

  /// Lets the election read what this machine's participant knows (the copy's state is
  /// the one of the last whole room: the participant's replay is newer).
  public func attach(_ view: @escaping ParticipantView, told: @escaping ParticipantTold) {
    contents.withLock { c in
      c.participant = view
      c.told = told
    }
  }

  /// Applies what the room's relay fed.
  public func apply(_ change: RoomChange) {
    contents.withLock { $0.book.apply(change) }
  }

  /// The room is handed over (see ``ReplicaBook/carry(_:state:shift:)``).
  public func carry(_ room: String, state: GroupState, shift: Int64) {
    contents.withLock { $0.book.carry(room, state: state, shift: shift) }
  }

  /// See ``ReplicaBook/shift(_:at:)``.
  public static func shift(_ clock: ClockOffsetEstimate?, at now: LocalInstant) -> Int64 {
    ReplicaBook.shift(clock, at: now)
  }

  public func helloWaiting(
    for room: String, resume: ResumeToken?, check: ResumeCheck, on connection: ConnectionID
  ) {
    contents.withLock {
      $0.book.helloWaiting(for: room, resume: resume, check: check, on: connection)
    }
  }

  public func helloGone(on connection: ConnectionID) {
    contents.withLock { $0.book.helloGone(on: connection) }
  }

  public func claim(_ room: String) async throws(RoomStoreError) -> RoomClaim {
    let wait = claimWait
    contents.withLock { _ = $0.book.claimBegan(room, at: clock.nanoseconds(), wait: wait) }
    while true {
      // What the participant knows, asked only when there are votes to count against it.
      let (view, voting) = contents.withLock { ($0.participant, $0.book.hasVotes(for: room)) }
      let known = voting ? await view?() : nil
      let (step, told) = contents.withLock { c -> (ReplicaBook.ClaimStep, ParticipantTold?) in
        let step = c.book.decideClaim(room, known: known, at: clock.nanoseconds())
        if case .carried(_, elected: true) = step { return (step, c.told) }
        return (step, nil)
      }
      await told?()
      switch step {
      case .carried(let copy, _):
        return .owned(stored: copy, clock: nil)
      case .noCopy:
        throw RoomStoreError("this machine was handed room \(room) without a copy of it")
      case .gaveUp:
        throw RoomStoreError("this machine does not carry room \(room) (yet)")
      case .waiting(let deadline):
        let poll = clock.nanoseconds() &+ Int64(Self.claimPoll * 1e9)
        await clock.sleep(untilNanoseconds: min(deadline, poll))
      }
    }
  }

  /// What this directory holds of `room`, in words (for logs and failing tests).
  public func summary(of room: String) -> String {
    contents.withLock { $0.book.summary(of: room) }
  }

  public func renewLeases() async throws(RoomStoreError) -> Set<String> { [] }

  public func release(_ rooms: [String]) async throws(RoomStoreError) {
    // Nobody is left in it here: it is gone (a room nobody is left in is gone).
    contents.withLock { $0.book.release(rooms) }
  }

  public func peers() async throws(RoomStoreError) -> [RelayEndpoint] { [] }
}
