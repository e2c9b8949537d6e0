import PlaybackCoordination

// Every union's `"type"` names, each written once: here. The protocol's rule is that a
// case's name on the wire is its Swift name, so each table below lists the cases of one
// union in the order it declares them, and its `wireType` maps a value to its entry (an
// exhaustive switch: a new case does not compile until it is named here).
//
// Everything that writes or reads a `"type"` takes the name from these tables: the
// `Codable` conformances (`try c.encode(wireType.rawValue, forKey: .type)`, and
// `decodeWireType`, which also words the error for an unknown name), the hand-written
// hot path (``HotMessages``), and the tests' ``WireCaseNames``. The golden JSON
// (Tests/WireProtocolTests/WireGoldens.swift) and docs/PROTOCOL.md are the independent
// spelling that every name here is checked against.
//
// Adding a case: name it in its table here, write its fields in the union's conformance,
// give it a golden sample and a docs/PROTOCOL.md entry (the tests ask for both).

/// A participant's message to the relay.
extension ClientMessage: WireUnion {
  static let wireUnionName = "message"

  enum WireType: String, CaseIterable, Sendable {
    case hello, proof, command, ping, send, expire, resync, bye, carry, locate, tunnelOpen, tunnel
  }

  var wireType: WireType {
    switch self {
    case .hello: .hello
    case .proof: .proof
    case .command: .command
    case .ping: .ping
    case .send: .send
    case .expire: .expire
    case .resync: .resync
    case .bye: .bye
    case .carry: .carry
    case .locate: .locate
    case .tunnelOpen: .tunnelOpen
    case .tunnel: .tunnel
    }
  }
}

/// The relay's message to a participant.
extension ServerMessage: WireUnion {
  static let wireUnionName = "message"

  enum WireType: String, CaseIterable, Sendable {
    case welcome, challenge, update, step, accepted, rejected, pong, message, error, redirect,
      succession, replica, handover, located, tunnelTicket, tunnelRefused, tunnelCall, tunnelReady
  }

  var wireType: WireType {
    switch self {
    case .welcome: .welcome
    case .challenge: .challenge
    case .update: .update
    case .step: .step
    case .accepted: .accepted
    case .rejected: .rejected
    case .pong: .pong
    case .message: .message
    case .error: .error
    case .redirect: .redirect
    case .succession: .succession
    case .replica: .replica
    case .handover: .handover
    case .located: .located
    case .tunnelTicket: .tunnelTicket
    case .tunnelRefused: .tunnelRefused
    case .tunnelCall: .tunnelCall
    case .tunnelReady: .tunnelReady
    }
  }
}

/// A group command, in `command` and in a step's input.
extension GroupCommand: WireUnion {
  static let wireUnionName = "command"

  enum WireType: String, CaseIterable, Sendable {
    case enter, exit, setConnected, start, join, decline, leave, end, play, pause, seek, setRate,
      replace, advance, beginSuspension, endSuspension, setReadiness, setAutoAdvance, report,
      setLocked, setPlaybackControl, transferOwnership, remove, queueAdd, queueRemove, queueMove,
      queueClear, playQueued, setPersonalOffset, announceSealingKey, watchFrom, askReady,
      setReadyToWatch, startAnyway, cancelReadyCheck, setStartWhenAllReady, setKept
  }

  var wireType: WireType {
    switch self {
    case .enter: .enter
    case .exit: .exit
    case .setConnected: .setConnected
    case .start: .start
    case .join: .join
    case .decline: .decline
    case .leave: .leave
    case .end: .end
    case .play: .play
    case .pause: .pause
    case .seek: .seek
    case .setRate: .setRate
    case .replace: .replace
    case .advance: .advance
    case .beginSuspension: .beginSuspension
    case .endSuspension: .endSuspension
    case .setReadiness: .setReadiness
    case .setAutoAdvance: .setAutoAdvance
    case .report: .report
    case .setLocked: .setLocked
    case .setPlaybackControl: .setPlaybackControl
    case .transferOwnership: .transferOwnership
    case .remove: .remove
    case .queueAdd: .queueAdd
    case .queueRemove: .queueRemove
    case .queueMove: .queueMove
    case .queueClear: .queueClear
    case .playQueued: .playQueued
    case .setPersonalOffset: .setPersonalOffset
    case .announceSealingKey: .announceSealingKey
    case .watchFrom: .watchFrom
    case .askReady: .askReady
    case .setReadyToWatch: .setReadyToWatch
    case .startAnyway: .startAnyway
    case .cancelReadyCheck: .cancelReadyCheck
    case .setStartWhenAllReady: .setStartWhenAllReady
    case .setKept: .setKept
    }
  }
}

/// What a step applied, in `step.input`.
extension StepInput: WireUnion {
  static let wireUnionName = "step input"

  enum WireType: String, CaseIterable, Sendable {
    case command, tick
  }

  var wireType: WireType {
    switch self {
    case .command: .command
    case .tick: .tick
    }
  }
}

/// What changed, in an event's `kind`.
extension ChangeKind: WireUnion {
  static let wireUnionName = "change"

