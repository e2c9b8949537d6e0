import PlaybackCoordination
import Rooms
import Synchronization
import WireProtocol

/// The rooms a participant's own relay may be asked to carry: the copies the room's relay
/// feeds it, and which of them it carries now. For that relay it is the ``RoomDirectory``
/// that decides whether a hello may bring a room in:
///
/// - a room handed over to it comes from its copy, moved onto this relay's clock;
/// - a room whose relay went without a handover comes in once a majority of its members
///   reconnected here (``RoomElection``: each waiting hello whose resume secret matches a
///   member of the copy is that member's vote, for as long as its connection stays);
/// - any other hello waits a moment (the others may reconnect before the handover reached
///   this machine), then is refused for now, and the participant tries again.
public final class ReplicaDirectory: RoomDirectory {
  struct Contents {
    var copies: [String: StoredRoom] = [:]
    /// Rooms this relay carries, with the nanoseconds that move their instants from the
    /// old relay's group clock onto this one's.
    var carried: [String: Int64] = [:]
    /// The member whose machine ran each room's relay, as the feed said.
    var hosts: [String: ParticipantID] = [:]
    /// Hellos waiting here whose secrets matched: the votes.
    var voters: [ConnectionID: (room: String, member: ParticipantID)] = [:]
    var participant: ParticipantView?
    var told: ParticipantTold?
  }

  /// What this machine's participant knows now: the room as it replayed it, and its
  /// estimate of the old relay's clock, read at `now`; and how to tell it that its relay
  /// carries the room from now on.
  /// `connected`: it is still connected to a relay (then that relay lives, for it at
  /// least, and this one does not take the room over).
  public typealias ParticipantView =
    @Sendable () async -> (
      state: GroupState, clock: ClockOffsetEstimate?, now: LocalInstant, connected: Bool
    )?
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
    contents.withLock { c in
      // A room carried here already runs on this relay: its copy is history.
      guard c.carried[change.name] == nil else { return }
      c.copies[change.name] = StoredRoom.applying(change, to: c.copies[change.name])
      if let host = change.host { c.hosts[change.name] = host }
    }
  }

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

  /// Nanoseconds that move the old relay's instants onto this machine's clock (the one
  /// the participant reads): minus its estimate of `group − local`, now.
  public static func shift(_ clock: ClockOffsetEstimate?, at now: LocalInstant) -> Int64 {
    guard let clock else { return 0 }
    let offset = clock.offset + clock.skew * now.seconds(since: clock.reference)
    return Int64(-offset * 1e9)
  }

  public func helloWaiting(for room: String, resume: ResumeToken?, on connection: ConnectionID) {
    guard let resume else { return }
    contents.withLock { c in
      guard c.carried[room] == nil,
        let member = c.copies[room]?.members.first(where: { $0.participant == resume.participant }),
        SecretHash.of(resume.secret) == member.secretHash
      else { return }
      c.voters[connection] = (room, member.participant)
    }
  }

  public func helloGone(on connection: ConnectionID) {
    contents.withLock { _ = $0.voters.removeValue(forKey: connection) }
  }

  public func claim(_ room: String) async throws(RoomStoreError) -> RoomClaim {
    let started = ContinuousClock.now
    while true {
      await elect(room)
      let found: StoredRoom?? = contents.withLock { c in
        guard let shift = c.carried[room] else { return .none }
        guard var copy = c.copies.removeValue(forKey: room) else { return .some(nil) }
        c.voters = c.voters.filter { $0.value.room != room }
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
          // The hellos waiting for this claim are refused: their votes go with them.
          contents.withLock { c in c.voters = c.voters.filter { $0.value.room != room } }
          throw RoomStoreError("this machine does not carry room \(room) (yet)")
        }
        try? await Task.sleep(nanoseconds: 10_000_000)
      }
    }
  }

  /// Counts the votes for `room` against what the participant last knew of it; won, the
  /// room is carried here from now on. Nil when there is nothing to count.
  @discardableResult
  private func elect(_ room: String) async -> Bool? {
    let (view, voting) = contents.withLock { c in
      (
        c.participant,
        c.carried[room] == nil && c.copies[room] != nil
          && c.voters.values.contains { $0.room == room }
      )
    }
    guard voting, let view, let known = await view(), !known.connected else { return nil }
    let (won, told) = contents.withLock { c -> (Bool, ParticipantTold?) in
      guard c.carried[room] == nil, let copy = c.copies[room] else { return (false, nil) }
      let state = copy.state.sequence <= known.state.sequence ? known.state : copy.state
      var election = RoomElection(lastKnown: state, relayHost: c.hosts[room])
      var won = false
      for (_, voter) in c.voters where voter.room == room { won = election.vote(voter.member) }
      guard won else { return (false, nil) }
      c.copies[room]?.state = state
      c.carried[room] = Self.shift(known.clock, at: known.now)
      return (true, c.told)
    }
    if won { await told?() }
    return won
  }

  /// What this directory holds of `room`, in words (for logs and failing tests).
  public func summary(of room: String) -> String {
    contents.withLock { c in
      let copy =
        c.copies[room].map { copy in
          "copy at sequence \(copy.state.sequence), members \(copy.members.map(\.participant.rawValue)), connected \(copy.state.participants.filter(\.isConnected).map(\.id.rawValue))"
        } ?? "no copy"
      let voters = c.voters.values.filter { $0.room == room }.map(\.member.rawValue).sorted()
      return
        "\(copy); host \(c.hosts[room]?.rawValue ?? "unknown"); votes \(voters); carried: \(c.carried[room] != nil)"
    }
  }

  public func renewLeases() async throws(RoomStoreError) -> Set<String> { [] }

  public func release(_ rooms: [String]) async throws(RoomStoreError) {
    // Nobody is left in it here: it is gone (a room nobody is left in is gone).
    contents.withLock { c in
      for room in rooms {
        c.carried[room] = nil
        c.copies[room] = nil
        c.hosts[room] = nil
      }
    }
  }

  public func peers() async throws(RoomStoreError) -> [RelayEndpoint] { [] }
}
