import PlaybackCoordination
import WireProtocol

/// One request of this participant, from the moment it is asked for until the relay
/// answers it.
struct OutboxRequest: Sendable {
  enum Body: Sendable, Hashable {
    case command(GroupCommand)
    case message(kind: MessageKind, body: String, to: Recipients)

    /// Whether the relay keeps it for people who enter later: the room's conversation
    /// (chat and reactions) said to everyone; never a private message.
    var keep: Bool {
      guard case .message(let kind, _, .all) = self else { return false }
      return MessageKind.conversation.contains(kind)
    }
  }

  /// Who asked: the person's own requests are the ones they must hear about when they go
  /// nowhere; the core's own (readiness, reports, suspensions) are settled quietly.
  enum Origin: Sendable, Hashable {
    case user
    case ready
    case report
    case automatic
  }

  var id: UInt64
  var body: Body
  var origin: Origin
  var askedAt: LocalInstant
  /// Who waits for the answer, until it comes or the answer timeout passes.
  var ticket: UInt64?
  var answerDeadline: LocalInstant
  /// Sent as `expire` after a long disconnection: settled, never applied anew.
  var expiring = false

  /// Whether this is one of the person's playback commands, which form one sequence (a
  /// pause is at the spot the seek before it went to).
  var isUserCommand: Bool {
    if case .command = body { origin == .user } else { false }
  }

  /// The request as it goes on the wire, unsealed.
  var message: ClientMessage {
    switch body {
    case .command(let command): .command(id: id, command)
    case .message(let kind, let text, let to):
      .send(seq: id, to: to, kind: kind, body: text, keep: body.keep)
    }
  }
}
