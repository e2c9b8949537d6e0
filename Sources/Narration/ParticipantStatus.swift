import PlaybackCoordination

/// What one participant is doing, in the words every edge uses for it: the front's people
/// pane and headless mode's `state` field say the same thing about the same person because
/// both ask this one function.
public enum ParticipantStatus: Hashable, Sendable {
  /// The relay has lost this participant's connection and waits for it to come back.
  case reconnecting
  /// In the room while nothing is being watched.
  case inTheRoom
  /// A watch session is on and this participant has not joined it.
  case notJoined
  /// Playing an item on their own ("Only me"); only the local front knows this.
  case watchingAlone
  /// Detached from the group for a reason of their own (a call, a dialog, scrubbing).
  case steppedAway(SuspensionReason)
  case loading
  /// Re-buffering, or recovering from a stall.
  case stalled
  case watching
  case paused
  /// Ready, while the group waits for someone else.
  case ready
  case finished

  /// Classifies `participant` within `state`. `watchingAlone` is what the local front
  /// knows about its own person (the group does not): it counts only while not joined.
  public init(_ participant: Participant, in state: GroupState, watchingAlone: Bool = false) {
    let p = participant
    if !p.isConnected {
      self = .reconnecting
    } else if !p.isJoined {
      self = watchingAlone ? .watchingAlone : (state.session == nil ? .inTheRoom : .notJoined)
    } else if let reason = p.suspensions.last(where: { $0 != .stallRecovery }) {
      self = .steppedAway(reason)
    } else if p.suspensions.contains(.stallRecovery) || p.readiness == .stalled {
      self = .stalled
    } else if p.readiness == .loading {
      self = .loading
    } else {
      switch state.session?.status {
      case .playing: self = .watching
      case .paused: self = .paused
      case .waiting: self = .ready
      case .finished: self = .finished
      case nil: self = .inTheRoom
      }
    }
  }

  /// The words, the reason included ("stepped away — a call").
  public var text: String { text(you: false) }

  /// The words said to the person they are about: "stepped away — your player can't play
  /// this" rather than "their player".
  public func text(you: Bool) -> String {
    guard let detail = detail(you: you) else { return label }
    return "\(label) — \(detail)"
  }

  /// Why, when the state has a reason people should read (stepping away).
  public var detail: String? { detail(you: false) }

  /// Why, said to the person it is about (see ``text(you:)``).
  public func detail(you: Bool) -> String? {
    if case .steppedAway(let reason) = self { return SuspensionText.describe(reason, you: you) }
    return nil
  }

  /// The state alone, short enough for a column of the people pane.
  public var label: String {
    switch self {
    case .reconnecting: "reconnecting"
    case .inTheRoom: "in the room"
    case .notJoined: "not joined"
    case .watchingAlone: "alone"
    case .steppedAway: "stepped away"
    case .loading: "loading"
    case .stalled: "stalled"
    case .watching: "watching"
    case .paused: "paused"
    case .ready: "ready"
    case .finished: "finished"
    }
  }

  /// A participant's state in words (see ``text``).
  public static func describe(
    _ participant: Participant, in state: GroupState, watchingAlone: Bool = false
  ) -> String {
    ParticipantStatus(participant, in: state, watchingAlone: watchingAlone).text
  }
}
