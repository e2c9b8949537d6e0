import PlaybackCoordination
import WireProtocol

/// What a successor's relay holds of the rooms it may be asked to carry, and its decisions
/// about them — pure, so that the wait for an election runs on any clock (the relay's
/// `ReplicaDirectory` on the real one; the tests' simulated network on virtual time):
///
/// - the copies the room's relay feeds (``apply(_:)``), and which rooms it carries now,
///   with the nanoseconds that move their instants onto this relay's clock;
/// - the votes: each waiting hello whose resume proof checks out against a member of a copy
///   is that member's vote, for as long as its connection stays
///   (``helloWaiting(for:resume:check:on:)``,
///   ``helloGone(on:)``);
/// - the election (``elect(_:known:)``): against what this machine's participant last knew
///   of the room, a majority of its last known members (``RoomElection``) carries it here;
/// - the claims (``claimBegan(_:at:wait:)``, ``decideClaim(_:known:at:)``): a hello for a
///   room this relay does not run waits until the room is handed over or elected here, or
///   until the claim's deadline, a time of the book's and not of whoever runs it.
public struct ReplicaBook: Sendable {
  /// What this machine's participant knows now: the room as it replayed it, its estimate
  /// of the old relay's clock, the local instant read, and whether it is still connected
  /// to a relay (then that relay lives, for it at least, and this one does not take the
  /// room over).
  public struct Known: Sendable {
    public var state: GroupState
    public var clock: ClockOffsetEstimate?
    public var now: LocalInstant
    public var connected: Bool

    public init(state: GroupState, clock: ClockOffsetEstimate?, now: LocalInstant, connected: Bool)
    {
      self.state = state
      self.clock = clock
      self.now = now
      self.connected = connected
    }
  }

  /// What a claim of a room finds.
  public enum Claim: Sendable {
    /// Carried here: the copy, its instants moved onto this relay's clock. The votes for it
    /// are spent.
    case carried(StoredRoom)
    /// Handed over without a copy to carry (a feed that never arrived).
    case noCopy
    /// Not carried here (yet).
    case notCarried
  }

  var copies: [String: StoredRoom] = [:]
  var carried: [String: Int64] = [:]
  /// The member whose machine ran each room's relay, as the feed said.
  var hosts: [String: ParticipantID] = [:]
  /// Hellos waiting here whose proofs checked out: the votes.
  var voters: [ConnectionID: (room: String, member: ParticipantID)] = [:]
  /// Rooms being claimed, with the instant (nanoseconds of the runtime's clock) their
  /// claim gives up.
  public private(set) var claimDeadlines: [String: Int64] = [:]

  /// What deciding a claim came to.
  public enum ClaimStep: Sendable {
    /// Carried here now (the copy, moved onto this relay's clock); `elected`: by an
    /// election just won, so the participant must be told.
    case carried(StoredRoom, elected: Bool)
    /// Handed over without a copy: the claim fails.
    case noCopy
    /// Not yet: decide again by `deadline` at the latest (sooner when votes come).
    case waiting(until: Int64)
    /// The deadline passed: the hellos waiting for it are refused, their votes gone.
    case gaveUp
  }

  public init() {}

  /// Applies what the room's relay fed.
  public mutating func apply(_ change: RoomChange) {
    // A room carried here already runs on this relay: its copy is history.
    guard carried[change.name] == nil else { return }
    copies[change.name] = StoredRoom.applying(change, to: copies[change.name])
    if let host = change.host { hosts[change.name] = host }
  }

  /// The room is handed over: this relay carries it from now on, with `state` (the room
  /// as the participant replayed it: the feed leaves the state out) unless the copy's is
  /// newer. `shift`: nanoseconds from the old relay's group clock to this relay's.
  public mutating func carry(_ room: String, state: GroupState, shift: Int64) {
    carried[room] = shift
    if let copy = copies[room], copy.state.sequence <= state.sequence {
      copies[room]?.state = state
    }
  }

  /// Nanoseconds that move the old relay's instants onto this machine's clock (the one
  /// the participant reads): minus its estimate of `group − local`, now.
  public static func shift(_ clock: ClockOffsetEstimate?, at now: LocalInstant) -> Int64 {
    guard let clock else { return 0 }
    let offset = clock.offset + clock.skew * now.seconds(since: clock.reference)
    return Int64(-offset * 1e9)
  }

