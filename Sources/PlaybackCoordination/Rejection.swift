/// Why a command did not apply. The state is unchanged whenever one is returned.
public enum Rejection: Error, Hashable, Sendable, CustomStringConvertible {
  case unknownParticipant(ParticipantID)
  case alreadyInRoom(ParticipantID)
  case notJoined
  case alreadyJoined
  case noSession
  /// A suspended participant tried to move the group; it must end its suspension first.
  case suspended([SuspensionReason])
  case notSuspended
  case staleItem(sent: ItemID, current: ItemID)
  case unknownItem(ItemID)
  /// The queue entry is not there (any more): someone else removed or played it.
  case notInQueue(entry: UInt64)
  case positionOutOfRange(position: Double, duration: Double)
  case rateOutOfRange(rate: Double, allowed: ClosedRange<Double>)
  case needsConfirmation(ItemID)
  /// An advance for an item that is not (or no longer) current, or not yet near its end.
  case advanceNotApplicable(ItemID)
  case emptySeries
  case invalidName(String)
  case invalidValue(String)
  /// Only the room's owner may do that (lock, remove, hand over, choose who controls).
  case notOwner(owner: String?)
  /// The owner chose to control playback alone.
  case ownerControlsPlayback(owner: String?)
  /// The relay cannot take changes now (it cannot store them); says why. Nothing changed:
  /// ask again in a moment.
  case unavailable(String)

  public var description: String {
    switch self {
    case .unknownParticipant(let id): "unknown participant \(id)"
    case .alreadyInRoom(let id): "\(id) is already in the room"
    case .notJoined: "join the watch session first"
    case .alreadyJoined: "already joined"
    case .noSession: "nothing is being watched in this room"
    case .suspended(let reasons):
      "you are suspended (\(reasons.map(\.rawValue).joined(separator: ", "))); resume first"
    case .notSuspended: "you are not suspended"
    case .staleItem(let sent, let current): "that was for \(sent), but the group is on \(current)"
    case .unknownItem(let id): "unknown item \(id)"
    case .notInQueue: "that is no longer in the queue"
    case .positionOutOfRange(let p, let d):
      "position \(TimeFormat.clock(p)) is outside 0:00–\(TimeFormat.clock(d))"
    case .rateOutOfRange(let r, let allowed):
      "rate \(r) is outside \(allowed.lowerBound)–\(allowed.upperBound)"
    case .needsConfirmation(let id): "switching everyone to \(id) needs confirmation"
    case .advanceNotApplicable(let id): "no advance from \(id) now"
    case .emptySeries: "the series has no items"
    case .invalidName(let n): "invalid name \"\(n)\""
    case .invalidValue(let what): what
    case .notOwner(let owner):
      "only the room's owner\(owner.map { " (\($0))" } ?? "") can do that"
    case .ownerControlsPlayback(let owner):
      "only \(owner ?? "the room's owner") controls playback in this room; you can still step away and catch up"
    case .unavailable(let why): why
    }
  }
}
