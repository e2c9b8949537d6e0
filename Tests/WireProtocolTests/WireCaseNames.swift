import PlaybackCoordination

@testable import WireProtocol

/// The Swift case of a value, by exhaustive switches: adding a case to one of these enums
/// stops this file from compiling until the case is named here. Name it, raise the count
/// next to the switch, and the coverage test then asks for a golden sample of it (and the
/// docs/PROTOCOL.md entry that goes with it).
///
/// The protocol's rule is that a union's `"type"` is the Swift case name, so these names are
/// also what the golden JSON must carry.
enum WireCaseNames {
  static let commandCount = 30
  static func of(_ value: GroupCommand) -> String {
    switch value {
    case .enter: "enter"
    case .exit: "exit"
    case .setConnected: "setConnected"
    case .start: "start"
    case .join: "join"
    case .decline: "decline"
    case .leave: "leave"
    case .end: "end"
    case .play: "play"
    case .pause: "pause"
    case .seek: "seek"
    case .setRate: "setRate"
    case .replace: "replace"
    case .advance: "advance"
    case .beginSuspension: "beginSuspension"
    case .endSuspension: "endSuspension"
    case .setReadiness: "setReadiness"
    case .setAutoAdvance: "setAutoAdvance"
    case .report: "report"
    case .setLocked: "setLocked"
    case .setPlaybackControl: "setPlaybackControl"
    case .transferOwnership: "transferOwnership"
    case .remove: "remove"
    case .queueAdd: "queueAdd"
    case .queueRemove: "queueRemove"
    case .queueMove: "queueMove"
    case .queueClear: "queueClear"
    case .playQueued: "playQueued"
    case .setPersonalOffset: "setPersonalOffset"
    case .announceSealingKey: "announceSealingKey"
    }
  }

  static let changeKindCount = 35
  static func of(_ value: ChangeKind) -> String {
    switch value {
    case .entered: "entered"
    case .exited: "exited"
    case .connectionChanged: "connectionChanged"
    case .sessionStarted: "sessionStarted"
    case .joined: "joined"
    case .declined: "declined"
    case .left: "left"
    case .sessionEnded: "sessionEnded"
    case .played: "played"
    case .paused: "paused"
    case .seeked: "seeked"
    case .rateChanged: "rateChanged"
    case .replaced: "replaced"
    case .autoAdvanced: "autoAdvanced"
    case .reachedEnd: "reachedEnd"
    case .suspended: "suspended"
    case .resumed: "resumed"
    case .resumedProposing: "resumedProposing"
    case .readinessChanged: "readinessChanged"
    case .waitStarted: "waitStarted"
    case .waitTimedOut: "waitTimedOut"
    case .waitEnded: "waitEnded"
    case .autoAdvanceChanged: "autoAdvanceChanged"
    case .reported: "reported"
    case .sealingKeyAnnounced: "sealingKeyAnnounced"
    case .lockChanged: "lockChanged"
    case .playbackControlChanged: "playbackControlChanged"
    case .ownerChanged: "ownerChanged"
    case .removed: "removed"
    case .queueAdded: "queueAdded"
    case .queueRemoved: "queueRemoved"
    case .queueMoved: "queueMoved"
    case .queueCleared: "queueCleared"
    case .queuePlayed: "queuePlayed"
    case .personalOffsetChanged: "personalOffsetChanged"
    }
  }

  static let rejectionCount = 20
  static func of(_ value: Rejection) -> String {
    switch value {
    case .unknownParticipant: "unknownParticipant"
    case .alreadyInRoom: "alreadyInRoom"
    case .notJoined: "notJoined"
    case .alreadyJoined: "alreadyJoined"
    case .noSession: "noSession"
    case .suspended: "suspended"
    case .notSuspended: "notSuspended"
    case .staleItem: "staleItem"
    case .unknownItem: "unknownItem"
    case .notInQueue: "notInQueue"
    case .positionOutOfRange: "positionOutOfRange"
    case .rateOutOfRange: "rateOutOfRange"
    case .needsConfirmation: "needsConfirmation"
    case .advanceNotApplicable: "advanceNotApplicable"
    case .emptySeries: "emptySeries"
    case .invalidName: "invalidName"
    case .invalidValue: "invalidValue"
    case .notOwner: "notOwner"
    case .ownerControlsPlayback: "ownerControlsPlayback"
    case .unavailable: "unavailable"
    }
  }

