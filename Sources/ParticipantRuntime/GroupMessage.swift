import Foundation
import Participation
import PlaybackCoordination
import WireProtocol

/// A value participants exchange through the messenger (reactions, anything an app
/// defines), like the `Codable` messages of SharePlay's `GroupSessionMessenger`. The kind
/// names it on the wire, so that each receiver decodes only what it asked for. (Chat lines
/// are plain text of kind `chat`, so that any program can read them; see `sendMessage`.)
public protocol GroupMessage: Codable, Sendable {
  static var kind: MessageKind { get }
}

/// A message as it arrived: who sent it and when this participant received it.
public struct ReceivedMessage<Message: Sendable>: Sendable {
  public var message: Message
  public var sender: ParticipantID
  public var senderName: String
}

extension ParticipantClient {
  /// Sends a typed message, reliable and ordered per sender.
  public func send<Message: GroupMessage>(_ message: Message, to recipients: Recipients = .all)
    async throws(ClientError)
  {
    let body: String
    do {
      body = String(decoding: try JSONEncoder().encode(message), as: UTF8.self)
    } catch {
      throw .invalid("cannot encode \(Message.kind) message: \(error)")
    }
    sendMessage(kind: Message.kind, body: body, to: recipients)
  }

  /// The messages of one type from now on, as they arrive, for as long as the caller
  /// iterates (or the client stops). Bodies that do not decode as `Message` are skipped.
  public func messages<Message: GroupMessage>(of type: Message.Type)
    -> AsyncStream<ReceivedMessage<Message>>
  {
    let raw = rawMessages(kind: Message.kind)
    return AsyncStream { continuation in
      let task = Task(executorPreference: clock.taskExecutor) {
        for await (sender, name, body) in raw {
          if let value = try? JSONDecoder().decode(Message.self, from: Data(body.utf8)) {
            continuation.yield(ReceivedMessage(message: value, sender: sender, senderName: name))
          }
        }
        continuation.finish()
      }
      continuation.onTermination = { _ in task.cancel() }
    }
  }
}
