import PlaybackCoordination

/// Something a participant is told that is not a change of the room: why a request went
/// nowhere, what its link or its player is doing, a message it was not shown.
///
/// Typed rather than a string, so that every front shows each with its weight (that the
/// group is already at the end is not an error) and the words are written once, here.
public enum Notice: Hashable, Sendable, CustomStringConvertible {
  /// How much a notice matters to the person: information, something to keep an eye on,
  /// or something that went wrong.
  public enum Weight: Hashable, Sendable {
    case info
    case warning
    case error
  }

  /// Why a message from someone was not shown.
  public enum HiddenMessage: Hashable, Sendable {
    /// It was sealed with the room's password, which this participant did not give.
    case sealedWithoutPassword
    /// The room has a password and the message was not sealed with it.
    case notSealed
    /// It did not open with the room's key.
    case unopenable(String)
  }

  /// The relay's own words: a refusal, a farewell, messages lost while away.
  case relay(String)
  /// The participant stopped, and why (the relay removed it, its certificate changed…).
  case stopped(String)
  case gaveUpReconnecting
  case relaySilent
  /// A request of the person's that will never go: what it was, and why.
  case notSent(request: String, why: String)
  /// A request that failed at once: the outbox is full, nothing is watched, it stopped.
  case requestFailed(String)
  /// A request that would change nothing, and what is already so.
  case unchanged(String)
  case messageNotDelivered(String)
  case messageHidden(from: String, HiddenMessage)
  /// The person has no file of the group's episode: their player steps away.
  case missingFile(series: String, item: String, duration: Double)
  case playerCannotFollow(String)
  /// This person's player holds back a link someone else started (not allowed, or not
  /// yet): they step away, and why — a choice of theirs, not a broken player.
  case linkHeld(String)
  /// This person has no copy of the group's item and waits for one to be lent (or nobody
  /// lends it): they step away, and why, until a lent copy is open.
  case borrowing(series: String, item: String, duration: Double, String)
  /// The person's file is not as long as the group's: another cut, perhaps.
  case otherCut(series: String, item: String, fileLength: Double, groupLength: Double)
  /// The room's relay handed the room to a member's machine (its host left): everyone
  /// follows it there. `name`: whose machine, nil when it is this person's own.
  case roomMoved(toMachineOf: String?)

  public var weight: Weight {
    switch self {
    case .relay, .stopped, .gaveUpReconnecting, .notSent, .requestFailed, .messageNotDelivered,
      .playerCannotFollow:
      .error
    case .relaySilent, .messageHidden, .missingFile, .otherCut, .linkHeld, .borrowing:
      .warning
    case .unchanged, .roomMoved: .info
    }
  }

  public var description: String {
    switch self {
    case .relay(let text), .stopped(let text), .requestFailed(let text), .unchanged(let text):
      text
    case .gaveUpReconnecting: "gave up reconnecting to the relay"
    case .relaySilent: "the relay went silent; reconnecting"
    case .notSent(let request, let why): "not sent: \(request) — \(why)"
    case .messageNotDelivered(let why): "message not delivered: \(why)"
    case .messageHidden(let name, .sealedWithoutPassword):
      "a sealed message from \(name) was not shown: this room's messages are sealed with a password you did not give"
    case .messageHidden(let name, .notSealed):
      "a message from \(name) was not shown: it was not sealed with the room's password"
    case .messageHidden(let name, .unopenable(let why)):
      "a message from \(name) was not shown: \(why)"
    case .missingFile(let series, let item, let duration):
      "you don't have \(series) · \(item) (\(TimeFormat.clock(duration))): stepping away until the group plays something you have"
    case .playerCannotFollow(let problem): "your player cannot follow: \(problem)"
    case .linkHeld(let why): "stepping away from the group's link: \(why)"
    case .borrowing(let series, let item, let duration, let why):
      "you don't have \(series) · \(item) (\(TimeFormat.clock(duration))): \(why)"
    case .otherCut(let series, let item, let fileLength, let groupLength):
      "your file of \(series) · \(item) is \(TimeFormat.clock(fileLength)) long and the group's is \(TimeFormat.clock(groupLength)): it may be another cut, and near its end you may part from the group"
    case .roomMoved(let name?): "the room now runs on \(name)'s machine"
    case .roomMoved(nil): "the room now runs on your machine"
    }
  }
}
