import PlaybackCoordination

/// Who carries a room on when its relay went without handing it over (its host's process
/// was killed, its machine slept, its network went): the members vote for a successor by
/// reconnecting to it, and a successor carries the room only with the votes of a majority
/// of the members that were in the room when it last heard of it — the relay's own host
/// left out, since it is the one gone. A member holds one connection at a time, so at any
/// moment at most one successor holds a majority: two relays never both run the room for
/// people who can reach each other, and a minority cut off from the others waits.
///
/// Pure: the successor's relay feeds it the hellos it holds (with their members, once
/// their resume secrets checked out) and the ones that went away.
public struct RoomElection: Sendable, Hashable {
  /// The members whose votes count.
  public let electorate: Set<ParticipantID>
  public private(set) var votes: Set<ParticipantID> = []

  /// `state`: the room as last known; `relayHost`: the member whose machine ran the relay.
  public init(lastKnown state: GroupState, relayHost: ParticipantID?) {
    electorate = Set(
      state.participants.filter { $0.isConnected && $0.id != relayHost }.map(\.id))
  }

  /// Votes a successor needs: more than half the electorate (one, when nobody else was
  /// there: the one left carries on alone).
  public var needed: Int { electorate.count / 2 + 1 }

  public var isWon: Bool { votes.count >= needed }

  /// A member reconnected here. Returns whether the election is won now.
  public mutating func vote(_ member: ParticipantID) -> Bool {
    if electorate.contains(member) { votes.insert(member) }
    return isWon
  }

  /// A member's connection here went (it tries another successor, or gave up).
  public mutating func withdraw(_ member: ParticipantID) { votes.remove(member) }
}