  /// A hello waits here for `room`: with a resume whose proof checks out against a member
  /// of the copy, it is that member's vote.
  public mutating func helloWaiting(
    for room: String, resume: ResumeToken?, check: ResumeCheck, on connection: ConnectionID
  ) {
    guard let resume, carried[room] == nil,
      let member = copies[room]?.members.first(where: { $0.participant == resume.participant }),
      check.proves(resume, room: room, key: member.resumeKey)
    else { return }
    voters[connection] = (room, member.participant)
  }

  public mutating func helloGone(on connection: ConnectionID) {
    voters.removeValue(forKey: connection)
  }

  /// Whether there is anything to count for `room`: a copy, not carried yet, and a vote.
  public func hasVotes(for room: String) -> Bool {
    carried[room] == nil && copies[room] != nil && voters.values.contains { $0.room == room }
  }

  /// Counts the votes for `room` against what the participant knows of it (nil: nothing
  /// known); won, the room is carried here from now on and the participant must be told.
  /// Returns whether it was won now.
  public mutating func elect(_ room: String, known: Known?) -> Bool {
    guard hasVotes(for: room), let known, !known.connected, let copy = copies[room] else {
      return false
    }
    let state = copy.state.sequence <= known.state.sequence ? known.state : copy.state
    var election = RoomElection(lastKnown: state, relayHost: hosts[room])
    var won = false
    for (_, voter) in voters where voter.room == room { won = election.vote(voter.member) }
    guard won else { return false }
    copies[room]?.state = state
    carried[room] = Self.shift(known.clock, at: known.now)
    return true
  }

  /// Takes the room out of the book to run it, when it is carried here.
  public mutating func claim(_ room: String) -> Claim {
    guard let shift = carried[room] else { return .notCarried }
    guard var copy = copies.removeValue(forKey: room) else { return .noCopy }
    voters = voters.filter { $0.value.room != room }
    copy.state = copy.state.translated(by: shift)
    // This relay carries the room on after the one that fed it: the next term.
    copy.term += 1
    return .carried(copy)
  }

  /// The claim gave up: the hellos waiting for it are refused, and their votes go with
  /// them.
  public mutating func gaveUp(_ room: String) {
    voters = voters.filter { $0.value.room != room }
    claimDeadlines[room] = nil
  }

  /// A hello waits for `room` at `now`: its claim begins, unless one runs already (then it
  /// keeps its deadline). Returns the deadline.
  @discardableResult
  public mutating func claimBegan(_ room: String, at now: Int64, wait: Double) -> Int64 {
    if let deadline = claimDeadlines[room] { return deadline }
    let deadline = now &+ Int64(wait * 1e9)
    claimDeadlines[room] = deadline
    return deadline
  }

  /// Decides the claim of `room` at `now`: counts the votes against what the participant
  /// knows (see ``elect(_:known:)``), then carries the room, or fails, or waits, or gives up
  /// once the deadline passed.
  public mutating func decideClaim(_ room: String, known: Known?, at now: Int64) -> ClaimStep {
    let elected = elect(room, known: known)
    switch claim(room) {
    case .carried(let copy):
      claimDeadlines[room] = nil
      return .carried(copy, elected: elected)
    case .noCopy:
      claimDeadlines[room] = nil
      return .noCopy
    case .notCarried:
      let deadline = claimDeadlines[room] ?? now
      guard now < deadline else {
        gaveUp(room)
        return .gaveUp
      }
      return .waiting(until: deadline)
    }
  }

  /// Nobody is left in these rooms here: they are gone.
  public mutating func release(_ rooms: [String]) {
    for room in rooms {
      claimDeadlines[room] = nil
      carried[room] = nil
      copies[room] = nil
      hosts[room] = nil
    }
  }

  /// What the book holds of `room`, in words (for logs and failing tests).
  public func summary(of room: String) -> String {
    let copy =
      copies[room].map { copy in
        "copy at sequence \(copy.state.sequence), members \(copy.members.map(\.participant.rawValue)), connected \(copy.state.participants.filter(\.isConnected).map(\.id.rawValue))"
      } ?? "no copy"
    let votes = voters.values.filter { $0.room == room }.map(\.member.rawValue).sorted()
    return
      "\(copy); host \(hosts[room]?.rawValue ?? "unknown"); votes \(votes); carried: \(carried[room] != nil)"
  }
}
