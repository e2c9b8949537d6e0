import Narration
import PlaybackCoordination
import Transports
import WireProtocol

/// Why a participant could not do what it asked.
public enum ClientError: Error, Hashable, Sendable, CustomStringConvertible {
  case transport(TransportError)
  /// The relay refused us (full room, wrong version, bad name).
  case refused(code: ErrorCode, message: String)
  case noWelcome(seconds: Double)
  case rejected(Rejection)
  case timedOut(what: String, seconds: Double)
  /// Not answered because the connection is down: still queued, sent when it is back
  /// within `window` seconds of asking, else settled unapplied (and said so).
  case notYetSent(window: Double)
  case notInSession
  case invalid(String)
  /// A relative step that would change nothing (past the fastest speed, the end of the
  /// item): not sent; says where the group already is.
  case unchanged(String)
  case stopped
  /// The room has a password and none was given.
  case passwordRequired(room: String)

  public var description: String {
    switch self {
    case .transport(let e): e.description
    case .refused(_, let message): "the relay refused: \(message)"
    case .noWelcome(let s): "the relay did not answer within \(Int(s)) s"
    case .rejected(let r): r.description
    case .timedOut(let what, let s): "\(what) got no answer within \(s) s (it may still apply)"
    case .notYetSent(let window):
      "not sent yet: the connection is down — it goes when the relay is back, if within \(Int(window)) s of asking; otherwise it is dropped and you are told"
    case .notInSession: "nothing is being watched"
    case .invalid(let why), .unchanged(let why): why
    case .stopped: "the participant has stopped"
    case .passwordRequired(let room):
      "room \(room) has a password: give it with --password-file FILE or COWATCH_ROOM_PASSWORD"
    }
  }
}

extension ClientError {
  /// The error as the person is told it: a request that would change nothing is
  /// information, anything else went wrong.
  public var notice: Notice {
    if case .unchanged(let why) = self { .unchanged(why) } else { .requestFailed(description) }
  }
}
