import Narration
import PlaybackCoordination
import WireProtocol

/// Whether a participant is connected to its relay.
public enum ConnectionStatus: String, Hashable, Sendable, Codable {
  case connecting
  case connected
  /// The connection dropped; retrying with backoff while the player follows the last
  /// known timeline.
  case reconnecting
  /// Gave up, or left.
  case disconnected
}

/// Where this participant stands with the room's watch session (GroupSession's states).
public enum SessionPhase: Hashable, Sendable {
  /// No watch session in the room.
  case none
  /// A session exists (received) and this participant has not joined it.
  case waiting(sessionID: UInt64)
  case joined(sessionID: UInt64)
  case invalidated(InvalidationReason)
}

public enum InvalidationReason: Hashable, Sendable, CustomStringConvertible {
  case left
  case ended(by: String?)
  case removed(String)
  case relayLost
  /// The relay restarted without this session (it kept no store, or lost it): nobody
  /// left or ended it.
  case relayRestarted

  public var description: String {
    switch self {
    case .left: "left"
    case .ended(let by): by.map { "ended by \($0)" } ?? "ended"
    case .removed(let why): "removed: \(why)"
    case .relayLost: "relay lost"
    case .relayRestarted: "the relay restarted and lost this watch session"
    }
  }
}

/// What a participant client reports, in order.
public enum ClientEvent: Sendable, Hashable {
  /// Entered (or re-entered) the room. `relayEpoch` changes when the relay restarted:
  /// sequence numbers start again, so whoever tracks them must start over.
  /// `relay`: the address of the relay that welcomed, when it is not the one this
  /// participant started with (a redirect, or a takeover after a relay died).
  /// `keepsRooms`: the relay keeps a room nobody is in when its owner asks
  /// (``Welcome/keepsRooms``).
  case welcomed(
    participant: ParticipantID, resumed: Bool, relayEpoch: String, relay: String? = nil,
    keepsRooms: Bool = false)
  /// A new group state with the changes that led to it (none for a refresh).
  case state(GroupState, events: [ChangeEvent])
  case connection(ConnectionStatus)
  case session(SessionPhase)
  /// A messenger payload; `to` lists its recipients when it was meant for some people
  /// only (nil: everyone). `earlier`: said before this participant entered the room (the
  /// relay's backlog, sent once on entering): show it as such, do not flash it.
  case message(
    from: ParticipantID, name: String, kind: MessageKind, body: String,
    to: [ParticipantID]? = nil, earlier: Bool = false)
  /// A reaction at a moment of the film, from someone (this participant's own too, as it
  /// goes out): who, what and the film time it was made at. The one place a front or a
  /// room's memory hears of reactions. `earlier`: as for messages.
  case reaction(from: ParticipantID, name: String, Reaction, earlier: Bool = false)
  /// The relay refused a command. `awaited`: whoever asked is waiting for the answer and
  /// hears of it there too (headless mode reports it once, with the action that asked).
  case rejected(GroupCommand, Rejection, awaited: Bool)
  /// Something to tell the person, with its weight (see ``Notice``).
  case notice(Notice)
  /// The members whose machines would carry the room, in order, if its relay goes (the
  /// relay names them whenever the list changes).
  case succession([Successor])
}