  enum WireType: String, CaseIterable, Sendable {
    case entered, exited, connectionChanged, sessionStarted, joined, declined, left, sessionEnded,
      played, paused, seeked, rateChanged, replaced, autoAdvanced, reachedEnd, suspended, resumed,
      resumedProposing, readinessChanged, waitStarted, waitTimedOut, waitEnded, autoAdvanceChanged,
      reported, sealingKeyAnnounced, lockChanged, playbackControlChanged, ownerChanged, removed,
      queueAdded, queueRemoved, queueMoved, queueCleared, personalOffsetChanged, queuePlayed,
      watchingFrom, readyCheckStarted, readyToWatchChanged, readyCheckEnded,
      startWhenAllReadyChanged, keptChanged
  }

  var wireType: WireType {
    switch self {
    case .entered: .entered
    case .exited: .exited
    case .connectionChanged: .connectionChanged
    case .sessionStarted: .sessionStarted
    case .joined: .joined
    case .declined: .declined
    case .left: .left
    case .sessionEnded: .sessionEnded
    case .played: .played
    case .paused: .paused
    case .seeked: .seeked
    case .rateChanged: .rateChanged
    case .replaced: .replaced
    case .autoAdvanced: .autoAdvanced
    case .reachedEnd: .reachedEnd
    case .suspended: .suspended
    case .resumed: .resumed
    case .resumedProposing: .resumedProposing
    case .readinessChanged: .readinessChanged
    case .waitStarted: .waitStarted
    case .waitTimedOut: .waitTimedOut
    case .waitEnded: .waitEnded
    case .autoAdvanceChanged: .autoAdvanceChanged
    case .reported: .reported
    case .sealingKeyAnnounced: .sealingKeyAnnounced
    case .lockChanged: .lockChanged
    case .playbackControlChanged: .playbackControlChanged
    case .ownerChanged: .ownerChanged
    case .removed: .removed
    case .queueAdded: .queueAdded
    case .queueRemoved: .queueRemoved
    case .queueMoved: .queueMoved
    case .queueCleared: .queueCleared
    case .personalOffsetChanged: .personalOffsetChanged
    case .queuePlayed: .queuePlayed
    case .watchingFrom: .watchingFrom
    case .readyCheckStarted: .readyCheckStarted
    case .readyToWatchChanged: .readyToWatchChanged
    case .readyCheckEnded: .readyCheckEnded
    case .startWhenAllReadyChanged: .startWhenAllReadyChanged
    case .keptChanged: .keptChanged
    }
  }
}

/// Why a command did not apply, in `rejected`'s `reason`.
extension Rejection: WireUnion {
  static let wireUnionName = "rejection"

  enum WireType: String, CaseIterable, Sendable {
    case unknownParticipant, alreadyInRoom, notJoined, alreadyJoined, noSession, suspended,
      notSuspended, staleItem, unknownItem, notInQueue, positionOutOfRange, rateOutOfRange,
      needsConfirmation, advanceNotApplicable, emptySeries, invalidName, invalidValue, notOwner,
      ownerControlsPlayback, unavailable
  }

  var wireType: WireType {
    switch self {
    case .unknownParticipant: .unknownParticipant
    case .alreadyInRoom: .alreadyInRoom
    case .notJoined: .notJoined
    case .alreadyJoined: .alreadyJoined
    case .noSession: .noSession
    case .suspended: .suspended
    case .notSuspended: .notSuspended
    case .staleItem: .staleItem
    case .unknownItem: .unknownItem
    case .notInQueue: .notInQueue
    case .positionOutOfRange: .positionOutOfRange
    case .rateOutOfRange: .rateOutOfRange
    case .needsConfirmation: .needsConfirmation
    case .advanceNotApplicable: .advanceNotApplicable
    case .emptySeries: .emptySeries
    case .invalidName: .invalidName
    case .invalidValue: .invalidValue
    case .notOwner: .notOwner
    case .ownerControlsPlayback: .ownerControlsPlayback
    case .unavailable: .unavailable
    }
  }
}

/// Why the group waits for someone, in a wait's `cause`.
extension WaitCause: WireUnion {
  static let wireUnionName = "wait cause"

  enum WireType: String, CaseIterable, Sendable {
    case answering, loading, stalled, suspended
  }

  var wireType: WireType {
    switch self {
    case .answering: .answering
    case .loading: .loading
    case .stalled: .stalled
    case .suspended: .suspended
    }
  }
}

/// Who a messenger payload goes to, in `send`'s `to`.
extension Recipients: WireUnion {
  static let wireUnionName = "recipients"

  enum WireType: String, CaseIterable, Sendable {
    case all, only
  }

  var wireType: WireType {
    switch self {
    case .all: .all
    case .only: .only
    }
  }
}

/// A union on the wire: an object whose `"type"` names its case, `{"type":"<case>", <named
/// fields>}`, the name from the union's table in this file.
protocol WireUnion {
  associatedtype WireType: RawRepresentable, CaseIterable, Sendable
  where WireType.RawValue == String
  /// What the union is called in the error for an unknown `"type"` ("message", "command").
  static var wireUnionName: String { get }
  /// The value's entry in its table: its case's name on the wire.
  var wireType: WireType { get }
}

extension KeyedDecodingContainer {
  /// The union's `"type"` at `key`: a string, one of the table's names; for anything else the
  /// error names what it was (`unknown command type "teleport"`).
  func decodeWireType<Union: WireUnion>(_: Union.Type, forKey key: Key) throws
    -> Union.WireType
  {
    let name = try decode(String.self, forKey: key)
    guard let type = Union.WireType(rawValue: name) else {
      throw DecodingError.dataCorruptedError(
        forKey: key, in: self,
        debugDescription: "unknown \(Union.wireUnionName) type \"\(name)\"")
    }
    return type
  }
}