  static let waitCauseCount = 4
  static func of(_ value: WaitCause) -> String {
    switch value {
    case .answering: "answering"
    case .loading: "loading"
    case .stalled: "stalled"
    case .suspended: "suspended"
    }
  }

  static let stepInputCount = 2
  static func of(_ value: StepInput) -> String {
    switch value {
    case .command: "command"
    case .tick: "tick"
    }
  }

  static let recipientsCount = 2
  static func of(_ value: Recipients) -> String {
    switch value {
    case .all: "all"
    case .only: "only"
    }
  }

  static let clientMessageCount = 10
  static func of(_ value: ClientMessage) -> String {
    switch value {
    case .hello: "hello"
    case .proof: "proof"
    case .command: "command"
    case .ping: "ping"
    case .send: "send"
    case .expire: "expire"
    case .resync: "resync"
    case .bye: "bye"
    case .carry: "carry"
    case .locate: "locate"
    }
  }

  static let serverMessageCount = 14
  static func of(_ value: ServerMessage) -> String {
    switch value {
    case .welcome: "welcome"
    case .challenge: "challenge"
    case .update: "update"
    case .step: "step"
    case .accepted: "accepted"
    case .rejected: "rejected"
    case .pong: "pong"
    case .message: "message"
    case .error: "error"
    case .redirect: "redirect"
    case .succession: "succession"
    case .replica: "replica"
    case .handover: "handover"
    case .located: "located"
    }
  }

  static let readinessCount = 3
  static func of(_ value: Readiness) -> String {
    switch value {
    case .ready: "ready"
    case .loading: "loading"
    case .stalled: "stalled"
    }
  }

  static let exitReasonCount = 4
  static func of(_ value: ExitReason) -> String {
    switch value {
    case .quit: "quit"
    case .disconnected: "disconnected"
    case .timedOut: "timedOut"
    case .removed: "removed"
    }
  }

  static let playbackStatusCount = 4
  static func of(_ value: PlaybackStatus) -> String {
    switch value {
    case .playing: "playing"
    case .paused: "paused"
    case .waiting: "waiting"
    case .finished: "finished"
    }
  }

  static let errorCodeCount = 23
  static func of(_ value: ErrorCode) -> String {
    switch value {
    case .malformedFrame: "malformedFrame"
    case .frameTooLarge: "frameTooLarge"
    case .unsupportedVersion: "unsupportedVersion"
    case .helloRequired: "helloRequired"
    case .alreadyGreeted: "alreadyGreeted"
    case .roomFull: "roomFull"
    case .invalidHello: "invalidHello"
    case .rateLimited: "rateLimited"
    case .messageTooLarge: "messageTooLarge"
    case .unknownRecipient: "unknownRecipient"
    case .messagesLost: "messagesLost"
    case .tooManyConnections: "tooManyConnections"
    case .tooManyRooms: "tooManyRooms"
    case .heartbeatTimeout: "heartbeatTimeout"
    case .serverShuttingDown: "serverShuttingDown"
    case .roomLocked: "roomLocked"
    case .removedFromRoom: "removedFromRoom"
    case .wrongPassword: "wrongPassword"
    case .roomNotProtected: "roomNotProtected"
    case .tlsRequired: "tlsRequired"
    case .storeUnavailable: "storeUnavailable"
    case .cutOff: "cutOff"
    case .roomClosed: "roomClosed"
    }
  }
}
