import WireProtocol

/// Which relay runs which room, when several relays share one database: each room is
/// owned by one relay at a time through a lease kept in the database, renewed while the
/// relay lives and taken over by another once it expires.
///
/// The store's writes are fenced by the lease: a relay that lost a room (its lease expired
/// and another relay took it) cannot overwrite what the new owner writes.
public protocol RoomDirectory: Sendable {
  /// How long a lease lasts without renewal, seconds: how soon a dead relay's rooms can be
  /// taken over.
  var leaseDuration: Double { get }
  /// Claims `room` for this relay: the stored room (nil when new) with the clocks it was
  /// written on, or the relay that owns it now.
  func claim(_ room: String) async throws(RoomStoreError) -> RoomClaim
  /// Renews every lease this relay holds; returns the rooms whose lease it no longer
  /// holds (taken over after it expired).
  func renewLeases() async throws(RoomStoreError) -> Set<String>
  /// Gives a room's lease up at once (this relay no longer runs it: nobody is left, or it
  /// was handed over by stopping).
  func release(_ rooms: [String]) async throws(RoomStoreError)
  /// The other relays alive now, for participants to reconnect through.
  func peers() async throws(RoomStoreError) -> [RelayEndpoint]
  /// A hello for `room` waits on connection `connection` while the room is claimed
  /// (`resume`: the token it came with). A directory that elects who carries a room on
  /// counts it as a vote (see ``RoomElection``); the others need not look.
  /// `check`: how the relay checks resume proofs (a vote counts only with a proof).
  func helloWaiting(
    for room: String, resume: ResumeToken?, check: ResumeCheck, on connection: ConnectionID)
  /// A waiting hello's connection closed: its vote goes with it.
  func helloGone(on connection: ConnectionID)
}

extension RoomDirectory {
  public func helloWaiting(
    for room: String, resume: ResumeToken?, check: ResumeCheck, on connection: ConnectionID
  ) {}
  public func helloGone(on connection: ConnectionID) {}
}

/// The answer to ``RoomDirectory/claim(_:)``.
public enum RoomClaim: Sendable, Hashable {
  /// This relay owns the room now; `stored` is what the database keeps of it (nil for a
  /// new room), on the group clock `clock` of the relay that wrote it.
  case owned(stored: StoredRoom?, clock: ClockReading?)
  /// Another relay holds the room's lease.
  case elsewhere(RelayEndpoint)
}
