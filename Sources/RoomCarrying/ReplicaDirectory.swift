import PlaybackCoordination
import Rooms
import Synchronization
import WireProtocol

/// The rooms a participant's own relay may be asked to carry: for that relay it is the
/// ``RoomDirectory`` that decides whether a hello may bring a room in. The decisions are a
/// ``ReplicaBook``'s; this runtime holds it under a lock, asks this machine's participant
/// what it knows, and waits for an election in real time:
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

  public let leaseDuration = 5.0

  public init(claimWait: Double = 3) { self.claimWait = claimWait }

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
    let started = ContinuousClock.now
    while true {
      await elect(room)
      switch contents.withLock({ $0.book.claim(room) }) {
      case .carried(let copy):
        return .owned(stored: copy, clock: nil)
      case .noCopy:
        throw RoomStoreError("this machine was handed room \(room) without a copy of it")
      case .notCarried:
        guard ContinuousClock.now - started < .seconds(claimWait) else {
          // The hellos waiting for this claim are refused: their votes go with them.
          contents.withLock { $0.book.gaveUp(room) }
          throw RoomStoreError("this machine does not carry room \(room) (yet)")
        }
        try? await Task.sleep(nanoseconds: 10_000_000)
      }
    }
  }

  /// Counts the votes for `room` against what the participant last knew of it; won, the
  /// room is carried here from now on and the participant is told.
  private func elect(_ room: String) async {
    let (view, voting) = contents.withLock { ($0.participant, $0.book.hasVotes(for: room)) }
    guard voting, let view else { return }
    let known = await view()
    let told = contents.withLock { c -> ParticipantTold? in
      c.book.elect(room, known: known) ? c.told : nil
    }
    await told?()
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
